"""Every three-digit octal code against oracles that share no code with the solver.

The definition by brute force (``octal_oracles.py``: the moves read again from the code's text, a
recursive mex) for every one of the 512 codes of ``all-3-digit``, as a job of them builds them; and
published periods and values of three-digit codes, with their sources at each constant.
"""

from __future__ import annotations

import numpy as np
import pytest
from octal_oracles import brute_heaps

from tablebase.games.octal import expand_codes
from tablebase.solve.octal import solve

ALL = expand_codes("all-3-digit")
N = 60


def test_all_3_digit_is_every_code_once():
    """512 digit strings, each a different game: a code ending in 0 is the shorter code's, once."""
    assert len(ALL) == len(set(ALL)) == 512
    assert {"0.0", "0.7", "0.77", "0.777", "0.137", "0.007"} <= set(ALL)


@pytest.mark.parametrize("first", "01234567")
def test_every_three_digit_code_matches_the_definition(first):
    """The values a job's run gives (the automatic loop, with its look for a period) to heap 60,
    for the 64 codes whose first digit is ``first``."""
    wrong = []
    for code in [c for c in ALL if c[2] == first]:
        run = solve(code, N)
        if run.values.tolist() != brute_heaps(code, N):
            wrong.append(code)
    assert wrong == []


