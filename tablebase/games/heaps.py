"""Games on heaps of tokens: what Nim, the subtraction games, Wythoff's game and Fibonacci nim share.

Their positions are a few whole numbers, mostly heap sizes, written with
spaces (``0 3 5 7``) and read with spaces or commas; their tables are sized by
the largest heap, ``top``. ``HeapGame`` holds this once, so that each game
keeps only its rules; two layouts of positions come ready with their keys,
levels, notation and picture (``SingleHeap``, ``HeapMultiset``), and games whose
positions are two numbers of another meaning rank them as pairs (``pair_key``).
"""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from typing import Any, ClassVar

from tablebase.errors import UsageError
from tablebase.games import young
from tablebase.games.base import Texts, table_name
from tablebase.games.drawing import Picture, heaps
from tablebase.games.keyed import KeyedImpartialGame
from tablebase.games.notation import format_rows, split_ints, written_plainly
from tablebase.games.shapes import Box
from tablebase.jit import njit
from tablebase.lazy import np


class HeapGame(KeyedImpartialGame):
    """An impartial game whose positions are a few whole numbers, sized by the largest heap ``top``.

    Gives the reading of ``top`` (``top_option``, refused outside
    0..``top_limit``), the table's name (the game's name, ``rule`` and
    ``size_name``), its bounds in error messages, the notation of keys (from
    ``numbers``, which a subclass gives) and take moves named ``-t``.
    """

    numeric = True  # positions are whole numbers: (3, 5) reads as "3 5"

    #: the option giving the largest heap (as spelt in params), and the most it may be
    top_option: ClassVar[str] = "max"
    top_limit: ClassVar[int] = 1_000_000
    #: the game's name atop its pictures ("Nim"); its name if empty
    title: ClassVar[str] = ""
    move_notation = "'-t': take t tokens"
    #: what the options say besides the sizes, as the table's name says it (``s1_3_4``); set by the game
    rule: str = ""
    top: int

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.read_sizes()

    def read_sizes(self) -> None:
        """Read the options that size the table, each refused with one line outside its range.

        A layout with more sizes reads them here, in the order their errors
        should come.
        """
        self.top = self.int_param(self.top_option, 0, self.top_limit)

    # -- names -------------------------------------------------------------------------
    @property
    def size_name(self) -> str:
        """The table's size in its name: ``n`` and the largest heap."""
        return f"n{self.top}"

    @property
    def table(self) -> str:
        return table_name(part for part in (self.name, self.rule, self.size_name) if part)

    @property
    def bounds(self) -> str:
        return f"heaps of 0..{self.top} tokens"

    # -- notation ------------------------------------------------------------------------
    def numbers(self, keys: np.ndarray) -> np.ndarray:
        """The numbers each key is written with, one row of a matrix per key (every row as long)."""
        raise NotImplementedError(f"{self.name}: a heap game gives numbers()")

    def format_positions(self, keys: np.ndarray) -> Texts:
        """The numbers of every key written in one compiled pass, without a Python string per position."""
        numbers = self.numbers(np.asarray(keys, dtype=np.int64))
        return format_rows(numbers, np.full(len(numbers), numbers.shape[1], dtype=np.int64))

    def move_name(self, move: int) -> str:
        """A take: the move code is the number of tokens taken."""
        return f"-{move}"


