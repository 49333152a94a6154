"""``tablebase misere``: the quotient printed and as JSON, a sum answered, and bad input as one line."""

from __future__ import annotations

import json

import pytest
from helpers import assert_clean_error, tablebase
from misere_oracles import Misere

from tablebase.cli import main
from tablebase.misere import misere_quotient


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_holds_the_quotient(capsys):
    code, out, _ = run(capsys, "misere", "0.75", "--heaps", "12", "--json")
    data = json.loads(out)
    assert code == 0
    assert (data["code"], data["heaps"], data["order"], data["p_portion_size"]) == ("0.75", 12, 8, 2)
    assert len(data["table"]) == 8 and len(data["heap_element"]) == 13 and data["elements"][0] == "0"
    # each element's shortest sum is played by the brute force to the outcome its P-membership says
    brute = Misere("0.75")
    for x, word in enumerate(data["elements"]):
        heaps = tuple(int(h) for h in word.split("+") if h != "0")
        assert brute.outcome(heaps) == ("P" if x in data["p_portion"] else "N")


def test_text_shows_table_heaps_and_an_answered_sum(capsys):
    code, out, _ = run(capsys, "misere", "kayles", "--heaps", "6", "--sum", "6 4 1", "--genus")
    assert code == 0
    assert out.startswith("octal 0.77, heaps 0..6: misère quotient of order ")
    assert "multiplication table:" in out and "stable from heap" in out and "0^120" in out
    last = out.strip().splitlines()[-1]
    want = Misere("0.77").outcome((6, 4, 1))
    assert last.startswith("6 + 4 + 1: element e") and f"misère outcome {want}" in last
    assert ("winning move" in last) == (want == "N")


@pytest.mark.parametrize("args, words", [
    (["0.9x", "--heaps", "3"], ["octal code"]),
    (["0.77", "--heaps", "-1"], ["heaps -1"]),
    (["0.77", "--heaps", "3", "--sum", "4"], ["heap 4", "0..3"]),
    (["0.77", "--heaps", "3", "--sum", "a b"], ["sum 'a b'"]),
    (["0.77", "--heaps", "30", "--max-order", "36"], ["heaps 0..27 is larger than 36 elements"]),
    (["0.77", "--heaps", "41", "--genus"], ["genus"]),
    (["0.77", "--heaps", "3", "--max-order", "0"], ["--max-order"]),
])
def test_bad_input_is_one_line(capsys, args, words):
    code, out, err = run(capsys, "misere", *args)
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1 and "Traceback" not in err
    assert all(w in lines[0] for w in words), lines[0]


@pytest.mark.slow
def test_the_command_as_a_user_runs_it():
    result = tablebase("misere", "0.31", "--heaps", "10", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["order"] == misere_quotient("0.31", 10).order
    assert_clean_error(tablebase("misere", "0.31"), "--heaps")
