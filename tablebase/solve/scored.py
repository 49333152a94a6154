"""Solving scored games: outcomes with draws, plies, scores and passes, by retrograde analysis per level.

A scored game's finished positions have a result the game gives (a win, a
loss or a draw, and a score). Moves that go down a level are looked up in the
lower levels' values; moves that stay in the level (passes) may form cycles,
so a level is solved whole by retrograde analysis (``retrograde.py``), never
by recursion; a plain game whose listing found no such move (``kept_levels``)
is solved a part of a level at a time. Keys must be dense. ``ScoredSolver``
says what is computed.
"""

from __future__ import annotations

import logging

import numba

from tablebase.errors import TablebaseError
from tablebase.games import AGAIN, KEY_BITS, ScoredForm
from tablebase.games.forms import positions_array
from tablebase.games.loops import children_of, compiled_loop
from tablebase.jit import compile_all
from tablebase.lazy import np, pa, pc
from tablebase.solve import LevelByLevel
from tablebase.solve.kernels import SCORED_BEST, SCORED_SCAN
from tablebase.solve.retrograde import (
    DRAW,
    FREE,
    INF,
    LOST,
    PASSES,
    SAME,
    TOP,
    UNIT,
    UNKNOWN,
    WON,
    predecessors,
    retrograde,
)
from tablebase.solve.rows import move_array

compile_all()  # the games' functions these loops call are compiled ones from here on

OUTCOMES = pa.array(["P", "N", "D"])  # dictionary order follows LOST, WON, DRAW
NO_MOVE = -1
NO_PASS = -2  # the pass code of games without passes: no move has it
# Columns of the table of known values, one row per key (one cache line serves a child).
OUTCOME, SCORE, PLIES, MINE, THEIRS = range(5)
log = logging.getLogger(__name__)


@numba.njit(cache=True)
def _listed_moves(key, args, out_keys, out_moves):
    """A compiled move generator over compressed rows: args are the level's keys (ascending),
    offsets, child keys and move codes. A game without a compiled generator of its own gives its moves as
    the rows of ``children(keys)``, read through this one, so that one compiled scan serves both."""
    keys, offsets, child, codes = args
    t = np.searchsorted(keys, key)
    a, b = offsets[t], offsets[t + 1]
    for j in range(b - a):
        out_keys[j] = child[a + j]
        out_moves[j] = codes[a + j]
    return b - a


@numba.njit(inline="always")
def seen_by_opponent(value, again):
    """A solved child's (outcome, score, plies, mover's passes, opponent's passes) as the other player sees
    them, which is how a move's child is seen from its parent; after a move that gives the same player
    another turn (``again``) the child's figures are the parent's mover's own, and are turned round."""
    o, score, plies, mine, theirs = value[OUTCOME], value[SCORE], value[PLIES], value[MINE], value[THEIRS]
    if not again:
        return o, score, plies, mine, theirs
    return (WON if o == LOST else LOST if o == WON else o), -score, plies, theirs, mine


