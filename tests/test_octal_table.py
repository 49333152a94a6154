"""The built-in octal game as a table: heap values, sums by XOR, periods in the manifest, verify, resume.

Oracles written here from the rules alone, importing nothing of the game or
the solver: the digits of a code read again (``ways``), Grundy values by a
recursive mex over every move (``heap_values``), and sums of heaps played as
one game on multisets, with no XOR (``sum_value``). Published figures, each
with its source:

- Kayles, 0.77: G periodic with period 12 from n = 71 (OEIS A002186); the
  Guy-Smith check reads heaps up to 2e + 2p + t - 1 = 167.
- Dawson's chess, 0.137: period 34 from n = 52 (OEIS A002187).
- 0.16: period 149,459 from 105,351 (A. Gangolli, T. Plambeck, A note on
  periodicity in some octal games, IJGT 18 (1989)); 53 rare heaps, mask 1e,
  largest value 23 (tczajka/octal-games, SolvedGames.md).
- 0.127: period 4, last exception at 46,577 (Gangolli and Plambeck 1989; OEIS
  A071464); 693 rare heaps by position, mask 1+pos in tczajka/octal-games.
- 0.56: period 144 from 326,640 (Gangolli and Plambeck 1989 list .56 as
  ultimately periodic, period 144; tczajka/octal-games gives the preperiod;
  OEIS A071436 says 326,637, off by the two heaps docs/octal.md explains).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from helpers import assert_clean_error, file_hashes, tablebase
from octal_oracles import brute_heaps, brute_position, oracle_moves

import tablebase as tb_api


# -- oracles: tests/octal_oracles.py (the rules read again from the digits, the definition by recursion) -----
def options(code: str, n: int) -> set[tuple[int, ...]]:
    """Every multiset of heaps a move from a heap of n leaves, sorted."""
    return {tuple(sorted(m)) for m in oracle_moves(code, n)}


def removal_and_heaps(code: str) -> tuple[int, int]:
    """t, the most tokens a move takes, and h, the most heaps it leaves (at least 1), from the digits."""
    lead, digits = code.split(".")
    ds = [int(d, 16) for d in (lead or "0") + digits]
    t = max((k for k, d in enumerate(ds) if d), default=0)
    return t, 3 if any(d & 8 for d in ds) else 2 if any(d & 4 for d in ds) else 1


# -- building -----------------------------------------------------------------------------------
def build(root: Path, scheduler: str, code: str, top: int, *extra: str) -> str:
    result = tablebase("build", "octal", "--code", code, "--max", str(top), "--out", root, "--scheduler",
                       scheduler, "--quiet", *extra)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])["table"]


def rows(root: Path, table: str) -> list[dict]:
    with tb_api.open(root) as tb:
        return tb.sql(f"SELECT key, position, grundy, outcome, best_move FROM {table} ORDER BY key").to_pylist()


def manifest(root: Path, table: str) -> dict:
    return json.loads((root / table / "_manifest.json").read_text())


CODES = ["0.137", "0.16", "0.77", "4.07", "0.f", "0.354", "grundy", "0.4", "0.52", "0.0009"]


def job(root: Path, scheduler: str, text: str) -> list[dict]:
    """Build a job file's tables; the JSON lines the build printed."""
    path = root / "job.toml"
    path.write_text(text)
    result = tablebase("build", "--job", path, "--out", root, "--scheduler", scheduler, "--quiet")
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.fixture(scope="module")
def small(tmp_path_factory, scheduler) -> tuple[Path, dict[str, str]]:
    """Each code of CODES to heap 80 (three heaps: 40), in one folder, from one job."""
    root = tmp_path_factory.mktemp("octal")
    job(root, scheduler, f'''
[[table]]
game = "octal"
codes = "{", ".join(c for c in CODES if "9" not in c)}"
max = 80

[[table]]
game = "octal"
code = "0.0009"
max = 40
''')
    with tb_api.open(root) as tb:
        return root, {t["params"]["code"]: t["table"] for t in tb.tables()}


@pytest.mark.parametrize("code", CODES)
def test_every_heap_has_the_value_of_the_definition(small, code):
    root, tables = small
    stored = rows(root, tables[code])
    expected = brute_heaps(code, len(stored) - 1)
    assert [r["grundy"] for r in stored] == expected
    assert [r["position"] for r in stored] == [str(n) for n in range(len(stored))]
    assert [r["outcome"] for r in stored] == ["N" if g else "P" for g in expected]


