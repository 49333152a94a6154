"""The octal-game solver core against oracles that share no code with it.

Oracles: the definition by brute force (every move of a heap listed from the
code's digits as read here, a recursive mex; and, for small heaps, the value
of whole positions of several heaps without the Sprague-Grundy XOR), and
published facts with their sources cited at each constant.
"""

from __future__ import annotations

import io
import random

import numpy as np
import pytest
from octal_oracles import brute_heaps, brute_position, oracle_moves

from tablebase.errors import TablebaseError
from tablebase.games import octal_code
from tablebase.solve import octal
from tablebase.solve.octal import (
    OctalCodeError,
    Period,
    ProgressLine,
    RareSplit,
    find_period,
    grundy_values,
    heap_value,
    parse_code,
    rare_values,
    solve,
)

# The oracle (the rules read from the code text, and the mex over every move): tests/octal_oracles.py.


TWO_DIGIT = [f"0.{a}{b}" for a in range(8) for b in range(8)]
rng = random.Random(20240611)
THREE_DIGIT = sorted({f"0.{rng.randrange(8)}{rng.randrange(8)}{rng.randrange(1, 8)}" for _ in range(40)})
OTHERS = ["4.07", "4.4", "4.7", "4.", "0.f", "0.8", "0.18", "0.48", "8.1", "c.3", "0.1f", "0.b7", "grundy",
          "0.4", "0.6"]


@pytest.mark.parametrize("code", TWO_DIGIT + THREE_DIGIT + OTHERS)
def test_values_match_the_definition(code):
    """Every two-digit code, a sample of three-digit ones, leading digits and hexadecimal digits,
    to heap 60, by the automatic method and by the plain loop."""
    want = brute_heaps(code, 60)
    assert grundy_values(code, 60, use_period=False).tolist() == want
    assert grundy_values(code, 60, method="plain", use_period=False).tolist() == want




def splits_in_two_only(code: str) -> bool:
    """Some move leaves two heaps and none three, by the oracle's reading of the code."""
    if code == "grundy":
        return True
    sizes = {len(move) for n in range(12) for move in oracle_moves(code, n)}
    return 2 in sizes and 3 not in sizes


SPARSE_CODES = [c for c in TWO_DIGIT + THREE_DIGIT + OTHERS if splits_in_two_only(c)]
MASKS = [-2, 1, -1, 6, 0x55, -0x20]


@pytest.mark.parametrize("code", SPARSE_CODES)
def test_sparse_loop_is_exact_for_any_mask(code):
    """The sparse loop from heap 0 under masks good and bad: the mask may only change its speed."""
    want = brute_heaps(code, 60)
    for mask in MASKS:
        got = grundy_values(code, 60, method="sparse", split=RareSplit(mask), use_period=False)
        assert got.tolist() == want, mask
    ks = parse_code(code).split2
    if len({k % 2 for k in ks}) == 1:
        by_position = RareSplit(-2, by_position=True, parity_heap=ks[0])
        assert grundy_values(code, 60, split=by_position, use_period=False).tolist() == want


def test_partners_are_common_heaps_first_of_every_value_then_second():
    """The partners of the sparse search, checked on hand-made values against their definition."""
    values = np.array([0, 1, 2, 1, 3, 2, 1, 3, 2, 0])  # mask -2: 0 and 1 rare, 2 and 3 common
    partners = RareSplit(-2).partners(values, per_value=2)
    assert partners.tolist() == [2, 4, 5, 7]  # first 2, first 3, second 2, second 3 (heap 8 is a third 2)
    assert RareSplit(-2).partners(values, per_value=5).tolist() == [2, 4, 5, 7, 8]
    assert RareSplit(-2).partners(values[:2], per_value=5).tolist() == []


@pytest.mark.parametrize("code", ["0.77", "0.07", "0.137", "0.16", "0.f", "4.07", "grundy", "0.18"])
def test_xor_of_heaps_is_the_value_of_the_position(code):
    """Small positions of two and three heaps valued by the definition, without the XOR."""
    g = grundy_values(code, 12)
    for heaps in [(3, 4), (5, 7), (2, 3, 6), (1, 4, 7), (6, 6), (9, 3)]:
        x = 0
        for h in heaps:
            x ^= int(g[h])
        assert brute_position(code, heaps) == x, heaps