# The scan and the choice of best moves take the move generator as an argument and are
# inlined into a loop compiled (and cached) once per generator: solve/kernels.py.
@numba.njit(inline="always")
def scan(keys, moves_fn, args, max_moves, pass_move, known):
    """What the lower level offers each position, and the moves that stay in the level."""
    n = keys.shape[0]
    # Buckets of the key space, about one per key of the level, find a child's
    # place among the level's keys in a step or two instead of a binary search.
    shift = 0
    while (known.shape[0] >> shift) > n:
        shift += 1
    first = np.zeros((known.shape[0] >> shift) + 2, dtype=np.int64)
    for i in range(n):
        first[(keys[i] >> shift) + 1] += 1
    for b in range(first.shape[0] - 1):
        first[b + 1] += first[b]
    child = np.empty(max_moves + 1, dtype=np.int64)
    moves = np.empty(max_moves + 1, dtype=np.int64)
    final = np.zeros(n, dtype=np.bool_)
    blocked = np.zeros(n, dtype=np.bool_)
    succ = np.zeros(n, dtype=np.int32)
    score_offer = np.full(n, INF, dtype=np.int32)
    score_wait = np.full(n, -1, dtype=np.int32)
    score_code = np.full(n, NO_MOVE, dtype=np.int32)  # the lower-level move giving score_offer
    plies_offer = np.full(n, INF, dtype=np.int32)
    plies_wait = np.full(n, -1, dtype=np.int32)
    mine_offer = np.full(n, INF, dtype=np.int32)
    theirs_wait = np.full(n, -1, dtype=np.int32)
    src = np.empty(n, dtype=np.int32)
    dst = np.empty(n, dtype=np.int32)
    paid = np.empty(n, dtype=np.int8)
    edges = 0
    whole = True  # every child is in this level or a loaded one
    for t in range(n):
        m = moves_fn(keys[t], args, child, moves)
        final[t] = m == 0
        for j in range(m):
            c, again = child[j] & KEY_BITS, child[j] >= AGAIN
            fee = 1 if moves[j] == pass_move else 0
            if known[c, OUTCOME] == UNKNOWN:
                lo, hi = first[c >> shift], first[(c >> shift) + 1]
                s = lo + np.searchsorted(keys[lo:hi], c)
                if s >= hi or keys[s] != c:
                    whole = False
                    continue
                if edges == src.shape[0]:  # grow the edge buffers
                    src = np.concatenate((src, np.empty_like(src)))
                    dst = np.concatenate((dst, np.empty_like(dst)))
                    paid = np.concatenate((paid, np.empty_like(paid)))
                src[edges], dst[edges], paid[edges] = t, s, fee | (SAME if again else 0)
                edges += 1
                succ[t] += 1
                continue
            o, score, plies, mine, theirs = seen_by_opponent(known[c], again)
            if o == LOST:
                k = TOP + score  # the child's mover keeps -score cards
                if k < score_offer[t] or (k == score_offer[t] and moves[j] < score_code[t]):
                    score_offer[t], score_code[t] = k, moves[j]
                plies_offer[t] = min(plies_offer[t], plies + 1)
                blocked[t] = True
            elif o == WON:
                score_wait[t] = max(score_wait[t], TOP - score)
                plies_wait[t] = max(plies_wait[t], plies + 1)
            else:
                blocked[t] = True
            mine_offer[t] = min(mine_offer[t], fee + theirs)
            theirs_wait[t] = max(theirs_wait[t], mine)
    return (whole, final, blocked, succ, score_offer, score_wait, score_code, plies_offer, plies_wait,
            mine_offer, theirs_wait, src[:edges], dst[:edges], paid[:edges])


@numba.njit(inline="always")
def best_moves(keys, moves_fn, args, max_moves, pass_move, known, via_key, score_code):
    """One best move per metric (codes; -1 for none), ties to the smallest code."""
    n = keys.shape[0]
    child = np.empty(max_moves + 1, dtype=np.int64)
    moves = np.empty(max_moves + 1, dtype=np.int64)
    best = np.full((4, n), NO_MOVE, dtype=np.int32)
    for t in range(n):
        k = keys[t]
        m = moves_fn(k, args, child, moves)
        o = known[k, OUTCOME]
        b_plies = b_score = b_mine = b_theirs = NO_MOVE
        v_plies = v_score = v_mine = v_theirs = 0
        for j in range(m):
            c, code = child[j] & KEY_BITS, moves[j]
            oc, score, plies, mine, theirs = seen_by_opponent(known[c], child[j] >= AGAIN)
            # win: a lost child, fewest plies; loss: the longest defence; draw: stay drawn
            if (o == WON and oc == LOST) or o == LOST or (o == DRAW and oc == DRAW):
                v = -plies if o == WON else plies
                if b_plies == NO_MOVE or v > v_plies or (v == v_plies and code < b_plies):
                    b_plies, v_plies = code, v
            if (o == WON and c == via_key[t]) or (o == LOST) or (o == DRAW and oc == DRAW):
                v = -score
                if b_score == NO_MOVE or v > v_score or (v == v_score and code < b_score):
                    b_score, v_score = code, v
            v = (1 if code == pass_move else 0) + theirs
            if b_mine == NO_MOVE or v < v_mine or (v == v_mine and code < b_mine):
                b_mine, v_mine = code, v
            v = mine
            if b_theirs == NO_MOVE or v > v_theirs or (v == v_theirs and code < b_theirs):
                b_theirs, v_theirs = code, v
        if o == WON and via_key[t] < 0:
            b_score = score_code[t]  # settled by a lower-level child
        best[0, t], best[1, t], best[2, t], best[3, t] = b_plies, b_score, b_mine, b_theirs
    return best


