"""Octal tables built with ``--misere``: the misère quotient kept beside the rows, and sums looked up through it.

The oracle is ``misere_oracles.py``'s brute force (each sum played out by the misère rule, the moves read
again from the code's digits by ``octal_oracles.py``), which shares no code with ``tablebase.misere``; a
winning misère move is read back from its name by the rules of the move notation written here, checked to be
a legal move by the oracle's moves, and to leave a sum the brute force calls P. Nim's quotient (the code
0.3333) against Bouton's rule, as Plambeck counts it.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest
from fastapi.testclient import TestClient
from helpers import assert_clean_error
from helpers import tablebase as run
from misere_oracles import Misere, misere_grundy_with_twos, sums
from octal_oracles import brute_heaps, oracle_moves

import tablebase
from tablebase.build.jobs import spec_for
from tablebase.errors import DamagedTable, UsageError
from tablebase.http.app import create_app

CODES = ["0.77", "0.07", "0.75"]  # Kayles, Dawson's Kayles, 0.75
TOTAL = 20


def text_of(position: tuple[int, ...]) -> str:
    return " ".join(map(str, position)) or "0"


def played(code: str, position: tuple[int, ...], name: str) -> tuple[int, ...]:
    """The sum a move leaves, read from its name: ``-k`` takes k (leaving the rest, or nothing), ``-k/a`` breaks
    the rest into a and the others, ``-k/a/b`` into a, b and the rest; `` in H`` names the heap of a sum it is
    made in. AssertionError unless the oracle's moves of that heap hold it."""
    move, _, heap_text = name.partition(" in ")
    heap = int(heap_text) if heap_text else position[0]
    k, *apart = (int(x) for x in move.lstrip("-").split("/"))
    left = tuple(sorted(h for h in (*apart, heap - k - sum(apart)) if h))
    legal = {tuple(sorted(h for h in m if h)) for m in oracle_moves(code, heap)}
    assert heap in position and left in legal, (position, name)
    rest = list(position)
    rest.remove(heap)
    return tuple(sorted(rest + list(left), reverse=True))


@pytest.mark.parametrize("code", CODES)
def test_every_sum_of_twenty_tokens_looked_up_through_a_built_table(built, code):
    """Each sum of heaps of at most 20 tokens: the table's misère outcome is the brute force's, and its winning
    misère move is legal and leaves a sum the brute force calls P (none where the sum is lost)."""
    root, table = built("octal", code=code, max=TOTAL, misere=True)
    brute = Misere(code)
    wrong = []
    with tablebase.open(root) as tb:
        for position in sums(TOTAL, TOTAL):
            found = tb.probe(table, text_of(position))
            want = brute.outcome(position)
            move = found["misere_best_move"]
            if found["misere_outcome"] != want or found["misere_note"] is not None:
                wrong.append((position, found))
            elif want == "P" or not brute.moves(position):
                if move is not None:
                    wrong.append((position, move))
            elif move is None or brute.outcome(played(code, position, move)) != "P":
                wrong.append((position, move))
    assert wrong == []


def test_a_lookup_gives_each_moves_misere_outcome_and_a_batch_each_sums(built):
    """``lookup``: every listed move carries the misère outcome of the sum it leaves; ``lookup_many``: the
    misère outcome of each sum, as the brute force plays them."""
    root, table = built("octal", code="0.77", max=TOTAL, misere=True)
    brute = Misere("0.77")
    positions = sums(12, 12)
    with tablebase.open(root) as tb:
        for position in positions:
            looked = tb.lookup(table, text_of(position))
            assert looked["misere_outcome"] == brute.outcome(position)
            for move in looked["moves"]:
                after = played("0.77", position, move["move"])
                assert move["misere_outcome"] == brute.outcome(after), (position, move)
        batch = tb.lookup_many(table, [text_of(p) for p in positions])
    assert batch.column("misere_outcome").to_pylist() == [brute.outcome(p) for p in positions]
    assert batch.column("grundy").to_pylist()[:1] == [0]  # the empty sum's normal-play figures beside


def test_the_api_and_the_explorer_say_a_sums_misere_outcome(built):
    root, table = built("octal", code="0.77", max=TOTAL, misere=True)
    brute = Misere("0.77")
    with TestClient(create_app(root)) as client:
        for position in [(5, 3), (4, 1), (7, 6, 2, 1), (1,)]:
            answer = client.get(f"/tables/{table}/lookup", params={"position": text_of(position)}).json()
            assert answer["misere_outcome"] == brute.outcome(position)
            page = client.get(f"/table/{table}/position", params={"position": text_of(position)}).text
            words = "wins" if brute.outcome(position) == "N" else "loses"
            assert f"In misère play (a player who cannot move wins), the player to move {words}." in page


