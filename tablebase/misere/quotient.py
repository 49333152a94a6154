"""The misère quotient of an octal game's heaps 0..N, grown heap by heap.

Two sums of heaps G and H are indistinguishable when G + X and H + X have the same misère outcome for
every sum X of the same heaps; the classes form a commutative monoid, the misère quotient, and the
classes of P-positions its P-portion (Plambeck, INTEGERS 5 (2005) G05; Plambeck and Siegel, JCTA 115
(2008)). ``misere_quotient`` grows it heap by heap, each candidate proved by a finite check (``check.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from tablebase.errors import OverLimit, UsageError
from tablebase.games.octal_code import MISERE_MAX_HEAPS, OctalCode, parse_code
from tablebase.misere.check import SearchTooLarge, first_failure, mark, transitions
from tablebase.misere.monoid import Cyclic, Product, Table, TooLarge, closure, reduce_table

DEFAULT_MAX_ORDER = 2000  # elements of a quotient
CANDIDATE_FACTOR = 10  # a candidate (a product not yet reduced) may hold this many times more
REDUCED_FACTOR = 2  # and, reduced, this many times more (its table holds the square)
DEFAULT_MAX_HELD = 2_000_000  # elements a check's (element, transition set) pairs may hold, and so its memory
_MAX_ROUNDS = 200  # candidates tried for one heap


class QuotientTooLarge(OverLimit):
    """The quotient, or every candidate for it, passed the bound on its order (a ValueError too)."""


def heap_options(code: OctalCode, n: int) -> list[tuple[int, ...]]:
    """Every move of a heap of n, as the sorted tuple of the nonempty heaps it leaves (each once)."""
    return code.options(n)


@dataclass(frozen=True)
class MisereQuotient:
    """The misère quotient of the sums of heaps 0..``heaps`` of an octal game.

    ``mul[x][y]``: the product of elements x and y (0 is the identity, the class of the empty sum);
    ``p_portion``: the elements whose sums are P-positions (the player to move loses, and in misère play
    the player who cannot move wins); ``heap_element[n]``: heap n's element; ``words[x]``: a shortest sum
    of heaps in x's class; ``changed_at``: the heaps at which the quotient had to grow (heap n was no
    element of the quotient of heaps 0..n-1), so that the quotient is the same from the last of them
    through ``heaps``.
    """

    code: str
    heaps: int
    mul: tuple[tuple[int, ...], ...]
    p_portion: frozenset[int]
    heap_element: tuple[int, ...]
    words: tuple[tuple[int, ...], ...]
    changed_at: tuple[int, ...]
    options: tuple[tuple[tuple[int, ...], ...], ...] = field(repr=False)

    @property
    def order(self) -> int:
        return len(self.mul)

    @property
    def stable_from(self) -> int:
        """The heap from which the quotient has not grown (through ``heaps``): an observation, not a proof."""
        return self.changed_at[-1] if self.changed_at else 0

    def element(self, position: tuple[int, ...] | list[int]) -> int:
        """The element of a sum of heaps: the product of its heaps' elements."""
        x = 0
        mul, images = self.mul, self.heap_element
        for h in position:
            x = mul[x][images[self._heap(h)]]
        return x

    def outcome(self, position: tuple[int, ...] | list[int]) -> str:
        """``P`` when the player to move loses the sum in misère play, else ``N``."""
        return "P" if self.element(position) in self.p_portion else "N"

    def winning_move(self, position: tuple[int, ...] | list[int]) -> tuple[int, tuple[int, ...]] | None:
        """A move to a P-position: (the place in ``position`` of the heap moved, the heaps it leaves);
        None when the sum is a P-position. The rest of the sum's element is found once for each place."""
        heaps = [self._heap(h) for h in position]
        mul, images, p = self.mul, self.heap_element, self.p_portion
        before = [0]
        for h in heaps:
            before.append(mul[before[-1]][images[h]])
        after = 0
        for i in range(len(heaps) - 1, -1, -1):
            rest = mul[before[i]][after]
            for left in self.options[heaps[i]]:
                y = rest
                for k in left:
                    y = mul[y][images[k]]
                if y in p:
                    return i, left
            after = mul[after][images[heaps[i]]]
        return None

    def _heap(self, h: int) -> int:
        if not isinstance(h, int) or isinstance(h, bool) or not 0 <= h <= self.heaps:
            raise UsageError(f"heap {h!r}: this quotient holds heaps 0..{self.heaps}")
        return h

    def word(self, x: int) -> str:
        """An element written as a shortest sum of heaps in its class, ``0`` for the identity."""
        return "+".join(str(h) for h in self.words[x]) or "0"


