"""An impartial position's best move found by probing its children, as Syzygy's probers find one.

The probe index does not store an impartial table's ``best_move``
(docs/format.md): it follows from the children's figures by the solver's
own rule. A won position moves to a lost child of least remoteness, a lost
one to the child of greatest remoteness, ties to the smallest move code; a
position without moves has none. ``best_move`` finds one position's in
plain Python (where the game lists one position's moves so), ``best_moves``
many at once with numpy. One position's is read knowing its own remoteness:
the first move in the order of codes to a child of remoteness one less (and
lost, from a won position) is the one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablebase.errors import StoreError
from tablebase.games import ImpartialForm
from tablebase.games.loops import children_of
from tablebase.lazy import np, pa

Row = Callable[[int], dict[str, Any] | None]
CODE_BITS = 31  # move codes below 2**31 are ranked in one number with the child's outcome and remoteness


def best_move(game: ImpartialForm, row: Row, key: int, found: dict[str, Any]) -> str | None:
    """The best move of the stored position ``key`` whose figures are ``found`` (``row`` reads a child's), or
    None. The position's remoteness says which child the rule picks: one of remoteness one less (a lost one,
    if the position is won), the first such in the order of move codes; the moves are read in that order
    and the first such one is the answer, most often long before the last."""
    wanted = found["remoteness"] - 1
    if wanted < 0:
        return None
    won = found["grundy"] != 0
    moves = game.moves_of(key)
    if moves is None:
        _, children, codes = children_of(game, np.array([key], dtype=np.int64))
        moves = list(zip(codes.tolist(), children.tolist()))
    for code, child in sorted(moves):
        figures = row(child)
        if figures is None:
            raise StoreError(f"{game.name}: a move of key {key} leads to key {child}, which the index does not hold")
        if figures["remoteness"] == wanted and (not won or figures["grundy"] == 0):
            return game.move_name(code)
    raise StoreError(f"{game.name}: no move of key {key} leads to a remoteness of {wanted}: the index is damaged")


def best_moves(game: ImpartialForm, index: Any, keys: np.ndarray) -> dict[str, pa.Array]:
    """The best moves of many keys (null where a key is not stored or has no move), as Arrow text."""
    keys = np.asarray(keys, dtype=np.int64)
    own = index.probe_many(keys).found
    out = np.full(len(keys), -1, dtype=np.int64)
    stored = keys[own]
    if len(stored):
        offsets, children, codes = children_of(game, stored)
        if len(children):
            figures = index.probe_many(children)
            if not figures.found.all():
                lost = int(children[~figures.found][0])
                raise StoreError(f"{game.name}: a move leads to key {lost}, which the index does not hold")
            out[own] = _chosen(offsets, codes, figures["grundy"].filled(0), figures["remoteness"].filled(0))
    names = {c: game.move_name(c) for c in np.unique(out[out >= 0]).tolist()}
    texts = [names.get(c) for c in out.tolist()]
    return {"best_move": pa.array(texts, pa.string())}


def _chosen(offsets: np.ndarray, codes: np.ndarray, grundy: np.ndarray, remoteness: np.ndarray) -> np.ndarray:
    """Each parent's chosen move code (-1 without moves): its children's ranks folded to the least."""
    counts = np.diff(offsets)
    out = np.full(len(counts), -1, dtype=np.int64)
    if not len(codes):
        return out
    if int(codes.min()) < 0 or int(codes.max()) >= 1 << CODE_BITS:
        parents = np.repeat(np.arange(len(counts)), counts)
        lost = grundy == 0
        order = np.lexsort((codes, np.where(lost, remoteness, -remoteness.astype(np.int64)), ~lost, parents))
        firsts = order[offsets[:-1][counts > 0]]
        out[counts > 0] = codes[firsts]
        return out
    lost = (grundy == 0).astype(np.int64)
    r = remoteness.astype(np.int64)
    spread = np.where(lost == 1, r, (1 << 30) - r)  # the lost child's least remoteness, else the greatest
    rank = ((1 - lost) << 62) | (spread << CODE_BITS) | codes.astype(np.int64)
    moved = counts > 0
    least = np.minimum.reduceat(rank, offsets[:-1][moved])
    out[moved] = least & ((1 << CODE_BITS) - 1)
    return out