@pytest.mark.parametrize("code", CODES)
def test_a_won_heaps_best_move_leaves_a_sum_of_value_0_and_a_lost_heap_has_none(small, code):
    root, tables = small
    stored = rows(root, tables[code])
    g = brute_heaps(code, len(stored) - 1)
    with tb_api.open(root) as tb:
        for r in stored[:41]:
            if r["grundy"] == 0:
                assert r["best_move"] is None
                continue
            moves = tb.lookup(tables[code], r["position"])["moves"]
            chosen = next(m for m in moves if m["move"] == r["best_move"])
            left = [int(h) for h in chosen["position"].split(" + ")]
            x = 0
            for h in left:
                x ^= g[h]
            assert x == 0, (r, chosen)
            assert tuple(sorted(h for h in left if h)) in options(code, int(r["position"]))


SUMS = [(1, 2), (3, 5), (4, 4, 4), (7, 2, 1), (6, 5), (9, 3, 2), (2, 2, 2, 2)]


@pytest.mark.parametrize("code", ["0.137", "0.16", "4.07", "grundy"])
def test_sums_are_looked_up_as_the_game_played_on_several_heaps_gives_them(small, code):
    root, tables = small
    with tb_api.open(root) as tb:
        for heaps in SUMS:
            found = tb.lookup(tables[code], " ".join(map(str, heaps)))
            assert found["grundy"] == brute_position(code, heaps), heaps
            assert found["outcome"] == ("N" if brute_position(code, heaps) else "P")
            # Every move, with the value of what it leaves, as the game on multisets has them.
            after = sorted(brute_position(code, tuple(int(h) for h in m["position"].split(" + ") if h != "0"))
                           for m in found["moves"])
            assert after == [m["grundy"] for m in sorted(found["moves"], key=lambda m: m["grundy"])]
            expected = sorted(brute_position(code, tuple(sorted(heaps[:i] + heaps[i + 1:] + o)))
                              for i in range(len(heaps)) for o in options(code, heaps[i]))
            assert sorted(m["grundy"] for m in found["moves"]) == expected
        assert tb.lookup(tables[code], "3 + 5")["grundy"] == brute_position(code, (3, 5))


def test_kayles_records_its_published_period_and_dawsons_chess_its(small):
    root, tables = small
    # 80 heaps prove nothing for Kayles (proven at 167) or Dawson's chess (174): null, not a guess.
    assert manifest(root, tables["0.77"])["figures"]["period"] is None
    listed = json.loads(tablebase("tables", "--db", root, "--json").stdout)
    assert {t["table"]: t["period"] for t in listed}[tables["0.77"]] is None


def test_published_periods_are_recorded_in_the_manifest_and_shown(tmp_path, scheduler):
    expected = {  # code: (preperiod, period, proven at), sources in the module's docstring
        "0.77": (71, 12, 167),
        "0.137": (52, 34, 174),
        "0.127": (46578, 4, 93166),
        "0.16": (105351, 149459, 509621),
    }
    tops = {"0.77": 167, "0.137": 200, "0.127": 93166, "0.16": 509621}
    tables = {code: build(tmp_path, scheduler, code, top) for code, top in tops.items()}
    listed = {t["table"]: t for t in json.loads(tablebase("tables", "--db", tmp_path, "--json").stdout)}
    for code, (e, p, at) in expected.items():
        assert listed[tables[code]]["period"] == {"preperiod": e, "period": p, "proven_at": at}, code
    # One heap fewer than the proof reads proves nothing.
    short = build(tmp_path, scheduler, "0.77", 166)
    assert manifest(tmp_path, short)["figures"]["period"] is None
    figures = manifest(tmp_path, tables["0.16"])["figures"]
    assert (figures["rare"]["count"], figures["rare"]["mask"], figures["largest"]) == (53, "1e", 23)
    assert figures["rare"]["heaps"][-1] == 13935  # and up to 509,621 no rare heap beyond it
    assert manifest(tmp_path, tables["0.127"])["figures"]["rare"]["mask"].endswith("+pos")
    stats = tablebase("stats", "--db", tmp_path, tables["0.16"])
    assert stats.returncode == 0 and "rare values" in stats.stdout and "149459" in stats.stdout