class _Stuck(Exception):
    """No candidate found for a heap within the bounds; the message says which bound."""


@dataclass(frozen=True)
class _Bounds:
    order: int
    candidate: int
    reduced: int
    held: int


@dataclass
class _State:
    table: Table
    p: set[int]
    images: list[int]


def misere_quotient(code: str | OctalCode, heaps: int, max_order: int = DEFAULT_MAX_ORDER,
                    max_held: int = DEFAULT_MAX_HELD) -> MisereQuotient:
    """The misère quotient of the sums of heaps 0..``heaps`` of an octal game.

    ``misere_quotient(code, n)`` follows the outline of Siegel's MisereSolver: the quotient of heaps
    0..k-1 is known, and heap k is first tried as each of its elements (a conservative extension); when
    none fits, the candidate is the known quotient times a free cyclic monoid for heap k, and, where a
    position still fails, times free cyclic monoids for the heaps of that position too. Each candidate's
    P-portion is marked from the positions themselves and the candidate is checked against every
    reachable (element, transition set) pair (``check.py``), which proves its outcomes right; the
    candidate is then reduced to the quotient. Whether the quotient of every heap is finite is not
    decided here: the result says at which heap the quotient last changed (stable from there through N,
    as observed).

    Raises ``QuotientTooLarge`` (an ``OverLimit``), saying at which heap, when the quotient is larger than
    ``max_order`` elements, when no candidate of at most ``CANDIDATE_FACTOR * max_order`` elements gets
    the new heap right, or when a check's pairs (element, transition set) hold more than ``max_held``
    elements;
    ``OctalCodeError`` for a code that names no game; ``UsageError`` for a heap bound out of range.
    """
    quotient, refused = grown_quotient(code, heaps, max_order, max_held)
    if refused is not None:
        raise QuotientTooLarge(refused)
    return quotient


def grown_quotient(code: str | OctalCode, heaps: int, max_order: int = DEFAULT_MAX_ORDER,
                   max_held: int = DEFAULT_MAX_HELD) -> tuple[MisereQuotient, str | None]:
    """``misere_quotient`` grown as far as its bounds allow: (the quotient of heaps 0..n, None) where it reaches
    ``heaps``, else (the quotient of the heaps before the one refused, the one line that says why), so that a
    table keeps what was found. ``OctalCodeError`` and ``UsageError`` as ``misere_quotient``."""
    rules = parse_code(code)
    if not isinstance(heaps, int) or isinstance(heaps, bool) or not 0 <= heaps <= MISERE_MAX_HEAPS:
        raise UsageError(f"heaps {heaps!r}: give a bound from 0 to {MISERE_MAX_HEAPS}")
    options = [heap_options(rules, n) for n in range(heaps + 1)]
    state = _State(Table([[0]]), set(), [0])
    changed: list[int] = []
    bounds = _Bounds(max_order, max_order * CANDIDATE_FACTOR, max_order * REDUCED_FACTOR, max_held)
    for n in range(1, heaps + 1):
        # _grow replaces the table and the P-portion where it changes them, and appends heap n's element
        before = _State(state.table, state.p, list(state.images))
        try:
            grew = _grow(state, options, n, bounds)
        except _Stuck as e:
            return _quotient(rules, before, options[:n], changed), (
                f"octal {rules}: {e.args[0]} at heap {n} (the quotient of heaps 0..{n - 1} has "
                f"{before.table.order} elements); give a smaller --heaps")
        if state.table.order > max_order:
            return _quotient(rules, before, options[:n], changed), (
                f"octal {rules}: the misère quotient of heaps 0..{n} is larger than {max_order} elements "
                f"({state.table.order})")
        if grew:
            changed.append(n)
    return _quotient(rules, state, options, changed), None