@pytest.mark.parametrize("code", ["0.16", "0.56", "0.127", "0.376", "grundy", "0.6", "0.14", "4.07"])
def test_sparse_agrees_with_plain_on_longer_runs(code):
    """20,000 heaps, where the sparse loop has chosen its own mask (and .127 its heap parity)."""
    fast = solve(code, 20000, use_period=False)
    plain = grundy_values(code, 20000, method="plain", use_period=False)
    assert np.array_equal(fast.values, plain)
    if code in ("0.16", "0.56", "0.127", "grundy"):
        assert fast.split is not None  # the sparse loop did the work


# -- published facts ------------------------------------------------------------------------------


def terms(text: str) -> list[int]:
    """Terms as OEIS prints them, separated by commas."""
    return [int(x) for x in text.split(",")]


# OEIS A002186, Kayles (octal .77), terms n = 0..104 (offset 0).
KAYLES = terms("""0,1,2,3,1,4,3,2,1,4,2,6,4,1,2,7,1,4,3,2,1,4,6,7,4,1,2,8,5,4,7,2,1,8,
6,7,4,1,2,3,1,4,7,2,1,8,2,7,4,1,2,8,1,4,7,2,1,4,2,7,4,1,2,8,1,4,7,2,
1,8,6,7,4,1,2,8,1,4,7,2,1,8,2,7,4,1,2,8,1,4,7,2,1,8,2,7,4,1,2,8,1,4,7,2,1""")
# OEIS A002187, Dawson's chess (octal .137), n = 0..131 (offset 0); Dawson's Kayles .07 has a(n-1).
DAWSONS_CHESS = terms("""0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3, 0, 1, 1, 3, 0,
2, 1, 1, 0, 4, 5, 2, 7, 4, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 4, 5, 5, 2, 3, 3, 0, 1, 1, 3, 0, 2,
1, 1, 0, 4, 5, 3, 7, 4, 8, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 4, 5, 5, 9, 3, 3, 0, 1, 1, 3, 0, 2, 1,
1, 0, 4, 5, 3, 7, 4, 8, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 4, 5, 5, 9, 3, 3, 0, 1, 1, 3, 0, 2, 1, 1,
0, 4""")
# OEIS A002188, Grundy's game, n = 0..104 (offset 0).
GRUNDYS_GAME = terms("""0,0,0,1,0,2,1,0,2,1,0,2,1,3,2,1,3,2,4,3,0,4,3,0,4,3,0,4,1,2,3,1,2,4,
1,2,4,1,2,4,1,5,4,1,5,4,1,5,4,1,0,2,1,0,2,1,5,2,1,3,2,1,3,2,4,3,2,4,
3,2,4,3,2,4,3,2,4,3,2,4,5,2,4,5,2,4,3,7,4,3,7,4,3,7,4,3,5,2,3,5,2,3,5,2,3""")
# OEIS A071436 (.56) and A071464 (.127), terms from n = 1 (offset 1).
POINT_56 = terms("""1, 0, 2, 2, 4, 1, 1, 3, 2, 4, 4, 6, 6, 2, 1, 1, 7, 6, 8, 4, 1, 1, 6, 5, 4, 8,
1, 1, 12, 4, 5, 6, 1, 1, 3, 12, 6, 6, 8, 9, 2, 11, 6, 6, 4, 2, 1, 1, 12, 13, 4, 10, 8, 1, 12, 12, 5, 11,
1, 16, 2, 2, 12, 6, 1, 1, 2, 13, 12, 6, 6, 8, 1, 1, 7, 6, 11, 4, 16, 16, 6, 5, 5, 19, 1, 1, 12, 4, 14,
16, 1, 1""")
POINT_127 = terms("""1, 0, 2, 2, 1, 0, 4, 4, 1, 2, 2, 0, 1, 4, 4, 6, 1, 7, 7, 0, 1, 2, 2, 6, 1,
4, 4, 8, 1, 2, 7, 8, 1, 0, 7, 2, 6, 8, 1, 4, 9, 8, 1, 2, 6, 0, 1, 4, 6, 2, 1, 8, 9, 0, 1, 6, 2, 2, 7, 0,
1, 8, 3, 2, 1, 4, 4, 8, 9, 2, 7, 8, 1, 0, 9, 2, 2, 6, 4, 4, 1, 8, 3, 2, 1, 0, 4""")


