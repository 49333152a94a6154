"""A plain game's levels numbered in ranges of notation, so that no process holds a whole level.

Keys go by level, then by notation (the order the engine has always given),
but a level's positions were found in shares by hash (``shares.py``), which
mixes notations. So each level is dealt again, by notation this time: a few
texts sampled from every share (``sample``) name where the ranges split
(``splitters``); each share's rows go to the range their text falls in
(``range_of``), and a range, sorted (``in_order``), is a run of consecutive
keys starting where the ranges before it end, which the counts alone say.

Each range sends every position's key to the position's owner by hash
(``keyed``), and asks the owners for its children's keys (``asked``): a
range knows its children by the hash of their notation only. With the
answers (``looked_up``) it holds its part of the level file (``assembled``):
notation, each side's moves as codes and child keys, results.

These are functions of Arrow tables and numpy arrays; where they run, and
how their pieces travel, is the caller's (``tablebase.build.census.numbering_tasks``).
"""

from __future__ import annotations

from tablebase.errors import TablebaseError
from tablebase.games import KEY_BITS, SumMoves
from tablebase.lazy import np, pa, pc
from tablebase.listed import LevelRows
from tablebase.listing.distinct import distinct_in_order
from tablebase.listing.shares import looked_up, routed, share_first, share_moves

SAMPLES = 64  # texts a share gives of each level: its ranges then hold within a few percent of their part
SORTED_MOST = 4_096  # texts of a share sorted to take its sample from


def sample(texts: pa.Array, n: int = SAMPLES) -> list[str]:
    """Up to ``n`` of the texts, evenly spaced in their order: the order of at most ``SORTED_MOST`` of them,
    taken evenly spaced as they come. A share's texts come by hash (or as a serial task played them), not
    by notation, so those are as good as any to place its ranges' bounds, and sorting every text of a level
    was a share of its numbering (Connect-Four's); the bounds change no key, only how many positions each
    range holds."""
    if len(texts) > SORTED_MOST:
        texts = texts.take(pa.array(np.linspace(0, len(texts) - 1, SORTED_MOST).astype(np.int64)))
    if not len(texts):
        return []
    order = pc.sort_indices(texts).to_numpy()
    picks = np.unique(np.linspace(0, len(order) - 1, min(n, len(order))).astype(np.int64))
    return texts.take(pa.array(order[picks])).to_pylist()


def surveyed(texts: list[pa.Array], metadata: list[dict[bytes, bytes]], held: int) -> dict:
    """What numbering a level needs of a share's rows of it (their texts, the metadata of the files that hold
    them, their bytes in Arrow): a sample of the texts, the moves the rows number, the first text by notation
    (None if there are no rows), and the bytes."""
    moves: set = set()
    firsts = []
    for described in metadata:
        moves.update(share_moves(described))
        first = share_first(described)
        if first is not None:  # a round of a level may find nothing new in a share
            firsts.append(first)
    picked = sample(pa.chunked_array(texts, pa.string()).combine_chunks()) if texts else []
    return {"sample": picked, "moves": list(moves), "first": min(firsts, default=None), "bytes": held}


def merged(surveys: list[dict]) -> dict:
    """The surveys of parts of a share's rows of a level (its rounds, say) as one."""
    moves: set = set()
    for part in surveys:
        moves.update(part["moves"])
    firsts = [part["first"] for part in surveys if part["first"] is not None]
    return {"sample": [text for part in surveys for text in part["sample"]], "moves": list(moves),
            "first": min(firsts, default=None), "bytes": sum(part["bytes"] for part in surveys)}


