"""Misère quotients of octal games against oracles that share no code with them.

The brute force (``misere_oracles.py``: the moves read again from the code's digits, the misère rule
by recursion) plays every sum of heaps of at most 20 tokens, position by position, and checks each
winning move the quotient gives; Nim against Bouton's misère rule; and figures published by Plambeck
and Siegel, with their sources at each test.
"""

from __future__ import annotations

import pytest
from misere_oracles import Misere, bouton_misere, sums
from octal_oracles import oracle_moves

from tablebase.errors import OverLimit, UsageError
from tablebase.games.octal_code import OctalCodeError
from tablebase.misere import QuotientTooLarge, misere_quotient
from tablebase.misere.quotient import grown_quotient

# Kayles, Dawson's Kayles, 0.75, 0.31, Dawson's chess, Guiles (0.15), Daisies (4.7: breaking a heap in
# two without taking), and games of Nim's family (0.3 She-loves-me, 0.33 and 0.333 subtraction games).
CODES = ["0.77", "0.07", "0.75", "0.31", "0.137", "0.15", "4.7", "0.3", "0.33", "0.333", "0.52", "0.12"]
TOTAL = 20


@pytest.mark.parametrize("code", CODES)
def test_every_sum_of_twenty_tokens_matches_the_brute_force(code):
    """Heaps 0..20: each sum's outcome from the quotient is the brute force's, and from each N-position
    with a move the quotient's winning move is a legal move to a position the brute force calls P."""
    q = misere_quotient(code, TOTAL)
    brute = Misere(code)
    wrong, bad_moves = [], []
    for position in sums(TOTAL, TOTAL):
        want = brute.outcome(position)
        if q.outcome(position) != want:
            wrong.append(position)
            continue
        move = q.winning_move(position)
        if want == "P" or not brute.moves(position):
            if move is not None:
                bad_moves.append((position, move))
            continue
        i, left = move
        legal = sorted(tuple(sorted(x)) for x in oracle_moves(code, position[i]))
        child = position[:i] + position[i + 1:] + left
        if tuple(sorted(left)) not in legal or brute.outcome(child) != "P":
            bad_moves.append((position, move))
    assert wrong == [] and bad_moves == []


def test_kayles_single_heaps_to_40_and_every_sum_of_32_tokens():
    """Kayles' quotient grows at heaps 25 and 27 and then not to heap 80: each heap to 40 alone (the brute
    force plays every position below it) and every sum of at most 32 tokens."""
    q, brute = misere_quotient("0.77", 40), Misere("0.77")
    assert [n for n in range(41) if q.outcome((n,)) != brute.outcome((n,))] == []
    assert [p for p in sums(32, 32) if q.outcome(p) != brute.outcome(p)] == []


@pytest.mark.slow
def test_dawsons_kayles_every_sum_of_28_tokens():
    """Dawson's Kayles grows at heaps 25 and 27 too, to 176 elements."""
    q, brute = misere_quotient("0.07", 28), Misere("0.07")
    assert [p for p in sums(28, 28) if q.outcome(p) != brute.outcome(p)] == []


@pytest.mark.parametrize("code", ["0.77", "0.07", "0.75", "4.7"])
def test_every_two_elements_are_told_apart_by_a_sum(code):
    """The quotient is reduced, by the definition: for any two elements there is a sum X that the brute
    force plays to different outcomes when added to a sum of each (each element's shortest sum, X one
    of the shortest sums)."""
    q = misere_quotient(code, 9)
    brute = Misere(code)
    words = [q.words[x] for x in range(q.order)]
    for x in range(q.order):
        for y in range(x):
            assert any(brute.outcome(words[x] + z) != brute.outcome(words[y] + z) for z in words), (x, y)


@pytest.mark.parametrize("code", CODES)
def test_the_table_is_a_commutative_monoid_and_heaps_land_in_it(code):
    q = misere_quotient(code, 16)
    m, elements = q.mul, range(q.order)
    assert all(m[0][x] == x for x in elements)
    assert all(m[x][y] == m[y][x] for x in elements for y in elements)
    assert all(m[m[x][y]][z] == m[x][m[y][z]] for x in elements for y in elements for z in elements)
    assert q.heap_element[0] == 0 and all(0 <= e < q.order for e in q.heap_element)


