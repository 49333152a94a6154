"""The rules of a take-and-break game on heaps, read from its code (Winning Ways, ch. 4).

A code ``d0.d1d2d3...`` has one digit per number of tokens removed, saying in
which ways they may be taken from a heap (``OctalCode``). Kayles is 0.77,
Dawson's Kayles 0.07, Dawson's chess 0.137. Grundy's game (split a heap into
two unequal heaps) is not such a code; it is named ``grundy``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tablebase.errors import UsageError
from tablebase.lazy import np, psutil

MAX_DIGITS = 64  # removals of up to 64 tokens: longer codes are typos, not games
MAX_THREE_HEAPS = 2_000_000  # three-heap splits keep a pair set per heap and run the plain loop
#: the most heaps a misère quotient is grown to (``tablebase.misere``; an octal table's ``--misere-heaps``): its
#: marking recurses once a heap, and beyond a few hundred heaps the search is hopeless anyway
MISERE_MAX_HEAPS = 400

#: games known by name, and the code each stands for (Grundy's game has none)
NAMED = {
    "kayles": "0.77",
    "dawsons-kayles": "0.07",
    "dawsons-chess": "0.137",
}
GRUNDY = "grundy"

_CODE = re.compile(r"^([0-9a-f]?)\.([0-9a-f]*)$")


class OctalCodeError(UsageError):
    """A code that names no take-and-break game; the message is one line."""


@dataclass(frozen=True)
class OctalCode:
    """A parsed code: for each kind of move, the numbers of tokens it removes.

    Digit d_k of ``d0.d1d2d3...`` says in which ways k tokens may be taken from a heap. Bit 1: the heap may
    be taken whole (only when it has exactly k tokens); bit 2: one nonempty heap may be left; bit 4: two
    nonempty heaps; bit 8 (hexadecimal digits 8-f): three. The digit before the point is for k = 0,
    breaking a heap without taking anything, so it may hold only bits 4 and 8 (``4.07``).

    ``whole``: k such that a heap of exactly k may be taken whole; ``take``: k such
    that k tokens may be taken leaving one nonempty heap; ``split2`` and ``split3``:
    k such that k tokens may be taken and the rest broken into two (three) nonempty
    heaps. ``distinct``: the two heaps of a split must differ in size (Grundy's game).
    """

    text: str
    whole: tuple[int, ...] = ()
    take: tuple[int, ...] = ()
    split2: tuple[int, ...] = ()
    split3: tuple[int, ...] = ()
    distinct: bool = False

    @property
    def largest_removal(self) -> int:
        """t: the most tokens a move removes (0 for Grundy's game)."""
        return max(self.whole + self.take + self.split2 + self.split3, default=0)

    @property
    def most_heaps(self) -> int:
        """The most heaps a move leaves (1, 2 or 3); 1 for a code without breaking moves."""
        return 3 if self.split3 else 2 if self.split2 else 1

    def options(self, n: int, whole: tuple[int, ...] | list[int] | None = None) -> list[tuple[int, ...]]:
        """Every move of a heap of ``n``, as the sorted tuple of the nonempty heaps it leaves, each once, in
        plain Python (the definitions, for the few heaps a check needs); ``whole`` in place of the code's own."""
        found: set[tuple[int, ...]] = set()
        if n in (self.whole if whole is None else whole):
            found.add(())
        found.update((n - k,) for k in self.take if k < n)
        for k in self.split2:
            rest = n - k
            found.update((a, rest - a) for a in range(1, rest // 2 + 1) if not (self.distinct and 2 * a == rest))
        for k in self.split3:
            rest = n - k
            found.update((a, b, rest - a - b) for a in range(1, rest // 3 + 1) for b in range(a, (rest - a) // 2 + 1))
        return sorted(found)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The removals of each kind as int64 arrays, for the compiled loops."""
        return tuple(np.array(ks, dtype=np.int64) for ks in (self.whole, self.take, self.split2, self.split3))

    def __str__(self) -> str:
        return self.text


def parse_code(text: str | OctalCode) -> OctalCode:
    """Read a code: ``0.137``, ``.137``, ``4.07``, hexadecimal digits (``0.f``), ``grundy``,
    or a name in ``NAMED``. Raises ``OctalCodeError`` with a one-line reason."""
    if isinstance(text, OctalCode):
        return text
    if not isinstance(text, str):
        raise OctalCodeError(f"an octal code is text such as '0.137', not {type(text).__name__}")
    clean = text.strip().lower()
    if clean == GRUNDY:
        return OctalCode(text=GRUNDY, split2=(0,), distinct=True)
    clean = NAMED.get(clean, clean)
    found = _CODE.match(clean)
    if not found or not (found.group(1) or found.group(2)):
        raise OctalCodeError(
            f"octal code {text!r}: expected digits after a point, such as '0.137', '.77', '4.07' or 'grundy'"
        )
    lead, digits = found.group(1) or "0", found.group(2).rstrip("0")
    if len(digits) > MAX_DIGITS:
        raise OctalCodeError(f"octal code {text!r}: {len(digits)} digits after the point, at most {MAX_DIGITS}")
    d0 = int(lead, 16)
    if d0 & 3:
        raise OctalCodeError(
            f"octal code {text!r}: the digit before the point may only break a heap (4, 8 or c), "
            "since taking no token must not leave the heap as it was"
        )
    ways: dict[int, list[int]] = {1: [], 2: [], 4: [], 8: []}
    for k, digit in enumerate([d0] + [int(c, 16) for c in digits]):
        for bit, ks in ways.items():
            if digit & bit:
                ks.append(k)
    canonical = (lead if d0 else "0") + "." + (digits or "0")
    return OctalCode(
        text=canonical,
        whole=tuple(ways[1]),
        take=tuple(ways[2]),
        split2=tuple(ways[4]),
        split3=tuple(ways[8]),
    )


def values_key(code: OctalCode) -> str:
    """Codes with the same key have the same value at every heap.

    Taking a heap of exactly k whole is a move of heap k alone: if dropping
    it leaves G(k) as it was, no other heap can tell, and every value stays
    (Winning Ways' codes .224, .225, .234 and .235 are one sequence). The key
    is the code less every such move, k by k from the smallest, each G(k)
    found by the definition on the heaps below k.
    """
    whole = list(code.whole)
    for k in sorted(code.whole):
        without = [w for w in whole if w != k]
        if _first_values(code, whole, k)[k] == _first_values(code, without, k)[k]:
            whole = without
    return f"whole {whole} take {list(code.take)} two {list(code.split2)} three {list(code.split3)}" + (
        " distinct" if code.distinct else "")


def _first_values(code: OctalCode, whole: list[int], n: int) -> list[int]:
    """G(0..n) by the definition (the mex of every move's value), with ``whole`` for the code's own: for the
    few heaps a code's digits reach (at most 64)."""
    values: list[int] = []
    for heap in range(n + 1):
        seen = set()
        for left in code.options(heap, whole):
            value = 0
            for h in left:
                value ^= values[h]
            seen.add(value)
        values.append(min(set(range(len(seen) + 1)) - seen))
    return values


def check_size(code: OctalCode, n_max: int) -> None:
    """OctalCodeError unless G(0..n_max) of this code fits the loops and the machine's memory."""
    if code.split3 and n_max > MAX_THREE_HEAPS:
        raise OctalCodeError(
            f"octal code {code}: splits into three heaps run the plain loop, up to {MAX_THREE_HEAPS:,} heaps"
        )
    if 2 * (n_max + 1) > psutil.virtual_memory().total:
        raise OctalCodeError(f"n_max: {n_max + 1:,} values do not fit in this machine's memory")