class SingleHeap(HeapGame):
    """A game on one heap of 0..top tokens: a position is the heap's size, which is its key and its level."""

    notation = "the number of tokens, e.g. '17'"

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.key_space = self.top + 1

    def draw(self, position: str) -> Picture:
        """The one heap; a click on a token or above the heap resizes it, within the table."""
        return heaps(self.parse_ints(position)[:1], f"{self.title or self.name} {position}",
                     resize=lambda _, size: str(size) if size <= self.top else None)

    @property
    def max_level(self) -> int:
        return self.top

    def level_size(self, level: int) -> int:
        return 1

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        return np.arange(level + start, level + stop, dtype=np.int64)

    def level_of(self, key: int) -> int:
        return int(key)

    def levels_of(self, keys: np.ndarray) -> np.ndarray:
        return np.array(keys, dtype=np.int64)  # a copy: the caller may change it

    def numbers(self, keys: np.ndarray) -> np.ndarray:
        return keys.reshape(-1, 1)

    def parse(self, text: str) -> int:
        values = self.parse_ints(text)
        if len(values) != 1:
            raise self.position_error(text, "expected one number")
        if not 0 <= values[0] <= self.top:
            raise self.position_error(text, "outside the table")
        return values[0]

    def parse_many(self, texts: Texts) -> np.ndarray:
        values, counts, ok = split_ints(texts, 1)
        ok &= (counts == 1) & (values[:, 0] <= self.top)
        return self.parse_rest(texts, np.where(ok, values[:, 0], 0), ok)

    def spelt_alike(self, texts: Texts) -> bool:
        return written_plainly(texts, count=1, order=0, zeros=True)


class HeapMultiset(HeapGame):
    """A game on ``heaps`` heaps of 0..top tokens, in any order: a position is the multiset of their sizes.

    Sorted in decreasing order the sizes are a Young diagram in a heaps x top
    box (``young.Box``): keys are its dense rank, the level is the tokens
    left. The notation lists the sizes in increasing order, empty heaps
    included; on input the order is free and missing heaps are empty.
    ``kernel_args()`` gives a move generator what it needs to unrank a key
    and rank what a move leaves: ``(heaps, top, binom, sizes, work)``, the
    last two scratch arrays of ``heaps`` numbers.
    """

    notation = "heap sizes in any order, e.g. '3 5 7' (missing heaps are empty)"
    top_option = "max_heap"
    #: the most heaps a table may have
    heaps_limit: ClassVar[int] = 64
    heaps: int

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.box = young.Box(self.heaps, self.top)
        self.key_space = self.box.size
        if self.key_space > 2**40:  # checked before the level sizes, whose table grows with the box
            raise UsageError(f"{self.name}: {self.heaps} heaps of at most {self.top} make too many positions")

    def read_sizes(self) -> None:
        """The number of heaps, then the largest heap."""
        self.heaps = self.int_param("heaps", 1, self.heaps_limit)
        super().read_sizes()

    def draw(self, position: str) -> Picture:
        """The heaps side by side, each counted underneath; a click on a token or above a heap resizes that
        heap, within the table."""
        sizes = self.parse_ints(position)
        sizes += [0] * (self.heaps - len(sizes))

        def resize(heap: int, size: int) -> str | None:
            resized = sorted(sizes[:heap] + [size] + sizes[heap + 1:])  # as the table writes it
            return " ".join(map(str, resized)) if size <= self.top else None

        return heaps(sizes, f"{self.title or self.name} {position}", resize=resize)

    def highlight(self, position: str, move: str, after: str) -> list[Box]:
        """The tokens taken from the heap that changed: the heaps are written in order of size, so the heap
        lowered may sit elsewhere after the move, and is found as what the two multisets do not share."""
        before, now = (Counter(self.parse_ints(p) + [0] * self.heaps) for p in (position, after))
        gone, came = list((before - now).elements()), list((now - before).elements())
        if len(gone) != 1 or len(came) != 1 or came[0] > gone[0]:
            return []
        sizes = self.parse_ints(position)
        heap = max(i for i, size in enumerate(sizes) if size == gone[0])
        return self.draw(position).boxes(("token", heap, t) for t in range(came[0], gone[0]))

    @property
    def size_name(self) -> str:
        return f"{self.heaps}x{self.top}"

    @property
    def bounds(self) -> str:
        return f"{self.heaps} heaps of at most {self.top} tokens"

    @property
    def max_level(self) -> int:
        return self.heaps * self.top

    def level_size(self, level: int) -> int:
        return int(self._sizes[level])

    @cached_property
    def _sizes(self) -> np.ndarray:
        return self.box.level_sizes()

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        return self.box.level_keys(level, start, stop)

    def level_of(self, key: int) -> int:
        return sum(self.box.lengths_of(key))

    def spell(self, key: int) -> str:
        return " ".join(map(str, reversed(self.box.lengths_of(key))))

    def levels_of(self, keys: np.ndarray) -> np.ndarray:
        return self.box.levels_of(keys)

    def kernel_args(self) -> tuple:
        scratch = np.empty(self.heaps, dtype=np.int64)
        return (self.heaps, self.top, self.box.binom, scratch, scratch.copy())

    def numbers(self, keys: np.ndarray) -> np.ndarray:
        return self.box.lengths(keys)[:, ::-1]

    def parse(self, text: str) -> int:
        return self.box.rank(self._sizes_down(text))

    def locate(self, text: str) -> tuple[int, int]:
        """The key and the level, the tokens left: both from the heap sizes read once."""
        sizes = self._sizes_down(text)
        return self.box.rank(sizes), sum(sizes)

    def _sizes_down(self, text: str) -> list[int]:
        """The heap sizes a text gives, in decreasing order, empty heaps past the table's count left out;
        checked."""
        sizes = sorted(self.parse_ints(text), reverse=True)
        if sizes and sizes[-1] < 0:
            raise self.position_error(text, "heap sizes cannot be negative")
        while len(sizes) > self.heaps and sizes[-1] == 0:
            sizes.pop()
        if len(sizes) > self.heaps or (sizes and sizes[0] > self.top):
            raise self.position_error(text, "outside the table")
        return sizes

    def parse_many(self, texts: Texts) -> np.ndarray:
        return self.locate_many(texts)[0]

    def locate_many(self, texts: Texts) -> tuple[np.ndarray, np.ndarray]:
        """Keys and levels, the tokens left, from the heap sizes read once."""
        return self.locate_spelt(texts)[:2]

    def locate_spelt(self, texts: Texts) -> tuple[np.ndarray, np.ndarray, bool]:
        return self.read_rest_spelt(texts, *self.box.read_many(texts, self._spelling, sort=True))

    def spelt_alike(self, texts: Texts) -> bool:
        return written_plainly(texts, *self._spelling)

    @property
    def _spelling(self) -> tuple[int, int, bool]:
        """Every heap written, empty ones too, the smallest first (``written_plainly``'s terms)."""
        return self.heaps, 1, True