def nim(n: int) -> str:
    """Nim with heaps up to n as an octal code: k tokens may be taken leaving nothing or one heap."""
    return "0." + "3" * n


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 8, 12])
def test_nim_against_boutons_misere_rule(n):
    """Every sum of heaps up to n of at most 24 tokens: Bouton's rule; its winning moves obey it too.
    The rule makes a sum's class its nim-sum and whether a heap of 2 or more is in it: with 2^k <= n <
    2^(k+1), the nim-sums 0..2^(k+1)-1 with a large heap and 0, 1 without, so 2^(k+1) + 2 elements
    (2 for n = 1), the P-portion {1 without a large heap, 0 with one}."""
    q = misere_quotient(nim(n), n)
    for position in sums(24, n):
        assert q.outcome(position) == bouton_misere(position), position
        move = q.winning_move(position)
        if bouton_misere(position) == "N" and position:
            i, left = move
            assert bouton_misere(position[:i] + position[i + 1:] + left) == "P"
    k = n.bit_length() - 1
    assert q.order == (2 if n == 1 else 2 ** (k + 1) + 2)
    assert len(q.p_portion) == (1 if n == 1 else 2)


@pytest.mark.parametrize("code", CODES)
def test_published_structure_of_quotients(code):
    """Plambeck and Siegel, "Misère quotients for impartial games", JCTA 115 (2008): every misère
    quotient of impartial games has even order. Siegel, "The structure and classification of misère
    quotients" (arXiv math/0703070, abstract): a finite quotient whose P-portion has two elements has
    order 2^n + 2 or 2^n + 4."""
    q = misere_quotient(code, 20)
    assert q.order % 2 == 0
    if len(q.p_portion) == 2:
        assert any(q.order in (2 ** n + 2, 2 ** n + 4) for n in range(1, 12))


def test_dawsons_chess_is_dawsons_kayles_one_heap_on():
    """Winning Ways (ch. 4): Dawson's chess on a file of n is Dawson's Kayles with n + 1 pins, move for
    move; so the quotient of 0.137's heaps 0..n is that of 0.07's heaps 0..n+1."""
    for n in range(0, 24, 3):
        a, b = misere_quotient("0.137", n), misere_quotient("0.07", n + 1)
        assert (a.order, len(a.p_portion)) == (b.order, len(b.p_portion))


def test_quotients_of_0_75_and_kayles_at_small_bounds():
    """The 0.75 quotient is reached at heap 5 and does not grow to heap 40; Kayles' grows at 1, 2, 5, 9
    and 12 through heap 20 (the brute force above shows each right on every small sum)."""
    q = misere_quotient("0.75", 40)
    assert (q.order, len(q.p_portion), q.stable_from) == (8, 2, 5)
    assert misere_quotient("0.77", 20).changed_at == (1, 2, 5, 9, 12)


@pytest.mark.slow
def test_dawsons_kayles_to_heap_30_has_siegels_360_elements():
    """Siegel, "Some MisereSolver questions answered", miseregames.wordpress.com, 28 August 2007:
    "Q_30(0.07) has size 360" (java -jar misere.jar 0.07 -maxheap 30)."""
    assert misere_quotient("0.07", 30).order == 360


def test_bounds_and_bad_input_are_one_line_errors():
    with pytest.raises(QuotientTooLarge, match=r"heaps 0\.\.27 is larger than 36 elements \(40\)") as e:
        misere_quotient("0.77", 30, max_order=36)
    assert isinstance(e.value, OverLimit) and "\n" not in str(e.value)
    # candidates are bounded by --max-order too: too small a bound finds none for Dawson's Kayles' heap 25
    with pytest.raises(QuotientTooLarge, match=r"no candidate of at most 1000 elements .* at heap 25"):
        misere_quotient("0.07", 30, max_order=100)
    with pytest.raises(OctalCodeError):
        misere_quotient("0.9x", 5)
    with pytest.raises(UsageError, match="bound from 0"):
        misere_quotient("0.77", -1)
    q = misere_quotient("0.77", 5)
    with pytest.raises(UsageError, match="heaps 0..5"):
        q.outcome((6,))
    with pytest.raises(UsageError):
        q.winning_move((1, "2"))
    assert q.outcome(()) == "N" and q.winning_move(()) is None


def test_a_quotient_refused_at_a_heap_keeps_the_heaps_before_it():
    """``grown_quotient``: where the bounds refuse heap 27 of Kayles (its quotient grows to 40 elements there),
    the quotient of heaps 0..26 and the one line; every sum of those heaps of 20 tokens as the brute force."""
    q, why = grown_quotient("0.77", 30, max_order=36)
    assert q.heaps == 26 and why is not None and "heaps 0..27 is larger than 36 elements (40)" in why
    brute = Misere("0.77")
    assert [p for p in sums(TOTAL, TOTAL) if q.outcome(p) != brute.outcome(p)] == []
    assert grown_quotient("0.77", 12)[1] is None