def test_oeis_sequences_term_by_term():
    assert grundy_values("0.77", len(KAYLES) - 1).tolist() == KAYLES
    assert grundy_values("kayles", len(KAYLES) - 1).tolist() == KAYLES
    assert grundy_values("0.137", len(DAWSONS_CHESS) - 1).tolist() == DAWSONS_CHESS
    assert grundy_values("0.07", len(DAWSONS_CHESS)).tolist() == [0] + DAWSONS_CHESS  # G_.07(n) = G_.137(n-1)
    assert grundy_values("grundy", len(GRUNDYS_GAME) - 1).tolist() == GRUNDYS_GAME
    assert grundy_values("0.56", len(POINT_56)).tolist()[1:] == POINT_56
    assert grundy_values("0.127", len(POINT_127)).tolist()[1:] == POINT_127


def proof_bounds(code: str, n: int):
    """The period found with values up to heap n, and with one heap less."""
    g = grundy_values(code, n, use_period=False)
    return find_period(g, code), find_period(g[:-1], code)


@pytest.mark.parametrize("code, preperiod, period", [
    # Kayles: "From n=71 on, the sequence is periodic with period 12", last exception n = 70
    # (OEIS A002186; Guy and Smith 1956; Winning Ways ch. 4).
    ("0.77", 71, 12),
    # Dawson's chess .137: period 34, "the only exceptions at n=0, 14, 16, 17, 31, 34 and 51" (OEIS A002187).
    ("0.137", 52, 34),
    # Dawson's Kayles .07 has the values of .137 one heap later (OEIS A002187): last exception 52.
    ("0.07", 53, 34),
])
def test_classic_periods_proven_at_the_guy_smith_heap(code, preperiod, period):
    t = parse_code(code).largest_removal
    at = 2 * preperiod + 2 * period + t - 1
    found, one_short = proof_bounds(code, at)
    assert (found.preperiod, found.period, found.proven_at) == (preperiod, period, at)
    assert one_short is None


@pytest.mark.parametrize("code, preperiod, period, rare, mask, largest, last_rare", [
    # Gangolli and Plambeck, "A note on periodicity in some octal games", IJGT 18 (1989):
    # .16 preperiod 105,351, period 149,459. Rare heaps (53, mask 1e), largest value 23 and last
    # rare heap 13,935: tczajka/octal-games, SolvedGames.md.
    ("0.16", 105351, 149459, 53, "1e", 23, 13935),
    # .56 period 144 (Gangolli and Plambeck; OEIS A071436); preperiod 326,640, 46 rare heaps (mask
    # 5b), largest 64, last rare 1,795: tczajka/octal-games. (OEIS A071436 says the last exception
    # is n = 326637; G(326639) != G(326783) here, by the plain loop as well, see docs/octal.md.)
    ("0.56", 326640, 144, 46, "5b", 64, 1795),
    # .127 period 4, last exception 46,577 (OEIS A071464, after Gangolli and Plambeck); 693 rare heaps
    # by value and heap parity ("1+pos"), largest 56: tczajka/octal-games.
    ("0.127", 46578, 4, 693, "1+pos", 56, 27106),
])
def test_gangolli_plambeck_periods(code, preperiod, period, rare, mask, largest, last_rare):
    proof = 2 * preperiod + 2 * period + parse_code(code).largest_removal - 1  # Guy-Smith, t = 2 or 3
    run = solve(code, 3 * proof)
    assert (run.period.preperiod, run.period.period, run.period.proven_at) == (preperiod, period, proof)
    assert run.computed <= 1.1 * (proof + 1) + 1  # checked as heaps grow by a tenth, then copied
    found = rare_values(run.values[: run.period.proven_at + 1], code)
    assert (found.heaps.size, found.mask_text, found.largest, int(found.heaps[-1])) == (rare, mask, largest, last_rare)


