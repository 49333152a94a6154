"""Scored tables read: results the game gives (win, loss, draw, score), plies and passes, each metric's best move."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablebase.games import Children, Game
from tablebase.kinds.kind import Kind, StoredTable
from tablebase.kinds.lines import Choose, by_figure
from tablebase.kinds.lookups import Listed, row_with_moves
from tablebase.lazy import np
from tablebase.listed import ListedPlainGame, one_part
from tablebase.schema import SCORED


class ListedScoredGame(ListedPlainGame):
    """A plain scored game in keyed form, over its listing."""

    @property
    def scores(self) -> bool:
        return self.game.scores

    @property
    def pass_move(self) -> int | None:
        move = self.game.pass_move
        if move is None:
            return None
        return self._codes.get(self.game.move_name(move), -2)  # -2: the listing met no pass

    def plays(self) -> list[Callable[[Any], Any]]:
        return [lambda p: ((m, (c,)) for m, c in self.game.moves(p))]

    def children(self, keys: np.ndarray) -> Children:
        return one_part(self.side(keys, 0))

    def results(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        outcome = np.empty(len(keys), dtype=np.int8)
        score = np.empty(len(keys), dtype=np.int64)
        for level, where, rows in self._by_level(np.asarray(keys, dtype=np.int64)):
            listed, rows = self._part(level, rows)
            if listed.outcome is not None:
                outcome[where], score[where] = listed.outcome[rows], listed.score[rows]
            else:
                for w, key in zip(where.tolist(), np.asarray(keys)[where].tolist()):
                    outcome[w], score[w] = self.game.result(self.game.read(self.text(key)))
        return outcome, score


class Scored(Kind):
    name = "scored"
    listed_class = ListedScoredGame

    @classmethod
    def columns_of(cls, game: Game | type[Game]) -> list[str]:
        return SCORED.names(text=True, scores=bool(game.scores), passes=game.pass_move is not None)

    def lookup(self, table: StoredTable, text: str) -> dict[str, Any]:
        return row_with_moves(table, text, _best_first)

    def line_choice(self) -> Choose:
        """The best move for the score where the game keeps one (the score is then kept along the line)."""
        return by_figure("best_score_move", "best_move")


def _best_first(listed: Listed) -> Listed:
    """Wins for the mover first (the child is lost for its mover, or won after an extra turn), quickest first;
    then draws; then losses, longest first."""

    def rank(m: tuple[int, dict[str, Any]]) -> tuple[int, int, int]:
        outcome = m[1]["outcome"]
        if m[1].get("again"):
            outcome = {"N": "P", "P": "N"}.get(outcome, outcome)
        plies = m[1].get("plies") or 0
        return {"P": 0, "D": 1, "N": 2}.get(outcome, 3), plies if outcome == "P" else -plies, m[0]

    return sorted(listed, key=rank)