def _interleave(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a[0], b[0], a[1], b[1], ...: the two pass-game nodes of each position side by side."""
    return np.stack([a, b], axis=1).ravel()


def _outcome_array(codes: np.ndarray) -> pa.Array:
    return pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int8)), OUTCOMES)


class ScoredSolver(LevelByLevel):
    """Solves a scored game's levels, whole where a move may keep its level (else a part at a time), keeping
    every solved value in arrays indexed by key.

    What is computed for each position, all from the mover's view:

    * outcome: N (the mover can force a win), P (the opponent can), D (neither:
      a drawn end the game gives, or an endless cycle; a level's draws are
      counted in ``draws``);
    * plies: moves to the end, the winner hurrying and the loser delaying;
    * with ``scores``: the score (the winner maximising, the loser minimising,
      positive when the mover wins);
    * with a ``pass_move``: mover_passes, the passes the mover makes before the
      game ends when the mover keeps them as few as possible and the opponent as
      many as possible (win or loss aside); opponent_passes, the same for the
      opponent's passes, which the opponent minimises and the mover maximises;
    * one best move per metric, ties to the smallest move code.

    A move may give the same player another turn (its child key carries
    ``AGAIN``, Kalah's extra turn): the child's figures are then the mover's
    own, taken as they are instead of turned round, and the move is one ply.
    """

    def __init__(self, game: ScoredForm, fresh: bool = False) -> None:
        if game.key_space is None:
            raise TablebaseError(f"{game.name}: scored games need dense keys (key_space)")
        self.game = game
        self.fresh = fresh
        self.columns = ["key", "outcome", "plies"]
        if game.scores:
            self.columns.append("score")
        if game.pass_move is not None:
            self.columns += ["mover_passes", "opponent_passes"]
        # outcome, score, plies, mover_passes, opponent_passes of every key solved so far
        self.known = np.zeros((game.key_space, 5), dtype=np.int16)
        self.known[:, OUTCOME] = UNKNOWN
        self.draws: dict[int, int] = {}  # level -> positions no one can win
        self._levels: set[int] = set()

    shared = None  # keeps its values in this process

    @property
    def levels(self) -> set[int]:
        return self._levels

    def remember(self, level: int, rows: pa.Table | None, whole: bool = True) -> None:
        """Take in stored rows of a level (None: none); ``whole``: the level is now complete."""
        if rows is not None and rows.num_rows:
            keys = rows["key"].to_numpy()
            values = np.zeros((len(keys), 5), dtype=np.int16)
            values[:, OUTCOME] = pc.index_in(rows["outcome"].cast(pa.string()), OUTCOMES).to_numpy(zero_copy_only=False)
            named = ((SCORE, "score"), (PLIES, "plies"), (MINE, "mover_passes"), (THEIRS, "opponent_passes"))
            for column, name in named:
                if name in self.columns:
                    values[:, column] = rows[name].fill_null(0).to_numpy()
            self.known[keys] = values
        if whole:
            self._levels.add(level)

    def _check_whole(self, keys: np.ndarray) -> int:
        """The level of ``keys``, which must be all of it unless the listing found no move that keeps it
        (``kept_levels``): a part of such a level is solved from the levels below alone."""
        game = self.game
        level = game.level_of(int(keys[0]))
        kept = getattr(game, "kept_levels", None)
        if kept is not None and level not in kept:
            return level
        size = game.level_size(level)
        ends = game.level_keys(level, 0, 1)[0], game.level_keys(level, size - 1, size)[0]
        if len(keys) != size or (keys[0], keys[-1]) != ends:
            raise TablebaseError(
                f"{game.name}: level {level} has {size} positions and must be solved whole "
                f"(moves within a level tie them together), got a slice of {len(keys)}"
            )
        return level

    def _generator(self, keys: np.ndarray) -> tuple:
        """The compiled move generator of the level and its arguments: the game's, or one over its listed moves."""
        compiled = self.game.compiled_moves
        if compiled is not None:
            return compiled.kernel, compiled.make_args(), max(self.game.max_moves, 1)
        offsets, child, codes = children_of(self.game, keys, self.fresh)
        most = int(np.diff(offsets).max(initial=0))
        return _listed_moves, (keys, offsets, child, codes), max(most, 1)

    def solve(self, keys: np.ndarray, compact: bool = False) -> pa.Table:
        """The rows of one level, or of a part of a level no move keeps, in key order."""
        game = self.game
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        if len(keys) == 0:
            raise TablebaseError(f"{game.name}: no positions to solve")
        level = self._check_whole(keys)
        self.known[keys, OUTCOME] = UNKNOWN  # solving a level again starts afresh
        n = len(keys)
        passes = game.pass_move is not None
        generator, args, most = self._generator(keys)
        kernel = (args, most, game.pass_move if passes else NO_PASS)
        (whole, final, blocked, succ, score_offer, score_wait, score_code, plies_offer, plies_wait,
         mine_offer, theirs_wait, src, dst, paid) = compiled_loop(SCORED_SCAN, generator, self.fresh)(
            keys, *kernel, self.known)
        if not whole:
            raise RuntimeError(f"{game.name} level {level}: a move leads to a position of a level that is not "
                               "loaded, or of this level outside the part solved")
        final_outcome = np.full(n, LOST, dtype=np.int8)  # only positions without moves are over
        final_score = np.zeros(n, dtype=np.int64)
        if final.any():
            final_outcome[final], final_score[final] = game.results(keys[final])
        final_score = np.abs(final_score)

        graph = predecessors(n, src, dst, paid)
        del src, dst, paid
        state, plies, _ = retrograde(*graph, UNIT, plies_offer, plies_wait, blocked, succ, final,
                                     final_outcome, np.zeros(n, dtype=np.int32), False)
        via = np.full(n, -1, dtype=np.int32)
        time = np.full(n, TOP, dtype=np.int32)
        if game.scores:
            score_state, time, via = retrograde(*graph, FREE, score_offer, score_wait, blocked, succ, final,
                                                final_outcome, (TOP - final_score).astype(np.int32), True)
            if not np.array_equal(state, score_state):
                raise RuntimeError(f"{game.name} level {level}: the score and plies runs disagree on outcomes")
        del score_offer, score_wait, plies_offer, plies_wait
        if passes:
            # The pass game: the counted player takes the least offer and can always
            # play on, the other player waits for every successor.
            passes_state, counted, _ = retrograde(
                *graph, PASSES, _interleave(mine_offer, np.full(n, INF, np.int32)),
                _interleave(np.full(n, -1, np.int32), theirs_wait), _interleave(np.ones(n, bool), np.zeros(n, bool)),
                _interleave(succ, succ), _interleave(final, final),
                _interleave(np.full(n, WON, np.int8), np.full(n, LOST, np.int8)),
                np.zeros(2 * n, dtype=np.int32), False)
            endless = passes_state.reshape(n, 2) == UNKNOWN
            counted = np.where(endless, 0, counted.reshape(n, 2))
        else:
            endless, counted = np.zeros((n, 2), dtype=bool), np.zeros((n, 2), dtype=np.int64)
        del graph

        drawn = state == UNKNOWN
        self.draws[level] = int(drawn.sum())
        if endless.any():
            log.warning("%s level %d: %d endless pass counts", game.name, level, int(endless.sum()))
        outcome = np.where(drawn, DRAW, state).astype(np.int8)
        magnitude = np.where(drawn, 0, TOP - time)
        score = np.where(state == WON, magnitude, -magnitude).astype(np.int8)
        plies = np.where(drawn, 0, plies)
        values = np.empty((n, 5), dtype=np.int16)
        values[:, OUTCOME], values[:, SCORE], values[:, PLIES] = outcome, score, plies
        values[:, MINE], values[:, THEIRS] = counted[:, 0], counted[:, 1]
        self.known[keys] = values
        del values

        via_key = np.where(via >= 0, keys[np.maximum(via, 0)], -1)
        best = compiled_loop(SCORED_BEST, generator, self.fresh)(keys, *kernel, self.known, via_key, score_code)
        rows = {
            "key": pa.array(keys, type=pa.int64()),
            "position": positions_array(game, keys),
            "outcome": _outcome_array(outcome),
        }
        if game.scores:
            rows["score"] = pa.array(score)
        rows["plies"] = pa.array(plies.astype(np.int16), mask=drawn)
        if passes:
            rows["mover_passes"] = pa.array(counted[:, 0].astype(np.int8), mask=endless[:, 0])
            rows["opponent_passes"] = pa.array(counted[:, 1].astype(np.int8), mask=endless[:, 1])
        rows["best_move"] = move_array(game, best[0])
        if game.scores:
            rows["best_score_move"] = move_array(game, best[1])
        if passes:
            rows["best_mover_passes_move"] = move_array(game, best[2])
            rows["best_opponent_passes_move"] = move_array(game, best[3])
        table = pa.table(rows)
        return table.drop_columns(["position"]) if compact else table
