"""The values table of partizan tables: closed under options, each form once, figures right,
the same bytes whatever the cluster, resumable, and checked by verify.

The files are read here with pyarrow alone; the figures are recomputed from
the stored options by the definitions (stops, birthday) or from the text
through the cgt parser.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import file_hashes
from helpers import tablebase as run_cli
from oracles import NUMBER_TEXT, stops_by_options

import tablebase
from tablebase.build import build_tables
from tablebase.build.jobs import spec_for
from tablebase.cgt import parse
from tablebase.store import Piece, with_levels


@pytest.fixture(scope="module")
def domineering(tmp_path_factory, scheduler) -> tuple[Path, str]:
    """Domineering up to 8 cells in 18 partitions, in a folder of its own (other tests use other partitions)."""
    root = tmp_path_factory.mktemp("values")
    spec = spec_for("domineering", {"max_cells": 8})
    list(build_tables([spec], root, scheduler=scheduler, partition_rows=40, quiet=True))
    return root, spec.name


def manifest(root: Path, table: str) -> dict:
    return json.loads((root / table / "_manifest.json").read_text())


def values_files(root: Path, table: str) -> list[Path]:
    return [root / table / name for name in sorted(manifest(root, table)["values"]["files"])]


def read_values(root: Path, table: str) -> list[dict]:
    return pa.concat_tables([pq.read_table(p) for p in values_files(root, table)]).to_pylist()


def read_rows(root: Path, table: str) -> list[dict]:
    out = []
    for path in sorted((root / table / "rows").glob("*.parquet")):
        out += pq.read_table(path, columns=["key", "value", "value_id", "level"]).to_pylist()
    return out


@pytest.mark.parametrize("which", ["domineering", "hackenbush"])
def test_closed_under_options_each_form_once(request, built, which):
    if which == "domineering":
        root, table = request.getfixturevalue("domineering")
    else:
        root, table = built("hackenbush", max_edges=5, colors="BRG", shape="tree")
    m = manifest(root, table)
    assert m["complete"] and m["values"]["pieces"] == {}
    assert not (root / table / "values" / "pieces").exists(), "the pieces are deleted once merged"
    for path in values_files(root, table):
        ids = pq.read_table(path, columns=["id"]).column("id").to_pylist()
        assert ids == sorted(set(ids)) and pq.read_metadata(path).num_rows == m["values"]["files"][
            str(path.relative_to(root / table))]["rows"]
    values = read_values(root, table)
    by_id = {v["id"]: v for v in values}
    assert len(by_id) == len(values)
    assert len({v["value"] for v in values}) == len(values)
    for v in values:
        for option in v["left_ids"] + v["right_ids"]:
            assert option in by_id, (v["value"], option)
    rows = read_rows(root, table)
    counts = Counter(r["value_id"] for r in rows)
    first = {}
    for r in rows:
        assert by_id[r["value_id"]]["value"] == r["value"]
        first[r["value_id"]] = min(first.get(r["value_id"], 99), r["level"])
    for v in values:
        assert (v["positions"], v["first_level"]) == (counts.get(v["id"], 0), first.get(v["id"]))
    if which == "domineering":
        # Some forms are options only: a view of the rows' values would miss exactly these.
        assert any(v["positions"] == 0 for v in values)


def test_each_form_parses_back_to_its_options(domineering):
    root, table = domineering
    values = read_values(root, table)
    text = {v["id"]: v["value"] for v in values}
    for v in values:
        g = parse(v["value"])
        assert str(g) == v["value"]
        assert [str(x) for x in g.left_options] == [text[i] for i in v["left_ids"]], v["value"]
        assert [str(x) for x in g.right_options] == [text[i] for i in v["right_ids"]], v["value"]


NUMBER = NUMBER_TEXT


def test_figures_by_the_definitions_and_the_algebra(domineering):
    """Stops and birthdays recomputed from the stored options; mean and temperature by cgt on a sample."""
    root, table = domineering
    values = read_values(root, table)
    by_id = {v["id"]: v for v in values}

    stops = stops_by_options(by_id)

    def birthday(i: int) -> int:
        options = by_id[i]["left_ids"] + by_id[i]["right_ids"]
        return 1 + max(map(birthday, options)) if options else 0

    for v in values:
        assert v["is_number"] == bool(NUMBER.fullmatch(v["value"])) == (v["temperature"] < 0)
        assert (Fraction(v["left_stop"]), Fraction(v["right_stop"])) == stops(v["id"]), v["value"]
        assert v["birthday"] == birthday(v["id"]), v["value"]
    for v in values[:: max(1, len(values) // 60)]:
        g = parse(v["value"])
        assert (Fraction(v["mean"]), Fraction(v["temperature"])) == (g.mean, g.temperature), v["value"]
        assert v["is_number"] == g.is_number and v["birthday"] == g.birthday


def test_the_view_and_stats_read_the_files(domineering):
    root, table = domineering
    values = read_values(root, table)
    with tablebase.open(root) as tb:
        view = tb.sql(f"SELECT * FROM {table}_values ORDER BY id").to_pylist()
        storage = {s.name: s.rows for s in tb.stats(table)}["storage"].to_pylist()[0]
    on_disk = sum(p.stat().st_size for p in (root / table).rglob("*.parquet"))
    assert storage["values_bytes"] == sum(p.stat().st_size for p in values_files(root, table)) > 0
    assert storage["row_bytes"] + storage["values_bytes"] == on_disk
    assert storage["bits_per_position"] == round(8 * on_disk / storage["positions"], 2)
    assert [v["id"] for v in view] == sorted(v["id"] for v in values)
    assert all(v["number"] == (v["value"] if v["is_number"] else None) for v in view)


def test_rebuilds_are_byte_identical_with_one_and_two_workers(domineering, tmp_path):
    root, table = domineering  # built on the session's cluster of two workers
    result = run_cli("build", "domineering", "--max-cells", 8, "--partition-rows", 40, "--workers", 1,
                     "--out", tmp_path, "--quiet")
    assert result.returncode == 0, result.stderr
    assert file_hashes(tmp_path / table) == file_hashes(root / table)


def _rebuild(root: Path, scheduler: str) -> dict:
    spec = spec_for("domineering", {"max_cells": 8})
    return list(build_tables([spec], root, scheduler=scheduler, partition_rows=40, quiet=True))[0]


def _mark_unfinished(folder: Path, drop: list[str], levels_from: int) -> None:
    m = json.loads((folder / "_manifest.json").read_text())
    for name in drop:
        (folder / name).unlink()
    m["complete"] = False
    # Levels done are kept as [first, last] ranges.
    m["levels_done"] = [[a, min(b, levels_from - 1)] for a, b in m["levels_done"] if a < levels_from]
    (folder / "_manifest.json").write_text(json.dumps(m))


def test_resume_after_losing_rows_or_values(domineering, tmp_path, scheduler):
    root, table = domineering
    shutil.copytree(root / table, tmp_path / table)
    before = file_hashes(tmp_path / table)
    # A lost partition while the values table is whole: only that partition is solved again.
    m = json.loads((tmp_path / table / "_manifest.json").read_text())
    lost = next(name for name in sorted(m["files"]) if Piece.of_name(name).first == 8 and Piece.of_name(name).part == 3)
    _mark_unfinished(tmp_path / table, [lost], 8)
    summary = _rebuild(tmp_path, scheduler)
    assert summary.partitions - summary.skipped_partitions == 1
    assert file_hashes(tmp_path / table) == before
    # A lost values file: its bucket is merged again from pieces that the partitions write again.
    _mark_unfinished(tmp_path / table, ["values/part-00000.parquet"], 99)
    _rebuild(tmp_path, scheduler)
    assert file_hashes(tmp_path / table) == before


def test_verify_checks_the_values_files(domineering, tmp_path):
    root, table = domineering
    shutil.copytree(root / table, tmp_path / table)
    victim = tmp_path / table / "values" / "part-00000.parquet"
    data = pq.read_table(victim)
    options = {i for v in read_values(root, table) for i in v["left_ids"] + v["right_ids"]}
    drop = next(i for i, x in enumerate(data.column("id").to_pylist()) if x in options)
    dropped = data.column("value")[drop].as_py()
    pq.write_table(pa.concat_tables([data.slice(0, drop), data.slice(drop + 1)]), victim)
    stray = tmp_path / table / "values" / "pieces" / "0000003-0000003.00000.parquet"
    stray.parent.mkdir()
    shutil.copy(victim, stray)
    result = run_cli("verify", "--db", tmp_path, table, "--quiet")
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert f"{table} values/part-00000.parquet: sha256 differs from the manifest" in out
    assert f"{table} values/pieces/0000003-0000003.00000.parquet: file is not in the manifest" in out
    assert "an option id is not a form of the table" in out
    assert f"a form is missing: {dropped}" in out


def test_buckets_split_the_ids_and_merge_alike(tmp_path):
    """Pieces of every partition merged into 1 or 3 files: the same forms, each file its own slice of ids."""
    from tablebase.builders import builder_of
    from tablebase.builders.values_build import ValuesBuild, merge_bucket
    from tablebase.games import make_game

    solver = builder_of(make_game("domineering", {"max_cells": 7})).solver()
    names, run = {}, []
    for level in range(2, 8):
        keys = solver.game.level_keys(level, 0, solver.game.level_size(level))
        rows = with_levels(solver.solve(keys), np.full(len(keys), level))
        solver.remember(level, rows.drop_columns(["level"]))
        if level <= 4:  # levels 2 to 4 share one file, as a run of small levels does
            run.append(rows)
            if level == 4:
                written = ValuesBuild().piece(solver, pa.concat_tables(run), str(tmp_path), "t", Piece(2, 4), False)
                names[written.pop("file")] = written
            continue
        for part, (a, b) in enumerate([(0, len(keys) // 2), (len(keys) // 2, len(keys))]):
            if b > a:
                piece = Piece(level, level, part, 2)
                written = ValuesBuild().piece(solver, rows.slice(a, b - a), str(tmp_path), "t", piece, False)
                names[written.pop("file")] = written
    merged = {}
    for buckets in (1, 3):
        files = [merge_bucket(str(tmp_path), "t", names, b, buckets)["file"] for b in range(buckets)]
        tables = [pq.read_table(tmp_path / "t" / f) for f in files]
        for b, t in enumerate(tables):
            ids = t.column("id").to_pylist()
            assert ids == sorted(set(ids))
            assert all(b * 2**63 // buckets <= i < (b + 1) * 2**63 // buckets for i in ids)
        merged[buckets] = pa.concat_tables(tables).to_pylist()
    assert merged[1] == merged[3] and len(merged[1]) > 20
    assert sum(v["positions"] for v in merged[1]) == sum(solver.game.level_size(n) for n in range(2, 8))
