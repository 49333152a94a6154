"""Young diagrams in an R x C box, ranked densely as lattice paths.

A diagram is a non-increasing sequence of R row lengths, each at most C, top
row first, ranked densely by the combinatorial number system (``rank``). Chomp
(rows of a chocolate bar) and Nim (heap sizes sorted in decreasing order) both
use these ranks, through ``Box``: a game's keys and levels. The walks over
diagrams are compiled with numba.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from functools import cached_property, lru_cache
from math import comb

from tablebase.games import notation
from tablebase.games.base import Texts
from tablebase.jit import njit
from tablebase.lazy import np

SATURATED = 2**62  # where binomials stop growing: no rank reaches it


@lru_cache(maxsize=64)
def binomials(n: int) -> np.ndarray:
    """Pascal's triangle up to row n as an (n+1) x (n+1) int64 table.

    Entries too large for int64 saturate at 2**62: no rank ever reaches them,
    since a table's key space is checked to be far smaller.
    """
    top = SATURATED
    rows = [[1]]
    for i in range(1, n + 1):
        prev = rows[-1]
        rows.append([1] + [min(top, prev[k - 1] + prev[k]) for k in range(1, i)] + [1])
    table = np.zeros((n + 1, n + 1), dtype=np.int64)
    for i, row in enumerate(rows):
        table[i, : len(row)] = row
    return table


@lru_cache(maxsize=64)
def completions(rows: int, cols: int) -> np.ndarray:
    """count[n, m, s]: non-increasing sequences of n parts, each at most m, summing to s.

    Such a sequence has all parts below m, or a first part of m and n-1 parts
    of at most m after it. In numpy rather than compiled: making a game calls
    this first, and a build's driver then never waits for numba's start-up.
    """
    top = rows * cols
    count = np.zeros((rows + 1, cols + 1, top + 1), dtype=np.int64)
    count[:, :, 0] = 1  # the empty sum
    for n in range(1, rows + 1):
        for m in range(1, cols + 1):
            count[n, m] = count[n, m - 1]
            count[n, m, m:] += count[n - 1, m, : top + 1 - m]
    return count


def row_terms(rows: int, cols: int) -> np.ndarray:
    """term[c, r]: row r's share of the rank when it has length c (a cols+1 x rows table).

    The rank is the sum of its rows' shares, so cutting some rows changes it by
    the change of their shares alone.
    """
    binom = binomials(rows + cols)
    c = np.arange(cols + 1)[:, None]
    i = rows - 1 - np.arange(rows)[None, :]
    return np.ascontiguousarray(binom[c + i, i + 1])


@njit(cache=True)
def rank(lengths, binom):
    """The rank of one diagram (row lengths, top row first).

    Row j's length plus its distance from the bottom row gives a strictly increasing sequence, an R-subset
    of 0..R+C-1, which the combinatorial number system ranks: rank = sum over rows j of
    C(len_j + R-1-j, R-j). The rank is dense (0..C(R+C, R)-1), monotone under inclusion (a sub-diagram has a
    smaller rank), and ascending rank is lexicographic order on the row lengths, top row first.
    """
    rows = lengths.shape[0]
    r = 0
    for j in range(rows):
        r += binom[lengths[j] + rows - 1 - j, rows - j]
    return r


@njit(cache=True)
def unrank_into(key, rows, cols, binom, out):
    """Write the row lengths of the diagram ranked ``key`` into ``out``."""
    rest = key
    b = rows + cols - 1
    for j in range(rows):
        i = rows - 1 - j
        while binom[b, i + 1] > rest:
            b -= 1
        rest -= binom[b, i + 1]
        out[j] = b - i
        b -= 1


# Inlined where it is called: as a call, it slowed Chomp's generic move generator.
@njit(cache=True, inline="always")
def bites(key, lengths, share, term, rows, cols, out_keys, out_moves):
    """Every bite of a diagram: the keys it leads to and the codes r * cols + c; returns how many.

    Biting square (r, c), any but the corner (0, 0), removes every square
    (i, j) with i >= r and j >= c, that is, cuts rows r..h-1 (those longer
    than c) down to length c. Walking r upwards from the bottom changes the
    key by one row's change of share at a time. ``lengths`` are the row lengths
    (``unrank_into``) and ``share[r]`` is ``term[lengths[r], r]`` (``row_terms``).
    """
    n = 0
    height = rows
    for c in range(lengths[0]):
        while lengths[height - 1] <= c:
            height -= 1
        delta = 0
        for r in range(height - 1, -1, -1):
            delta += term[c, r] - share[r]
            if r == 0 and c == 0:
                break  # the corner cannot be bitten
            out_keys[n] = key + delta
            out_moves[n] = r * cols + c
            n += 1
    return n


@njit(cache=True)
def unrank_many(keys, rows, cols, binom):
    """Row lengths of many diagrams as a len(keys) x rows matrix."""
    out = np.empty((keys.shape[0], rows), dtype=np.int64)
    for t in range(keys.shape[0]):
        unrank_into(keys[t], rows, cols, binom, out[t])
    return out


@njit(cache=True)
def level_keys(size, start, stop, rows, cols, binom, count):
    """Ranks of the diagrams with ``size`` squares numbered start..stop-1 in rank order."""
    out = np.empty(stop - start, dtype=np.int64)
    if stop <= start:
        return out
    lengths = np.zeros(rows, dtype=np.int64)
    nth_of_size(size, start, rows, cols, count, lengths)
    out[0] = rank(lengths, binom)
    for t in range(1, stop - start):
        next_of_size(lengths, rows, cols)
        out[t] = rank(lengths, binom)
    return out


@njit(cache=True)
def nth_of_size(size, nth, rows, cols, count, lengths):
    """Write into ``lengths`` the ``nth`` diagram with ``size`` squares, in rank (lexicographic) order
    (``count``: ``completions(rows, cols)``)."""
    lengths[:] = 0
    t = nth
    s = size
    m = cols
    for j in range(rows):
        n = rows - 1 - j
        for v in range(min(m, s) + 1):
            c = count[n, v, s - v] if s - v <= n * v else 0
            if t < c:
                lengths[j] = v
                s -= v
                m = v
                break
            t -= c


@njit(cache=True, inline="always")
def next_of_size(lengths, rows, cols):
    """Step ``lengths`` to the next diagram in rank order with as many squares; return the first row that
    changed (the rows above it are as they were), or -1 after the last diagram.

    The lexicographic successor with the same sum: raise the last row that can
    grow by one, then refill the rows below it as evenly as possible.
    """
    suffix = 0
    j = rows - 1
    while j >= 0:
        bound = cols if j == 0 else lengths[j - 1]
        if suffix >= 1 and lengths[j] + 1 <= bound:
            break
        suffix += lengths[j]
        j -= 1
    if j < 0:
        return -1
    lengths[j] += 1
    suffix -= 1
    n = rows - 1 - j
    q = suffix // n
    extra = suffix - q * n
    for i in range(n):
        lengths[j + 1 + i] = q + 1 if i < extra else q
    return j


@njit(cache=True, inline="always")
def write_diagram(lengths, rows, digits, width, data, p):
    """Write a diagram's non-zero row lengths, space-separated, at ``data[p:]``; return where it ends.

    ``digits[v]`` holds the text of v (at most two digits: cols <= 30) and
    ``width[v]`` its length; both bytes are written and the second overwritten
    when v has one digit, which saves a branch.
    """
    for j in range(rows):
        v = lengths[j]
        if v == 0:
            break
        if j > 0:
            data[p] = 32
            p += 1
        data[p] = digits[v, 0]
        data[p + 1] = digits[v, 1]
        p += width[v]
    return p


@njit(cache=True)
def _spell_into(keys, rows, cols, binom, digits, width, lengths, data, offsets):
    """Write each diagram's notation (``write_diagram``) from its rank; ``lengths`` is scratch."""
    p = 0
    for t in range(keys.shape[0]):
        # A level's keys come in rank order: the next diagram of the same size
        # is most often the one wanted, and ranking it (a sum over the rows)
        # costs a fraction of unranking (a search through them).
        if t == 0 or not (next_of_size(lengths, rows, cols) and rank(lengths, binom) == keys[t]):
            unrank_into(keys[t], rows, cols, binom, lengths)
        p = write_diagram(lengths, rows, digits, width, data, p)
        offsets[t + 1] = p
    return p