def _quotient(rules: OctalCode, state: _State, options: list[list[tuple[int, ...]]],
              changed: list[int]) -> MisereQuotient:
    """The quotient ``state`` holds, its elements numbered by their shortest sums (fewest heaps, then smallest
    heaps), the identity first."""
    words = _shortest_words(state, options)
    order = sorted(range(state.table.order), key=lambda x: (len(words[x]), words[x]))
    label = {x: i for i, x in enumerate(order)}
    mul = tuple(tuple(label[state.table.mul[x][y]] for y in order) for x in order)
    return MisereQuotient(
        code=rules.text, heaps=len(options) - 1, mul=mul, p_portion=frozenset(label[x] for x in state.p),
        heap_element=tuple(label[x] for x in state.images), words=tuple(words[x] for x in order),
        changed_at=tuple(changed), options=tuple(tuple(o) for o in options))


def _grow(state: _State, options: list[list[tuple[int, ...]]], n: int, bounds: _Bounds) -> bool:
    """Add heap n to ``state``; True when the quotient had to grow (heap n is no element of the old one)."""
    mul = state.table.mul

    def times(x: int, y: int) -> int:
        return mul[x][y]

    if not options[n]:  # no move: the empty game
        state.images.append(0)
        return False
    movers = [h for h in range(n, 0, -1) if options[h]]
    old = list(state.images)
    moves_old = [transitions(times, 0, old, options, h) for h in range(n)]
    mine = transitions(times, 0, old, options, n)
    lost = not (mine & state.p)  # heap n alone: P when every option is N
    _, first_t = mark(times, 0, old, moves_old, [h for h in movers if h < n], keep_sets=True)
    for x in range(state.table.order):
        if (x in state.p) != lost or not _fits_first_positions(times, state.p, x, mine, first_t):
            continue
        images = old + [x]
        moves = moves_old + [mine]
        if _failure(times, images, moves, movers, {y: y in state.p for y in range(len(mul))}, bounds) is None:
            state.images.append(x)
            return False
    try:
        trial = _candidate(state.table, old + [0], {n: Cyclic(2, 2)}, options, movers, bounds)
    except TooLarge:
        raise _Stuck(f"the first candidate has more than {bounds.candidate} elements ({bounds.reduced} "
                     "reduced)") from None
    for _ in range(_MAX_ROUNDS):
        failure = _failure(trial.times, trial.images, trial.moves, movers, trial.status, bounds)
        if failure is None:
            state.table, state.p, state.images = trial.table, trial.p, trial.images
            return True
        trial = _recalibrate(trial, failure, options, movers, bounds)
    raise _Stuck(f"no candidate was right after {_MAX_ROUNDS} tries")


def _failure(times, images, moves, movers, status, bounds: _Bounds) -> dict[int, int] | None:
    try:
        return first_failure(times, 0, images, moves, movers, status, bounds.held)
    except SearchTooLarge:
        raise _Stuck(f"checking a candidate held more than {bounds.held:,} elements in its (element, "
                     "transition set) pairs") from None


@dataclass
class _Trial:
    """A reduced candidate: its table, P-portion, heaps' elements, and what the checks need of it."""

    table: Table
    p: set[int]
    images: list[int]
    moves: list[frozenset[int]]

    def times(self, x: int, y: int) -> int:
        return self.table.mul[x][y]

    @property
    def status(self) -> dict[int, bool]:
        return {x: x in self.p for x in range(self.table.order)}

    def element(self, word: dict[int, int]) -> int:
        x = 0
        for h, k in word.items():
            for _ in range(k):
                x = self.table.mul[x][self.images[h]]
        return x