def splitters(samples: list[str], ranges: int) -> list[str]:
    """Where a level's ``ranges`` ranges begin (but the first), from its shares' samples: fewer when the
    samples hold fewer distinct texts.

    Python orders strings by code point, Arrow by UTF-8 bytes: the same order.
    """
    merged = sorted(samples)
    cuts = [merged[k * len(merged) // ranges] for k in range(1, ranges)] if merged else []
    return sorted(set(cuts) - {merged[0]}) if cuts else []  # every range begins at a text of its own


def range_of(texts: pa.Array, splitters: list[str]) -> np.ndarray:
    """Each text's range: how many splitters are at or below it."""
    which = np.zeros(len(texts), dtype=np.int64)
    for splitter in splitters:
        which += pc.greater_equal(texts, pa.scalar(splitter, texts.type)).to_numpy(zero_copy_only=False)
    return which


def in_order(rows: pa.Table) -> pa.Table:
    """A range's rows by notation: the order of their keys."""
    return rows.take(pc.sort_indices(rows, [("text", "ascending")]))


def keyed(rows: pa.Table, first: int, partitions: int) -> list[pa.Table]:
    """A range's (hash, key) pairs, its rows in order numbered from ``first``, split by owner and sorted by hash."""
    keys = pa.table({"hash": rows.column("hash").combine_chunks(),
                     "key": pa.array(first + np.arange(rows.num_rows, dtype=np.int64))})
    return [piece.take(pc.sort_indices(piece, [("hash", "ascending")])) for piece in routed(keys, partitions)]


def by_hash(pieces: list[pa.Table]) -> pa.Table:
    """An owner's (hash, key) pairs of one level, from every range, sorted by hash for ``looked_up``."""
    keys = pa.concat_tables(pieces)
    return keys.take(pc.sort_indices(keys, [("hash", "ascending")]))


def _children(rows: pa.Table, s: int) -> tuple[np.ndarray, np.ndarray]:
    """Side ``s``'s children: their hashes and levels, the levels carrying any extra-turn mark."""
    return _each_part(rows, f"parts{s}"), _each_part(rows, f"levels{s}")


def _each_part(rows: pa.Table, column: str) -> np.ndarray:
    """A column of moves' children as one value a part, in order: each move's a list of its parts
    (list<list<value>>), or, where positions do not split, the child itself (list<value>)."""
    values = rows.column(column).combine_chunks().flatten()
    return (values.flatten() if pa.types.is_list(values.type) else values).to_numpy()


def _part_starts(rows: pa.Table, s: int) -> np.ndarray:
    """Where each move's parts begin among side ``s``'s parts, and where the last ends."""
    inner = rows.column(f"parts{s}").combine_chunks().flatten()
    if not pa.types.is_list(inner.type):  # a child a move
        return np.arange(len(inner) + 1, dtype=np.int64)
    starts = inner.offsets.to_numpy().astype(np.int64)
    return starts - starts[0]


def one_shape(pieces: list[pa.Table]) -> list[pa.Table]:
    """Rows of one level, to be put end to end, in one shape: files written before a share wrote a move's
    one child as itself held it as a list of one part (a build resumed across that change)."""
    if len({piece.schema.remove_metadata() for piece in pieces}) <= 1:
        return pieces
    return [_one_child_a_move(piece) for piece in pieces]


def _one_child_a_move(rows: pa.Table) -> pa.Table:
    for index, name in enumerate(rows.column_names):
        column = rows.column(name).combine_chunks()
        if name.startswith(("parts", "levels")) and pa.types.is_list(column.type.value_type):
            inner = column.flatten()
            if (pc.list_value_length(inner).to_numpy() != 1).any():
                raise TablebaseError("a level's rows were written in two shapes; build the table again into a "
                                     "fresh folder")
            offsets = column.offsets.to_numpy()
            rows = rows.set_column(index, name, pa.ListArray.from_arrays(pa.array(offsets - offsets[0]),
                                                                         inner.flatten()))
    return rows


def _sides(rows: pa.Table) -> int:
    s = 0
    while f"moves{s}" in rows.column_names:
        s += 1
    return s


def asked(rows: pa.Table, levels: list[int], partitions: int) -> tuple[dict[tuple[int, int], np.ndarray], np.ndarray]:
    """The hashes a range asks each owner the keys of, and where each child's key will be among the answers.

    The questions: for each level its children reach (``levels``, every one of them) and owner, its
    children's hashes there, each once, sorted. The places: for each child (of every side, in order), its
    answer's place once the answers are put end to end in the order of the questions (``assembled``).

    The distinct children are sorted by level, owner and hash once, not picked out of all of them for each
    question: a level's moves reach dozens of levels, and a cluster's partitions multiply the questions by
    their number. A child reached by many moves is sorted once (``distinct.py``).
    """
    pairs = [_children(rows, s) for s in range(_sides(rows))]
    hashes = np.concatenate([h for h, _ in pairs]) if pairs else np.zeros(0, np.uint64)
    lower = np.concatenate([lv for _, lv in pairs]) & KEY_BITS if pairs else np.zeros(0, np.int64)
    groups, hashes, places = distinct_in_order(hashes, lower, partitions)
    asks = sorted((level, p) for level in levels for p in range(partitions))
    wanted = np.array([level * partitions + p for level, p in asks], dtype=np.int64)
    firsts, ends = np.searchsorted(groups, wanted).tolist(), np.searchsorted(groups, wanted, side="right").tolist()
    if sum(ends) - sum(firsts) != len(hashes):
        raise TablebaseError("a range's children reach a level the listing did not record; "
                             "build the table again into a fresh folder")
    return {ask: hashes[a:b] for ask, a, b in zip(asks, firsts, ends)}, places


def answered(keys: pa.Table, questions: list[np.ndarray]) -> list[np.ndarray]:
    """An owner's answers: the keys of each range's hashes, from its (hash, key) pairs of one level."""
    return [looked_up(keys, hashes) if len(hashes) else np.zeros(0, np.int64) for hashes in questions]


def assembled(rows: pa.Table, places: np.ndarray,
              answers: dict[tuple[int, int], np.ndarray]) -> tuple[LevelRows, int, int]:
    """A range's rows as the listing's level file holds them, its children's keys from the owners' answers
    (an extra turn's key marked, ``AGAIN``), each at its place (``asked``); also the most moves of one
    position on one side, and the number of parts."""
    keys = np.concatenate([answers[ask] for ask in sorted(answers)] or [np.zeros(0, np.int64)])
    if len(places) and int(places.max()) >= len(keys):
        raise TablebaseError("a range was given fewer answers than it asked; build the table again into a fresh folder")
    out = LevelRows(texts=rows.column("text").combine_chunks())
    most = parts = done = 0
    for s in range(_sides(rows)):
        levels = _each_part(rows, f"levels{s}")
        child = keys[places[done:done + len(levels)]] | (levels & ~KEY_BITS)
        done += len(levels)
        moves = rows.column(f"moves{s}").combine_chunks()
        offsets = moves.offsets.to_numpy().astype(np.int64)
        out.sides.append(SumMoves(offsets - offsets[0], moves.flatten().to_numpy(), _part_starts(rows, s),
                                  child, np.zeros(len(child), dtype=np.bool_)))
        most = max(most, int(np.diff(offsets).max(initial=0)))
        parts += len(child)
    if "outcome" in rows.column_names:
        out.outcome = rows.column("outcome").to_numpy()
        out.score = rows.column("score").to_numpy()
    return out, most, parts
