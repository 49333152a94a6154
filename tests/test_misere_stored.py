"""A misère quotient's file as a table keeps it (``tablebase.misere.stored``): read back, it answers every sum of
20 tokens as the brute force of ``misere_oracles.py`` plays it; a file anyone changed is refused in one line
(``DamagedTable``) before any figure of it is used."""

from __future__ import annotations

import json

import pytest
from misere_oracles import Misere, sums

from tablebase.errors import DamagedTable
from tablebase.misere.quotient import grown_quotient
from tablebase.misere.stored import quotient_bytes, read_quotient


@pytest.mark.parametrize("code", ["0.77", "0.75", "4.7"])
def test_a_stored_quotient_read_back_answers_as_the_brute_force(code):
    q, refused = grown_quotient(code, 20)
    data = quotient_bytes(q, 20, refused)
    read, summary = read_quotient(data, code, "here")
    assert summary == {"asked": 20, "heaps": 20, "order": q.order, "p_portion_size": len(q.p_portion),
                       "stable_from": q.stable_from, "refused": None}
    brute = Misere(code)
    assert [p for p in sums(20, 20) if read.outcome(p) != brute.outcome(p)] == []
    assert quotient_bytes(read, 20, None) == data  # the same bytes again: verify compares them whole


def _changed(data: bytes, change) -> bytes:
    found = json.loads(data)
    change(found)
    return json.dumps(found).encode()


@pytest.mark.parametrize("change", [
    lambda d: d["table"][1].__setitem__(0, 10_000),  # an element it has not
    lambda d: d["table"].pop(),  # not square
    lambda d: d["heap_element"].pop(),  # a heap without its element
    lambda d: d["p_portion"].append(-1),
    lambda d: d.__setitem__("code", "0.75"),  # another game's
    lambda d: d.__setitem__("heaps", "20"),
    lambda d: d["elements"].__setitem__(1, "x+1"),
    lambda d: d.__setitem__("asked", 3),  # fewer heaps asked for than it covers
    lambda d: d.__setitem__("format", 2),
])
def test_a_changed_file_is_refused_in_one_line(change):
    q, refused = grown_quotient("0.77", 10)
    data = _changed(quotient_bytes(q, 10, refused), change)
    with pytest.raises(DamagedTable, match="^here: the misère quotient's file is damaged") as e:
        read_quotient(data, "0.77", "here")
    assert "\n" not in str(e.value)
    with pytest.raises(DamagedTable):
        read_quotient(b"\xff{", "0.77", "here")
