"""Genus symbols of octal heaps against the definition played out by an oracle of its own
(``misere_oracles.misere_grundy_with_twos``) and Winning Ways' genera of nim-heaps."""

from __future__ import annotations

import pytest
from misere_oracles import misere_grundy_with_twos
from octal_oracles import brute_heaps

from tablebase.errors import UsageError
from tablebase.misere.genus import genera


def test_nim_heaps_have_winning_ways_genera():
    """Winning Ways, ch. 13: the nim-heaps 0, 1, 2, 3, 4, 5, 6, 7 have genera 0^120, 1^031, 2^20, 3^31, 4^46,
    5^57, 6^64, 7^75."""
    rows = genera("0.3333333", 7)
    assert [r["genus"] for r in rows] == ["0^120", "1^031", "2^20", "3^31", "4^46", "5^57", "6^64", "7^75"]
    assert all(r["nim_like"] for r in rows)


@pytest.mark.parametrize("code", ["0.77", "0.07", "0.75", "0.31", "4.7"])
def test_genus_is_its_definition(code):
    """g is the normal-play Grundy value and γk the misère Grundy value of the heap plus k nim-heaps of 2,
    each found by the oracles' own recursions, for heaps 0..11 and k = 0..4."""
    rows = genera(code, 11, twos=4)
    assert [r["g"] for r in rows] == brute_heaps(code, 11)
    for r in rows:
        assert r["gammas"] == [misere_grundy_with_twos(code, r["heap"], k) for k in range(5)], r


def test_genus_bound():
    with pytest.raises(UsageError, match="heaps 0 to 40"):
        genera("0.77", 41)
