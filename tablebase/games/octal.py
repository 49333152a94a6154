"""Octal games (take-and-break games on heaps) given by their code: a table of heap values, sums by XOR.

    tablebase build octal --code 0.137 --max 100000 --out tb
    tablebase lookup --db tb octal_0_137_n100000 "5 3"       # or "5 + 3": a sum of heaps, by XOR

A position is one heap (its size is its key); a sum of heaps is looked up as
its parts, and its Grundy value is the XOR of theirs (``kinds/sum_lookups.py``).
The code's digits say how many tokens a move takes and how many heaps it
leaves (``octal_code.py``, docs/octal.md; ``move_code``).
"""

from __future__ import annotations

import itertools
import re
from functools import cached_property
from typing import Any, ClassVar

from tablebase.errors import PositionError, UsageError
from tablebase.games.base import MISERE, Option
from tablebase.games.capabilities import SumMoves
from tablebase.games.drawing import Picture, heaps
from tablebase.games.heaps import SingleHeap
from tablebase.games.octal_code import (
    MISERE_MAX_HEAPS,
    OctalCode,
    OctalCodeError,
    check_size,
    parse_code,
    values_key,
)
from tablebase.lazy import np

BLOCK_BITS = 16
BLOCK = 1 << BLOCK_BITS  # heaps a level: a level is solved whole, in order of heaps
THREE = 1 << 62  # the bit of codes of moves that leave three heaps
TAKE_BITS = 7  # k <= 64 < 128
SIDE_BITS = 21  # a and b of a move to three heaps (three-heap codes stop at 2,000,000 heaps)
MAX_CODES = 65_536  # codes one job entry may stand for
MAX_LISTED_MOVES = 2_000_000  # moves a lookup lists at most; a bigger heap is read without its moves
#: the heaps 0..M whose misère quotient a table built with ``--misere`` keeps, unless ``--misere-heaps`` says:
#: the quotients of the codes of docs/misere.md stay within a few seconds to here (Dawson's Kayles' to heap 30
#: takes about forty)
MISERE_HEAPS = 20
#: the genus symbols a table built with ``--misere`` keeps go no further than this heap (``genus_heaps``)
GENUS_HEAPS = 20


def move_code(k: int, a: int = 0, b: int = 0) -> int:
    """The code of taking k tokens and leaving apart a heap of a (and of b).

    A move's code names it whatever the heap: ``k`` (0..64) takes k tokens and leaves one heap or none,
    ``-k``; ``a * 128 + k`` (a >= 1) takes k and breaks the rest into a heap of a and a larger or equal
    one, ``-k/a``; with the bit ``THREE`` set, ``a`` and ``b`` (a <= b, 21 bits each) and k: the rest broken
    into heaps a, b and a third at least b, ``-k/a/b``. Codes sort by the smallest heap left apart, then by
    tokens taken: the best move of a won heap is the first of that order to a sum of value 0."""
    if b:
        return THREE | (a << (SIDE_BITS + TAKE_BITS)) | (b << TAKE_BITS) | k
    return (a << TAKE_BITS) | k


def describe_move(code: int) -> tuple[int, int, int]:
    """(k, a, b) of a move code (0 where a move leaves no heap apart)."""
    k = code & ((1 << TAKE_BITS) - 1)
    if code & THREE:
        rest = (code & ~THREE) >> TAKE_BITS
        return k, rest >> SIDE_BITS, rest & ((1 << SIDE_BITS) - 1)
    return k, code >> TAKE_BITS, 0


NAMED_SETS = {f"all-{d}-digit": "0." + "[0-7]" * d for d in (1, 2, 3, 4)}
_CLASS = re.compile(r"\[([^\]]*)\]|(.)")