class Speller:
    """Diagrams' notation written in chunks of keys, so that the buffer sized for the longest spellings stays small.

    ``spell(n, write)`` calls ``write(start, stop, data, offsets)`` for each chunk:
    it writes the notation of keys start..stop-1 into ``data`` and their ends
    into ``offsets[1:]``, and returns the bytes written. ``_spell_into`` is such
    a writer, and so is a solver's loop that spells each diagram as it solves it.
    """

    CHUNK = 1 << 16

    def __init__(self, rows: int, cols: int) -> None:
        texts = [str(v).encode() for v in range(cols + 1)]
        self.digits = np.zeros((cols + 1, 2), dtype=np.uint8)
        self.width = np.array([len(t) for t in texts], dtype=np.int64)
        for v, text in enumerate(texts):
            self.digits[v, : len(text)] = list(text)
        self.widest = rows * (len(str(cols)) + 1)

    def spell(self, n: int, write: Callable[[int, int, np.ndarray, np.ndarray], int]) -> Texts:
        scratch = np.empty(min(n, self.CHUNK) * self.widest + 2, dtype=np.uint8)
        offsets = np.zeros(n + 1, dtype=np.int64)
        pieces = []
        for start in range(0, n, self.CHUNK):
            stop = min(start + self.CHUNK, n)
            used = write(start, stop, scratch, offsets[start : stop + 1])
            offsets[start + 1 : stop + 1] += offsets[start]
            pieces.append(scratch[:used].copy())
        return Texts(offsets, np.concatenate(pieces) if pieces else np.empty(0, dtype=np.uint8))