def test_a_heap_beyond_the_quotient_is_unknown_in_the_answer_not_an_error(built):
    """``--misere-heaps 12`` on a table of 30 heaps: a sum with a heap of 13 or more gets no misère outcome and
    a note naming heap 12; the others are answered, and the catalogue says the quotient covers heaps 0..12."""
    root, table = built("octal", code="0.77", max=30, misere=True, misere_heaps=12)
    brute = Misere("0.77")
    with tablebase.open(root) as tb:
        far = tb.probe(table, "20 3")
        assert far["misere_outcome"] is None and far["misere_best_move"] is None
        assert "unknown beyond heap 12" in far["misere_note"] and far["grundy"] is not None
        assert tb.probe(table, "12 3")["misere_outcome"] == brute.outcome((12, 3))
        looked = tb.lookup(table, "13")  # unknown itself, but every move leaves heaps of 12 or fewer
        assert looked["misere_outcome"] is None and looked["moves"]
        assert [m for m in looked["moves"] if m.get("misere_outcome") != brute.outcome(
            played("0.77", (13,), m["move"]))] == []
        far_moves = tb.lookup(table, "20 3")["moves"]  # a move in the 3 leaves the 20: unknown, and not said
        assert [m for m in far_moves if m["move"].endswith(" in 3") and "misere_outcome" in m] == []
        row = next(r for r in tb.tables() if r["table"] == table)
    assert row["misere_quotient"]["heaps"] == 12 and row["misere_quotient"]["asked"] == 12
    with TestClient(create_app(root)) as client:
        page = client.get(f"/table/{table}/position", params={"position": "20 3"}).text
    assert "the misère outcome is unknown beyond heap 12" in page


@pytest.mark.parametrize("heaps", [3, 4, 7])
def test_nims_quotient_in_the_catalogue_is_boutons(built, heaps):
    """Nim with heaps up to n (the code 0.33...3): Bouton's rule makes a sum's class its nim-sum and whether a
    heap of 2 or more is in it, so 2^(k+1) + 2 elements with 2^k <= n < 2^(k+1), two of them P-positions'.
    ``tablebase tables --json`` and ``stats`` show it."""
    root, table = built("octal", code="0." + "3" * heaps, max=heaps, misere=True)
    k = heaps.bit_length() - 1
    want = {"order": 2 ** (k + 1) + 2, "p_portion_size": 2, "heaps": heaps, "asked": heaps, "refused": None}
    listed = json.loads(run("tables", "--db", root, "--json").stdout)
    shown = next(r for r in listed if r["table"] == table)["misere_quotient"]
    assert {k: shown[k] for k in want} == want
    stats = json.loads(run("stats", "--db", root, table, "--json").stdout)
    assert stats["misere_quotient"]["rows"][0]["order"] == want["order"]


def test_a_refused_quotient_keeps_the_heaps_before_and_says_why(built):
    """0.6's quotient grows past the candidates' bounds at heap 17: the table keeps heaps 0..16 and the line,
    the build does not fail, and sums of those heaps are answered as the brute force plays them."""
    root, table = built("octal", code="0.6", max=24, misere=True)
    with tablebase.open(root) as tb:
        shown = next(r for r in tb.tables() if r["table"] == table)["misere_quotient"]
        assert shown["heaps"] == 16 and shown["asked"] == 20 and "at heap 17" in shown["refused"]
        brute = Misere("0.6")
        assert [p for p in sums(16, 16) if tb.probe(table, text_of(p))["misere_outcome"] != brute.outcome(p)] == []
        assert "beyond heap 16" in tb.probe(table, "17")["misere_note"]


def test_verify_grows_the_quotient_again_and_finds_a_changed_file(built, tmp_path):
    root, table = built("octal", code="0.75", max=TOTAL, misere=True)
    copy = tmp_path / "tb"
    shutil.copytree(root / table, copy / table)
    checked = run("verify", "--db", copy, table, "--quiet")
    assert checked.returncode == 0 and "no problems" in checked.stdout, checked.stdout + checked.stderr
    stored = copy / table / "misere" / "quotient.json"
    data = json.loads(stored.read_bytes())
    data["p_portion"] = data["p_portion"][:-1]  # a P-position's class said to be an N-position's
    stored.write_bytes(json.dumps(data, sort_keys=True, separators=(",", ":")).encode())
    damaged = run("verify", "--db", copy, table, "--quiet")
    assert damaged.returncode == 1 and "misere/quotient.json" in damaged.stdout, damaged.stdout
    with tablebase.open(copy) as tb, pytest.raises(DamagedTable, match="quotient.json is not the file"):
        tb.probe(table, "5 3")
    looked = run("lookup", "--db", copy, table, "5 3")
    assert looked.returncode != 0 and len(looked.stderr.strip().splitlines()) == 1, looked.stderr