def expand_codes(pattern: str) -> list[str]:
    """The codes a pattern stands for, in canonical form, each once, in order: a code whose digits may be
    classes, ``0.[0-7][0-7][0-7]`` or ``0.[137]6``; several patterns separated by commas; or a named set,
    ``all-3-digit`` (``0.[0-7][0-7][0-7]``: every octal code of at most three digits; codes ending in 0
    are the same game as the shorter one and come once). A bad pattern or code is one line."""
    found: dict[str, None] = {}
    for part in (p.strip() for p in str(pattern).split(",")):
        part = NAMED_SETS.get(part.lower(), part)
        choices: list[str] = []
        for cls, char in _CLASS.findall(part.lower()):
            if char:
                choices.append(char)
                continue
            digits = re.sub(r"([0-9a-f])-([0-9a-f])", lambda m: "".join(
                f"{d:x}" for d in range(int(m.group(1), 16), int(m.group(2), 16) + 1)), cls)
            if not digits or not re.fullmatch(r"[0-9a-f]+", digits):
                raise UsageError(f"octal: codes {pattern!r}: a class [{cls}] holds digits or ranges of them")
            choices.append(digits)
        if not choices:
            raise UsageError(f"octal: codes {pattern!r}: an empty pattern")
        for digits in itertools.product(*choices):
            try:
                found.setdefault(parse_code("".join(digits)).text, None)
            except OctalCodeError as e:
                raise UsageError(f"octal: codes {pattern!r}: {e}") from None
    if len(found) > MAX_CODES:
        raise UsageError(f"octal: codes {pattern!r} stands for {len(found):,} codes, at most {MAX_CODES:,}")
    return list(found)


def misere_heaps(params: dict[str, Any]) -> int | None:
    """The heaps 0..M whose misère quotient an octal table keeps, by its options: M = the least of its largest
    heap and ``misere_heaps`` (``MISERE_HEAPS`` if not given); None for a table built without ``--misere``."""
    if not params.get(MISERE):
        return None
    return min(int(params["max"]), int(params.get("misere_heaps", MISERE_HEAPS)))


def genus_heaps(params: dict[str, Any]) -> int | None:
    """The heaps 0..G whose genus symbols an octal table keeps in its ``genus`` column: G = the least of its
    quotient's heaps (``misere_heaps``) and ``GENUS_HEAPS``, since each symbol is found by playing sums out;
    None for a table built without ``--misere``."""
    heaps = misere_heaps(params)
    return None if heaps is None else min(heaps, GENUS_HEAPS)