def test_verify_rederives_the_rows_and_the_period(tmp_path, scheduler):
    table = build(tmp_path, scheduler, "0.137", 300)
    assert tablebase("verify", "--db", tmp_path, table).returncode == 0
    path = tmp_path / table / "_manifest.json"
    data = json.loads(path.read_text())
    data["figures"]["period"]["period"] = 17  # a period the values do not have
    path.write_text(json.dumps(data))
    result = tablebase("verify", "--db", tmp_path, table)
    assert result.returncode == 1 and "period recorded" in result.stdout + result.stderr


def test_a_build_whose_last_blocks_are_lost_resumes_to_the_same_files(tmp_path, scheduler):
    """Three blocks of heaps; the last two removed as a killed build leaves them (no file, no record):
    the build resumes from the stored values of the first and writes the same files."""
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    table = build(whole, scheduler, "0.16", 150_000, "--partition-rows", "65536")
    build(cut, scheduler, "0.16", 150_000, "--partition-rows", "65536")
    path = cut / table / "_manifest.json"
    data = json.loads(path.read_text())
    for name in sorted(data["files"])[1:]:
        (cut / table / name).unlink()
        del data["files"][name]
    data["levels_done"], data["complete"], data["figures"], data["probe"] = [[0, 0]], False, {}, {}
    path.write_text(json.dumps(data))
    for name in list((cut / table).glob("*.probe*")):
        name.unlink()
    build(cut, scheduler, "0.16", 150_000, "--partition-rows", "65536")
    rows_files = {k: v for k, v in file_hashes(whole / table).items() if k.startswith("rows/")}
    assert len(rows_files) == 3
    assert {k: v for k, v in file_hashes(cut / table).items() if k.startswith("rows/")} == rows_files
    assert manifest(cut, table)["figures"] == manifest(whole, table)["figures"]
    values = pq.read_table(cut / table / sorted(rows_files)[2], columns=["grundy"]).column(0).to_pylist()
    assert len(values) == 150_001 - 2 * 65536


def test_figures_that_cannot_be_found_fail_the_build_in_one_line(tmp_path, scheduler):
    """The task that finds a table's figures reads its heaps back a file at a time and checks their order:
    a second block of rows that holds the first block's heaps (recorded as intact) stops the build with one
    line, not a traceback, and the table is not marked complete."""
    table = build(tmp_path, scheduler, "0.16", 150_000, "--partition-rows", "65536")
    path = tmp_path / table / "_manifest.json"
    data = json.loads(path.read_text())
    first, second = sorted(name for name in data["files"] if name.startswith("rows/"))[:2]
    (tmp_path / table / second).write_bytes((tmp_path / table / first).read_bytes())
    data["files"][second] = dict(data["files"][first])
    data["complete"], data["figures"] = False, {}
    path.write_text(json.dumps(data))
    result = tablebase("build", "octal", "--code", "0.16", "--max", "150000", "--out", tmp_path, "--scheduler",
                       scheduler, "--quiet", "--partition-rows", "65536")
    assert_clean_error(result, table, "finishing the table", "not 0..150000 in order")
    assert manifest(tmp_path, table)["complete"] is False


@pytest.mark.parametrize("code, why", [
    ("0.1x", "expected digits after a point"),
    ("1.5", "digit before the point"),
    ("0.0009", "three heaps"),
])
def test_a_bad_code_is_one_line(tmp_path, code, why):
    result = tablebase("build", "octal", "--code", code, "--max", "3000000", "--out", tmp_path)
    assert_clean_error(result)
    assert why in result.stderr
    assert not any(tmp_path.iterdir())


def test_a_heap_outside_the_table_is_one_line(small):
    root, tables = small
    result = tablebase("lookup", "--db", root, tables["0.16"], "5 81")
    assert result.returncode != 0 and "outside the table" in result.stderr and "Traceback" not in result.stderr


def test_the_table_is_named_after_the_code():
    from tablebase.build.jobs import spec_for

    assert spec_for("octal", {"code": ".137", "max": 100}).name == "octal_0_137_n100"
    assert spec_for("octal", {"code": "dawsons-chess", "max": 100}).name == "octal_0_137_n100"
    assert spec_for("octal", {"code": "0.F", "max": 9}).name == "octal_0_f_n9"