def test_a_table_built_without_misere_keeps_no_quotient(built):
    root, table = built("octal", code="0.75", max=TOTAL)
    assert "quotient" not in json.loads((root / table / "_manifest.json").read_text())
    assert not (root / table / "misere").exists()
    with tablebase.open(root) as tb:
        assert "misere_outcome" not in tb.probe(table, "5 3")
        assert "misere_outcome" not in tb.lookup_many(table, ["5 3"]).column_names


def test_misere_keeps_the_octal_tables_name_and_misere_heaps_needs_it():
    spec = spec_for("octal", {"code": "0.77", "max": 30, "misere": True, "misere_heaps": 12})
    assert spec.name == spec_for("octal", {"code": "0.77", "max": 30}).name and not spec.game.misere
    with pytest.raises(UsageError, match="--misere-heaps is for a table built with --misere"):
        spec_for("octal", {"code": "0.77", "max": 30, "misere_heaps": 12})
    with pytest.raises(UsageError, match="misere-heaps must be between 0 and 400"):
        spec_for("octal", {"code": "0.77", "max": 30, "misere": True, "misere_heaps": 401})


@pytest.mark.slow
def test_the_build_command_refuses_misere_heaps_alone_in_one_line(tmp_path):
    result = run("build", "octal", "--code", "0.77", "--max", "9", "--misere-heaps", "5", "--out", tmp_path / "tb")
    assert_clean_error(result, "--misere-heaps is for a table built with --misere")
    assert not (tmp_path / "tb" / "octal_0_77_n9").exists()


def genus_by_definition(code: str, heap: int, g: int) -> str:
    """Conway's genus g^γ0γ1... of a heap from the oracles' own recursions: γk the misère Grundy value of the
    heap plus k nim-heaps of 2 (k = 0..6), written to the first place from which they alternate (at least γ1),
    with commas where a γ has two digits (Winning Ways, ch. 13: 0^120, 2^20)."""
    gammas = [misere_grundy_with_twos(code, heap, k) for k in range(7)]
    shown = next(s for s in range(2, 8) if all(gammas[k] == gammas[k - 2] for k in range(s, 7)))
    parts = [str(x) for x in gammas[:shown]]
    return f"{g}^" + ("," if any(len(p) > 1 for p in parts) else "").join(parts)


@pytest.mark.parametrize("code", ["0.77", "0.75"])
def test_the_genus_column_is_each_heaps_genus_by_its_definition(built, code):
    """Heaps 0..11 (the quotient's heaps with --misere-heaps 11): each row's genus against the definition played
    out by the oracles; null beyond; in SQL and in a heap's lookup alike."""
    root, table = built("octal", code=code, max=30, misere=True, misere_heaps=11)
    grundy = brute_heaps(code, 30)
    with tablebase.open(root) as tb:
        rows = tb.sql(f"SELECT key, genus FROM {table} ORDER BY key").to_pylist()
        assert tb.probe(table, "7")["genus"] == genus_by_definition(code, 7, grundy[7])
    assert [r["genus"] for r in rows[:12]] == [genus_by_definition(code, n, grundy[n]) for n in range(12)]
    assert [r["genus"] for r in rows[12:]] == [None] * 19


@pytest.mark.slow
def test_a_quotient_on_an_object_store_is_the_folders_and_answers_alike(s3, tmp_path, monkeypatch):
    """The same build with --misere in a folder and on the tests' S3 server: one quotient file on the store,
    under its name with its hash, the folder's bytes; a lookup there answers the brute force's misère outcome,
    and verify finds no problem."""
    monkeypatch.setenv("TABLEBASE_CACHE", str(tmp_path / "cache"))
    folder, table = tmp_path / "tb", "octal_0_75_n40"
    for out in (folder, s3.url):
        done = run("build", "octal", "--code", "0.75", "--max", "40", "--misere", "--out", out, "--quiet",
                   timeout=600)
        assert done.returncode == 0, done.stderr
    stored = {key: data for key, data in s3.server.keys(s3.prefix + "/").items() if "/misere/" in key}
    assert len(stored) == 1
    key, data = next(iter(stored.items()))
    assert re.search(r"/misere/quotient\.[0-9a-f]{16}\.json$", key), key
    assert data == (folder / table / "misere" / "quotient.json").read_bytes()
    looked = json.loads(run("lookup", "--db", s3.url, table, "9 5 1", "--json").stdout)
    assert looked["misere_outcome"] == Misere("0.75").outcome((9, 5, 1))
    checked = run("verify", "--db", s3.url, table, "--quiet")
    assert checked.returncode == 0 and "no problems" in checked.stdout, checked.stdout + checked.stderr