def spell_diagrams(keys: np.ndarray, rows: int, cols: int, binom: np.ndarray) -> Texts:
    """The notation of many diagrams from their ranks, without a matrix of row lengths."""
    keys = np.ascontiguousarray(keys, dtype=np.int64)
    speller = Speller(rows, cols)
    lengths = np.zeros(rows, dtype=np.int64)
    return speller.spell(len(keys), lambda start, stop, data, offsets: _spell_into(
        keys[start:stop], rows, cols, binom, speller.digits, speller.width, lengths, data, offsets))


def level_sizes(rows: int, cols: int) -> np.ndarray:
    """How many diagrams of each size (0..rows*cols) fit in the box."""
    return completions(rows, cols)[rows, cols].copy()


class Box:
    """The Young diagrams in a ``rows`` x ``cols`` box, ranked: the keys and levels of a game keyed by them.

    Chomp keys its bars this way (row lengths) and Nim its heaps (sorted in
    decreasing order); both count a level as the squares left. ``size`` is
    the number of diagrams, every rank is below it: a game checks it before
    asking for ``level_sizes``, whose count table grows with the box.
    """

    def __init__(self, rows: int, cols: int) -> None:
        self.rows, self.cols = rows, cols
        self.size = comb(rows + cols, rows)
        # Row r's share of a rank by its length c, the entry of ``row_terms``, as Python lists: ranking one
        # diagram is then a sum of list items, a microsecond, where the compiled ``rank`` run as Python costs
        # tens of them; and a program that reads one position imports no numpy.
        self._shares = [[min(SATURATED, comb(c + rows - 1 - r, rows - r)) for c in range(cols + 1)]
                        for r in range(rows)]

    @cached_property
    def binom(self) -> np.ndarray:
        """``binomials(rows + cols)``: the compiled walks' table."""
        return binomials(self.rows + self.cols)

    def level_sizes(self) -> np.ndarray:
        """How many diagrams have each number of squares, 0..rows*cols (a copy the game may change)."""
        return level_sizes(self.rows, self.cols)

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        """Ranks start..stop-1 among the diagrams of ``level`` squares, ascending."""
        count = completions(self.rows, self.cols)
        return level_keys(level, start, stop, self.rows, self.cols, self.binom, count)

    def level_of(self, key: int) -> int:
        """The squares of the diagram ranked ``key``."""
        return int(self.lengths(np.array([key], dtype=np.int64)).sum())

    def levels_of(self, keys: np.ndarray) -> np.ndarray:
        """The squares of the diagrams ranked ``keys``, in one compiled pass."""
        return self.lengths(np.asarray(keys, dtype=np.int64)).sum(axis=1)

    def lengths(self, keys: np.ndarray) -> np.ndarray:
        """Row lengths of the diagrams ranked ``keys``, top row first, as a len(keys) x rows matrix."""
        return unrank_many(keys, self.rows, self.cols, self.binom)

    def lengths_of(self, key: int) -> list[int]:
        """Row lengths of the diagram ranked ``key``, top row first, every row (``lengths`` of one key), in
        plain Python: each row the longest whose share still fits in what is left of the rank."""
        out, rest, longest = [], key, self.cols
        for shares in self._shares:
            c = bisect_right(shares, rest, 0, longest + 1) - 1
            out.append(c)
            rest -= shares[c]
            longest = c
        return out

    def bites_of(self, key: int) -> list[tuple[int, int]]:
        """``bites`` of one diagram in plain Python: (the code r * cols + c, the key it leads to), in the
        compiled walk's order."""
        lengths = self.lengths_of(key)
        shares = [self._shares[r][n] for r, n in enumerate(lengths)]
        found, height = [], self.rows
        for c in range(lengths[0]):
            while lengths[height - 1] <= c:
                height -= 1
            delta = 0
            for r in range(height - 1, -1, -1):
                delta += self._shares[r][c] - shares[r]
                if r == 0 and c == 0:
                    break  # the corner cannot be bitten
                found.append((r * self.cols + c, key + delta))
        return found

    def packed_shares(self, shift: int) -> list[list[int]]:
        """Each row's share of a rank by its length c, shifted left by ``shift`` with c in the low bits: one
        sum of a diagram's items gives its rank and its number of squares at once (``Chomp.locator``)."""
        return [[share << shift | c for c, share in enumerate(row)] for row in self._shares]

    def rank(self, lengths: list[int]) -> int:
        """The rank of a diagram given by its first rows' lengths (non-increasing, each 0..cols, at most
        ``rows`` of them; the rows after them empty): the scalar twin of ``read_many``'s ranks, in plain Python."""
        return sum(map(list.__getitem__, self._shares, lengths))

    def read_many(self, texts: Texts, spelling: tuple[int, int, bool], sort: bool = False,
                  least: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        """Keys, levels and ``ok`` of texts that spell diagrams by their row lengths, in one compiled pass
        (``notation.read_diagrams``, a large batch in parts on threads); a text not ``ok`` has key and level 0,
        for the game to read it one by one. Last, whether every text read ``ok`` is written plainly, as
        ``notation.written_plainly(texts, *spelling)`` would say."""
        parts = notation.on_threads(notation.read_diagrams, texts, self.rows, self.cols, self.binom, sort, least,
                                    *spelling)
        if len(parts) == 1:
            return parts[0]
        keys, levels, ok, plain = zip(*parts)
        return np.concatenate(keys), np.concatenate(levels), np.concatenate(ok), all(plain)