# -- pairs ---------------------------------------------------------------------------------
# A pair a <= b of whole numbers is ranked b(b+1)/2 + a: by the larger number, then the
# smaller, densely (the pairs of numbers up to n fill 0..pair_count(n)-1). The same rank
# twice: compiled, for move generators, and in numpy, for batches without numba's start-up.
@njit(cache=True)
def pair_key(a, b):
    """The rank of the pair of a and b, in either order (compiled)."""
    if a > b:
        a, b = b, a
    return b * (b + 1) // 2 + a


def pair_keys(small: Any, large: Any) -> Any:
    """The ranks of pairs small <= large, numbers or numpy arrays alike."""
    return large * (large + 1) // 2 + small


def pair_count(top: int) -> int:
    """How many pairs of numbers 0..top there are: every rank is below it."""
    return (top + 1) * (top + 2) // 2


@njit(cache=True)
def pair_of_key(key):
    """The pair (smaller, larger) ranked ``key`` (compiled)."""
    b = int((np.sqrt(8.0 * key + 1.0) - 1.0) / 2.0)
    while b * (b + 1) // 2 > key:
        b -= 1
    while (b + 1) * (b + 2) // 2 <= key:
        b += 1
    return key - b * (b + 1) // 2, b


@njit(cache=True)
def pairs_of_keys(keys):
    """The pairs ranked ``keys``, as an (n, 2) array of (smaller, larger)."""
    out = np.empty((keys.shape[0], 2), dtype=np.int64)
    for i in range(keys.shape[0]):
        out[i, 0], out[i, 1] = pair_of_key(keys[i])
    return out