def _candidate(base: Table, images: list[int], free: dict[int, Cyclic], options: list[list[tuple[int, ...]]],
               movers: list[int], bounds: _Bounds) -> _Trial:
    """``base`` times a free cyclic monoid for each heap of ``free`` (the other heaps keep their elements of
    ``base``), its P-portion marked from the positions, reduced."""
    product = Product(base, list(free.values()), bounds.candidate)
    places = {h: i + 1 for i, h in enumerate(free)}
    gens = [product.generator(places[h]) if h in places else product.generator(0, images[h])
            for h in range(len(images))]
    product.hot = set(gens)
    moves = [transitions(product.times, product.identity, gens, options, h) for h in range(len(images))]
    status, _ = mark(product.times, product.identity, gens, moves, movers)
    used = [gens[h] for h in movers]
    elements = closure(product.times, product.identity, used)
    table, p, where = reduce_table(product.times, elements, used, {x for x in elements if status.get(x, False)},
                                   bounds.reduced)
    images = [where[gens[h]] if h in movers else 0 for h in range(len(images))]
    mul = table.mul
    return _Trial(table, p, images, [transitions(lambda x, y: mul[x][y], 0, images, options, h)
                                     for h in range(len(images))])


def _recalibrate(trial: _Trial, failure: dict[int, int], options: list[list[tuple[int, ...]]],
                 movers: list[int], bounds: _Bounds) -> _Trial:
    """A new candidate that gets the lex-least failure right: some of its heaps made free (one heap, then
    two, ...), each a cyclic monoid long enough to count its copies in the failure."""
    should_be_p = trial.element(failure) not in trial.p
    heaps = sorted(failure)
    for size in range(1, len(heaps) + 1):
        for chosen in combinations(heaps, size):
            free = {h: Cyclic(max(1, failure[h] - 1, _index(trial.table, trial.images[h])), 2) for h in chosen}
            images = [0 if h in free else trial.images[h] for h in range(len(trial.images))]
            try:
                new = _candidate(trial.table, images, free, options, movers, bounds)
            except TooLarge:  # too many free heaps at once: another choice may do
                continue
            if (new.element(failure) in new.p) == should_be_p:
                return new
    raise _Stuck(f"no candidate of at most {bounds.candidate} elements ({bounds.reduced} reduced) gets the "
                 f"position {_text(failure)} right")


def _text(word: dict[int, int]) -> str:
    return "+".join(str(h) for h in sorted(word, reverse=True) for _ in range(word[h]))


def _index(table: Table, x: int) -> int:
    """The least i with x^(i+k) = x^i for some k >= 1: where the powers of x start to repeat."""
    seen: dict[int, int] = {}
    y, i = 0, 0
    while y not in seen:
        seen[y] = i
        y, i = table.mul[y][x], i + 1
    return seen[y]


def _fits_first_positions(times, p: set[int], x: int, mine: frozenset[int], first_t: dict[int, frozenset[int]]) -> bool:
    """Heap n as x, added to the lex-least position of each element y, must get the misère rule right: a
    quick test before the whole check."""
    for y, t in first_t.items():
        moves = {times(z, y) for z in mine} | {times(x, z) for z in t}
        if (times(x, y) in p) == any(z in p for z in moves):
            return False
    return True


def _shortest_words(state: _State, options: list[list[tuple[int, ...]]]) -> list[tuple[int, ...]]:
    """For each element, a sum with the fewest heaps that reaches it (smaller heaps first at a tie)."""
    words: dict[int, tuple[int, ...]] = {0: ()}
    frontier = [0]
    heaps = [h for h in range(len(state.images)) if options[h]]
    while frontier:
        following = []
        for x in frontier:
            for h in heaps:
                y = state.table.mul[x][state.images[h]]
                if y not in words:
                    words[y] = tuple(sorted(words[x] + (h,), reverse=True))
                    following.append(y)
        frontier = following
    return [words[x] for x in range(state.table.order)]