class Octal(SingleHeap):
    """An octal game's table of heap values. The values are computed in order of heaps by the compiled
    sparse-space solver (``solve/octal_table.py`` over ``solve/octal.py``), not move by move, since a heap
    has about n/2 moves: so a level is a block of ``BLOCK`` heaps, solved whole (moves within a block reach
    smaller heaps of the same block)."""

    name = "octal"
    title = "Octal"
    summary = "octal games: take-and-break heaps given by their code (0.137, .16, 4.07, 0.f, grundy); sums by XOR"
    notation = "a heap size, e.g. '17'; a sum of heaps '17 5 3' or '17 + 5 + 3'"
    move_notation = ("'-k': take k tokens (leaving one heap or none); '-k/a': take k and break the rest into "
                     "a heap of a and a larger or equal one; '-k/a/b': into heaps a <= b and a third")
    options = (
        Option("code", str, "the game's code: 0.137, .16, 4.07, hexadecimal 0.f, kayles, grundy"),
        Option("max", int, "the largest heap"),
        Option("misere-heaps", int, f"with --misere: the misère quotient of heaps 0..M is kept beside the table "
               f"(default {MISERE_HEAPS}, at most the largest heap; docs/misere.md)", required=False),
    )
    top_limit: ClassVar[int] = 4_000_000_000
    sums: ClassVar[bool] = True
    misere_quotient: ClassVar[bool] = True
    #: the heaps' values are solved in order by the octal solver (kinds/impartial.py asks for it)
    heap_sequence: ClassVar[bool] = True

    @classmethod
    def variants(cls, params: dict[str, Any]) -> list[dict[str, Any]]:
        """In a job file, ``codes = "0.[0-7][0-7][0-7]"`` (``expand_codes``) stands for a table per code."""
        if "codes" not in params:
            return [params]
        if "code" in params:
            raise UsageError("octal: give 'code' or 'codes', not both")
        rest = {k: v for k, v in params.items() if k != "codes"}
        return [{**rest, "code": code} for code in expand_codes(params["codes"])]

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        try:
            self.code: OctalCode = parse_code(self.params["code"])
            check_size(self.code, self.top)
        except OctalCodeError as e:
            raise UsageError(f"octal: {e}") from None
        self.params["code"] = self.code.text
        if "misere_heaps" in self.params:
            if not self.params.get(MISERE):
                raise UsageError("octal: --misere-heaps is for a table built with --misere")
            self.int_param("misere_heaps", 0, MISERE_MAX_HEAPS)
        self.rule = self.code.text
        # A bound, for the engine's buffers and types: the moves of the largest heap.
        self.max_moves = len(self.code.whole) + len(self.code.take) + len(self.code.split2) * (self.top // 2 + 1)
        if self.code.split3:
            self.max_moves += len(self.code.split3) * (self.top // 3 + 1) ** 2

    @cached_property
    def work_group(self) -> str:  # type: ignore[override]
        """Codes with the same heap values (``values_key``): one is solved, the others take its values (found
        once: a job asks it of every table, a solver of its own)."""
        return values_key(self.code)

    def draw(self, position: str) -> Picture:
        """The heaps of a heap or of a sum ("5 + 3"), side by side; a click resizes a heap, within the table."""
        sizes = [int(t) for t in position.replace("+", " ").replace(",", " ").split() if t.isdigit()] or [0]

        def resize(heap: int, size: int) -> str | None:
            return " + ".join(map(str, sizes[:heap] + [size] + sizes[heap + 1:])) if size <= self.top else None

        return heaps(sizes, f"Octal {self.code} {position}", resize=resize)

    # -- levels: blocks of heaps ---------------------------------------------------------
    @property
    def max_level(self) -> int:
        return self.top >> BLOCK_BITS

    def level_size(self, level: int) -> int:
        return max(0, min(BLOCK, self.top + 1 - (level << BLOCK_BITS)))

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        first = level << BLOCK_BITS
        return np.arange(first + start, first + stop, dtype=np.int64)

    def level_of(self, key: int) -> int:
        return int(key) >> BLOCK_BITS

    def levels_of(self, keys: np.ndarray) -> np.ndarray:
        return np.asarray(keys, dtype=np.int64) >> BLOCK_BITS

    def child_levels(self, level: int) -> range:
        """Moves reach smaller heaps: of this block and every block below."""
        return range(level + 1)

    @property
    def max_remoteness(self) -> int:
        return self.top

    @property
    def value_dtype(self) -> type:
        """Grundy values of heaps stay small (.16: 23 up to 10^8; Grundy's game 231 up to 2^21), but
        nothing bounds them below the number of moves: one type for every table, 32 bits."""
        return np.uint32

    # -- moves -----------------------------------------------------------------------------
    def move_name(self, move: int) -> str:
        k, a, b = describe_move(int(move))
        return f"-{k}" + (f"/{a}" if a else "") + (f"/{b}" if b else "")

    def sum_moves(self, keys: np.ndarray) -> SumMoves:
        """Every move of each heap, each to the heaps it leaves (for lookups and check-game; the
        table itself is solved by the octal solver, not from these)."""
        counts = [self._move_count(int(n)) for n in keys]
        if sum(counts) > MAX_LISTED_MOVES:
            n = int(keys[int(np.argmax(counts))])
            raise PositionError(f"octal: heap {n} has {max(counts):,} moves, more than a lookup lists "
                                f"({MAX_LISTED_MOVES:,}); tablebase query reads its row")
        offsets, codes, starts, parts = [0], [], [0], []
        for n in np.asarray(keys, dtype=np.int64).tolist():
            for code, left in self._moves(n):
                codes.append(code)
                parts += left
                starts.append(len(parts))
            offsets.append(len(codes))
        as64 = [np.array(x, dtype=np.int64) for x in (offsets, codes, starts, parts)]
        return SumMoves(*as64, np.zeros(len(parts), dtype=np.bool_))

    def _move_count(self, n: int) -> int:
        c = self.code
        count = sum(k == n for k in c.whole) + sum(k < n for k in c.take)
        count += sum(max(0, n - k) // 2 for k in c.split2)
        return count + sum(max(0, n - k) ** 2 for k in c.split3)  # a bound

    def _moves(self, n: int) -> list[tuple[int, list[int]]]:
        """(code, heaps left) of every move of a heap of n, by the code's digits."""
        c, moves = self.code, []
        moves += [(move_code(k), []) for k in c.whole if k == n]
        moves += [(move_code(k), [n - k]) for k in c.take if k < n]
        for k in c.split2:
            rest = n - k
            moves += [(move_code(k, a), [a, rest - a]) for a in range(1, rest // 2 + 1)
                      if not (c.distinct and 2 * a == rest)]
        for k in c.split3:
            rest = n - k
            moves += [(move_code(k, a, b), [a, b, rest - a - b]) for a in range(1, rest // 3 + 1)
                      for b in range(a, (rest - a) // 2 + 1)]
        return moves

    def parse_parts(self, text: str) -> list[int]:
        """The heaps of a sum written with spaces or commas ("5 3"); empty heaps are left out."""
        heaps = self.parse_ints(text)
        for n in heaps:
            if not 0 <= n <= self.top:
                raise self.position_error(text, f"heap {n} is outside the table")
        return [n for n in heaps if n] or [0]
