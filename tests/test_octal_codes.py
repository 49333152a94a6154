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