# Flammenkamp, "Sprague-Grundy values of Grundy's game" (wwwhomes.uni-bielefeld.de/achim/grundy.html):
# the known rare ("sparse") values, m = 0111..., every one up to heap 231.
GRUNDY_RARE = {0: 0, 1: 0, 2: 0, 3: 1, 4: 0, 6: 1, 7: 0, 9: 1, 10: 0, 12: 1, 15: 1, 20: 0, 23: 0, 26: 0, 28: 1,
               31: 1, 34: 1, 37: 1, 40: 1, 43: 1, 46: 1, 49: 1, 50: 0, 52: 1, 53: 0, 55: 1, 58: 1, 61: 1, 87: 7,
               90: 7, 93: 7, 146: 6, 149: 6, 152: 6, 158: 11, 161: 11, 164: 11, 167: 11, 176: 7, 179: 7, 181: 12,
               182: 7, 185: 7, 188: 7, 190: 12, 193: 12, 196: 10, 231: 10}


def test_grundys_game_rare_values_as_published():
    g = grundy_values("grundy", 20000)
    found = rare_values(g, "grundy")
    assert found.split.mask & 0xFF == 0xFE
    upto = found.heaps <= 231
    assert dict(zip(found.heaps[upto].tolist(), found.values[upto].tolist())) == GRUNDY_RARE
    # The Guy-Smith argument does not hold for unequal splits: no proof even of values that repeat,
    # where the same values under 4. (equal splits allowed) are proven periodic.
    repeating = np.tile(np.array([0, 1], dtype=np.uint16), 500)
    assert find_period(repeating, "4.") == Period(0, 2, 5)  # 2 max(e, 1) + 2p + t - 1, t = 0
    assert find_period(repeating, "grundy") is None
    assert find_period(g, "grundy") is None


# -- the API around the loops ----------------------------------------------------------------------


def test_resume_from_a_saved_prefix():
    whole = grundy_values("0.16", 30000, use_period=False)
    resumed = grundy_values("0.16", 30000, start=whole[:7000], use_period=False)
    assert np.array_equal(whole, resumed)
    assert np.array_equal(grundy_values("0.16", 5000, start=whole), whole[:5001])
    with pytest.raises(OctalCodeError, match="not those of 0.77: heap 1 has 0, the rules give 1"):
        grundy_values("0.77", 100, start=grundy_values("0.07", 50))
    with pytest.raises(OctalCodeError, match="one-dimensional integer"):
        grundy_values("0.77", 100, start=np.array([0.0, 1.0]))


def test_periodic_tail_is_copied_exactly():
    """Dawson's chess to a million heaps: the period is proven near heap 174 and the rest copied;
    the copied values equal those computed heap by heap (sparse and plain loops)."""
    run = solve("0.137", 10**6)
    assert run.period.period == 34 and run.computed < 2000
    computed = grundy_values("0.137", 30000, use_period=False)
    assert np.array_equal(run.values[:30001], computed)
    assert set(run.values[52:].tolist()) == set(run.values[52:86].tolist())


def test_heap_values_beyond_the_table_come_from_the_period():
    run = solve("0.77", 300)
    far = grundy_values("0.77", 5000, use_period=False)
    assert ([heap_value(run.values, n, run.period) for n in (5, 300, 301, 4999)]
            == [far[5], far[300], far[301], far[4999]])
    with pytest.raises(OctalCodeError, match="heap 301: beyond the 301 values computed, and no proven period"):
        heap_value(run.values, 301)