# -- many codes in one job, and their summary -------------------------------------------------
def proven_period(g: list[int], t: int, h: int) -> tuple[int, int, int] | None:
    """The least period the values prove by the Guy-Smith check (docs/octal.md, Winning Ways ch. 4), read
    again here: for p = 1, 2, ..., the least e >= 1 from which G(n + p) = G(n) up to the end, proven when
    the check's last heap h e + h p + t - 1 is among the values; preperiod 0 where G(p) = G(0) too."""
    top = len(g) - 1
    for p in range(1, top + 1):
        e = top - p + 1
        while e > 1 and g[e - 1] == g[e - 1 + p]:
            e -= 1
        at = h * e + h * p + t - 1
        if at <= top:
            return (0 if e == 1 and g[0] == g[p] else e), p, at
    return None


def test_a_job_of_codes_builds_a_table_each_and_a_summary_of_their_periods(tmp_path, scheduler):
    printed = job(tmp_path, scheduler, '''
[[table]]
game = "octal"
codes = "0.[0-7]7"
max = 400
summary = "octal_x7"
''')
    codes = [f"0.{d}7" for d in range(8)]
    assert printed[-1]["summary"] == "octal_x7" and printed[-1]["tables"] == len(codes)
    with tb_api.open(tmp_path) as tb:
        summary = {r["code"]: r for r in tb.sql("SELECT * FROM octal_x7").to_pylist()}
        assert sorted(summary) == codes
        for code in codes:
            row = summary[code]
            values = [r["grundy"] for r in tb.sql(f"SELECT grundy FROM {row['table']} ORDER BY key").to_pylist()]
            g = brute_heaps(code, 400)
            assert values == g
            expected = proven_period(g, *removal_and_heaps(code))
            found = None if row["period"] is None else (row["preperiod"], row["period"], row["proven_at"])
            assert found == expected, code
            assert row["heaps"] == 401 and row["largest"] == max(g) and row["complete"]
            assert row["stopped_at"] == (None if found is None or found[2] >= 400 else found[2])
    assert (summary["0.77"]["preperiod"], summary["0.77"]["period"]) == (71, 12)  # OEIS A002186
    assert (summary["0.07"]["preperiod"], summary["0.07"]["period"]) == (53, 34)  # A002187, one heap later


@pytest.mark.slow
def test_a_job_builds_codes_with_the_same_values_one_after_another_to_the_same_rows(tmp_path, scheduler):
    """.224, .225, .234 and .235 have one sequence of values (taking 2 or 3 whole changes no heap's value):
    a job builds them on one worker in turn, the later ones taking the first one's values, and each
    table's rows are those of the code built alone, best moves included."""
    (tmp_path / "job").mkdir()
    job(tmp_path / "job", scheduler, '''
[[table]]
game = "octal"
codes = "0.2[2-5][45]"
max = 300
''')
    for code in ("0.224", "0.225", "0.234", "0.235", "0.244", "0.245", "0.254", "0.255"):
        table = build(tmp_path / "alone", scheduler, code, 300)
        assert rows(tmp_path / "job", table) == rows(tmp_path / "alone", table), code
        assert [r["grundy"] for r in rows(tmp_path / "alone", table)] == brute_heaps(code, 300)


def test_codes_patterns_expand_to_each_game_once():
    from tablebase.games.octal import expand_codes

    assert len(expand_codes("all-3-digit")) == 8 ** 3  # 0.000 is 0.0, 0.120 is 0.12: each game once
    assert expand_codes("0.[137]6, .16") == ["0.16", "0.36", "0.76"]
    assert expand_codes("0.[0-2]") == ["0.0", "0.1", "0.2"]


@pytest.mark.parametrize("entry, why", [
    ('codes = "0.[x]"', "a class [x] holds digits"),
    ('codes = "0.[15]6"\nname = "one"', "'name' names one table"),
    ('codes = "0.16"\ncode = "0.16"', "not both"),
    ('codes = "0.[12]"\nsummary = "Not A Name"', "'summary' names a new table"),
])
def test_a_bad_job_entry_of_codes_is_one_line(tmp_path, entry, why):
    path = tmp_path / "job.toml"
    path.write_text(f'[[table]]\ngame = "octal"\nmax = 10\n{entry}\n')
    result = tablebase("build", "--job", path, "--out", tmp_path / "out")
    assert_clean_error(result)
    assert why in result.stderr