def terms(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


# OEIS A071435, octal .177, terms from n = 1: "Octal games .450-.453 and .470-.473 have values a(n-1).
# Sequence is eventually periodic with period 20. The last exception is at n=496." (Winning Ways ch. 4,
# p. 102; Flammenkamp's tables.)
POINT_177 = terms("""1,1,2,2,3,1,1,4,4,3,2,2,1,1,4,2,2,6,4,4,1,1,2,2,7,1,1,4,4,3,2,2,1,1,4,8,2,7,4,4,
1,1,2,2,7,8,1,4,4,7,2,2,1,1,4,4,2,7,7,4,1,1,2,2,7,7,1,1,4,7,2,2,1,1,4,4,6,2,7,4,1,1,2,2,8,8,5,1,4,7,
2,2,1,1,8,8,6,7,7,4,1,1""")
# OEIS A071434, octal .1377, terms from n = 1: "Octal games .074-.077 have values a(n-1). Octal games
# .440-.443 and .460-.463 have values a(n-2). Sequence is eventually periodic with period 24. The last
# exception is at n=140." (Winning Ways ch. 4, p. 102.)
POINT_1377 = terms("""1,1,2,2,3,3,1,1,4,4,3,3,2,2,1,1,4,4,2,2,6,6,4,4,1,1,2,2,7,7,1,1,4,4,3,3,2,2,
1,1,4,4,6,6,7,7,4,4,1,1,2,2,8,8,5,5,4,4,7,7,2,2,1,1,8,8,6,6,7,7,4,4,1,1,2,2,3,3,1,1,4,4,7,7,2,2,1,1,
8,8,2,2,7,7,4,4,1,1,2,2,8,8""")
# OEIS A071452, octal .11377, terms from n = 1: "Octal games .045 and .047 has values a(n-2). Sequence is
# eventually periodic with period 32. The last exception is at n=186." (Winning Ways ch. 4, p. 104.)
POINT_11377 = terms("""1,1,1,2,2,2,3,3,1,1,1,4,4,4,3,3,2,2,2,1,1,1,4,4,2,2,2,6,6,4,4,4,1,1,1,2,2,2,
7,7,1,1,1,4,4,4,3,3,2,2,2,1,1,1,4,4,8,6,2,7,7,4,4,4,1,1,1,2,2,2,8,8,8,5,1,4,4,4,7,7,2,2,2,1,1,1,8,8,
8,6,2,7,7,4,4,4,1,1,1,2,2,2,3,8,1""")

# (codes, the OEIS terms, the shift k: G(n) = a(n - k), the period, the last exception of a)
PUBLISHED = [
    (["0.177"], POINT_177, 0, 20, 496),
    (["0.45", "0.451", "0.452", "0.453", "0.47", "0.471", "0.472", "0.473"], POINT_177, 1, 20, 496),
    (["0.074", "0.075", "0.076", "0.077"], POINT_1377, 1, 24, 140),
    (["0.44", "0.441", "0.442", "0.443", "0.46", "0.461", "0.462", "0.463"], POINT_1377, 2, 24, 140),
    (["0.045", "0.047"], POINT_11377, 2, 32, 186),
]


@pytest.mark.parametrize("codes, seq, shift, period, last", PUBLISHED, ids=[p[0][0] for p in PUBLISHED])
def test_published_three_digit_values_and_periods(codes, seq, shift, period, last):
    """Term by term from heap 1 + shift, and the period with its preperiod one past the last exception
    (moved up by the shift), proven by the Guy-Smith check and found by a job's run."""
    for code in codes:
        run = solve(code, 4000)
        assert run.values[1 + shift: 1 + shift + len(seq)].tolist() == seq, code
        assert (run.period.preperiod, run.period.period) == (last + shift + 1, period), code


@pytest.mark.parametrize("code", ["0.444", "0.064", "0.774", "0.77"])
def test_pair_sets_marked_once_give_the_definition(code):
    """Codes that split after several numbers of tokens, in the plain loop that marks each pair set
    once (values growing past several sizes of its arrays), from heap 0 and resumed from a prefix."""
    want = brute_heaps(code, 400)
    assert solve(code, 400, method="plain", use_period=False).values.tolist() == want
    resumed = solve(code, 400, method="plain", use_period=False, start=np.array(want[:333]))
    assert resumed.values.tolist() == want


def test_codes_with_one_values_key_have_the_same_values():
    """A heap of exactly k taken whole is a move of heap k alone: codes that differ in such moves and
    agree at heap k agree everywhere (the definition, to heap 150, for every group of the 512 codes)."""
    from tablebase.games.octal_code import parse_code, values_key

    groups: dict[str, list[str]] = {}
    for code in ALL:
        groups.setdefault(values_key(parse_code(code)), []).append(code)
    shared = [codes for codes in groups.values() if len(codes) > 1]
    assert len(shared) > 50
    for codes in shared:
        values = [brute_heaps(code, 150) for code in codes]
        assert all(v == values[0] for v in values), codes
    key = {code: values_key(parse_code(code)) for code in ALL}
    # .224 to .235: taking 2 or 3 whole changes no value (G(2) = G(3) = 1 either way, by hand)
    assert key["0.224"] == key["0.225"] == key["0.234"] == key["0.235"]
    # .004 and .005: a heap of 3 has no move, or one to nothing (G(3) = 0 or 1): apart
    assert key["0.004"] != key["0.005"]


def test_a_solver_takes_the_values_of_the_code_before_it_when_they_are_the_same():
    """The octal solver of a code whose values a code solved before it in this process shares (a job's
    group, one after another on a worker) takes them in, and gives the rows it would have solved."""
    from tablebase.games.octal import Octal
    from tablebase.solve import octal_table

    keys = np.arange(0, 400, dtype=np.int64)
    octal_table._LAST.clear()
    alone = {code: octal_table.OctalSolver(Octal(code=code, max=399)).solve(keys) for code in ("0.225", "0.245")}
    octal_table._LAST.clear()
    octal_table.OctalSolver(Octal(code="0.224", max=399)).solve(keys)
    after = octal_table.OctalSolver(Octal(code="0.225", max=399))
    assert after.known == 400 and after.moved  # taken in, not solved
    assert octal_table.OctalSolver(Octal(code="0.225", max=399), fresh=True).known == 0  # verify's solves all
    assert after.solve(keys).equals(alone["0.225"])
    other = octal_table.OctalSolver(Octal(code="0.245", max=399))
    assert other.known == 0  # another group's values are not taken
    assert other.solve(keys).equals(alone["0.245"])
    assert [int(v) for v in alone["0.225"].column("grundy").to_pylist()] == brute_heaps("0.225", 399)