def test_progress_is_told_between_chunks(monkeypatch):
    monkeypatch.setattr(octal, "PROGRESS_EVERY", 0.0)
    monkeypatch.setattr(octal, "CHUNK_SECONDS", 1e-6)  # chunks of a few heaps
    heard = []
    grundy_values("0.16", 3000, progress=lambda n, total: heard.append((n, total)), use_period=False)
    assert len(heard) > 10
    assert all(total == 3000 for _, total in heard)
    assert [n for n, _ in heard] == sorted(n for n, _ in heard)
    assert heard[-1] == (3000, 3000)
    out = io.StringIO()
    line = ProgressLine("0.16", out, every=0.0)
    grundy_values("0.16", 3000, progress=line)
    text = out.getvalue().splitlines()
    assert text[-1].startswith("0.16: heap 3,000 of 3,000 (100.0%)") and text[-1].endswith("done")


@pytest.mark.parametrize("text, canonical", [
    ("0.137", "0.137"), (".137", "0.137"), ("4.07", "4.07"), ("  0.770 ", "0.77"), ("0.F", "0.f"),
    ("grundy", "grundy"), ("Kayles", "0.77"), ("dawsons-chess", "0.137"), ("4.", "4.0"), ("c.1", "c.1"),
])
def test_codes_parse(text, canonical):
    assert parse_code(text).text == canonical


def test_code_moves():
    kayles = parse_code("0.77")
    assert (kayles.whole, kayles.take, kayles.split2, kayles.largest_removal) == ((1, 2), (1, 2), (1, 2), 2)
    grundy = parse_code("grundy")
    assert grundy.split2 == (0,) and grundy.distinct and grundy.largest_removal == 0
    assert parse_code("0.8").split3 == (1,) and parse_code("0.8").most_heaps == 3


@pytest.mark.parametrize("text, says", [
    ("137", "expected digits after a point"),
    ("0.9x", "expected digits after a point"),
    (".", "expected digits after a point"),
    ("", "expected digits after a point"),
    ("3.07", "may only break a heap"),
    ("0." + "7" * 65, "at most 64"),
    (0.137, "not float"),
])
def test_bad_codes_say_why_in_one_line(text, says):
    with pytest.raises(OctalCodeError, match=says) as caught:
        parse_code(text)
    assert "\n" not in str(caught.value)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, TablebaseError)


def test_a_table_larger_than_memory_is_refused(monkeypatch):
    class Small:
        total = 10**6  # bytes: room for 500,000 values

    monkeypatch.setattr(octal_code.psutil, "virtual_memory", lambda: Small)  # the size check lives with the rules
    assert grundy_values("0.16", 1000).size == 1001
    with pytest.raises(OctalCodeError, match="n_max: 1,000,001 values do not fit in this machine's memory"):
        grundy_values("0.16", 10**6)


def test_bad_arguments_say_why():
    with pytest.raises(OctalCodeError, match="n_max"):
        grundy_values("0.77", -1)
    with pytest.raises(OctalCodeError, match="method"):
        grundy_values("0.77", 10, method="fast")
    with pytest.raises(OctalCodeError, match="sparse method needs splits"):
        grundy_values("0.33", 10, method="sparse")
    with pytest.raises(OctalCodeError, match="up to 2,000,000 heaps"):
        grundy_values("0.8", 10**7)
    with pytest.raises(OctalCodeError, match="n_max: a number of heaps from 0 to"):
        grundy_values("0.16", 2**34)
    with pytest.raises(OctalCodeError, match="one parity"):
        grundy_values("0.77", 10, split=RareSplit(-2, by_position=True, parity_heap=1))


@pytest.mark.slow
def test_the_kernels_stay_inside_their_arrays(tmp_path):
    """Compiled loops do not check their indices: an array that failed to grow is written past its
    end, silently, and the heap's memory is corrupted for whatever runs next. Here the loops run
    compiled with bounds checks (a cache of their own), in chunks of a few heaps, where a chunk that
    ends on the heap whose value outgrew the arrays is most likely."""
    import os
    import subprocess
    import sys

    script = (
        "from tablebase.solve import octal\n"
        "octal.PROGRESS_EVERY, octal.CHUNK_SECONDS = 0.0, 1e-6\n"
        "for code in ('0.16', '0.137', '0.77', '4.7', 'grundy'):\n"
        "    octal.grundy_values(code, 3000, progress=lambda n, total: None, use_period=False)\n"
    )
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(tmp_path)}
    ran = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr[-2000:]
