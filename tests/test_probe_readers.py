"""The probe index of built tables, read by Python and by C, against the rows as DuckDB reads them.

The C reader is compiled here with the system's cc (-std=c99 -Wall -Werror) and run as a program; each
key's figures must be the same from both readers and from the Parquet rows.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from helpers import require
from probe_tables import (
    json_figures,
    mixed_rows,
    plain,
    same,
    stored_rows,
    synthetic_table,
)

import tablebase
from tablebase.probe import FILE_NAME, ProbeIndex
from tablebase.probe.format import DENSE, SPARSE

pytestmark = pytest.mark.slow  # the cluster, and a compiled program run as a process

READER = Path(__file__).parent.parent / "readers" / "c" / "tbprobe.c"
EXAMPLES = Path(__file__).parent.parent / "examples"
ALL_KEYS = 4000  # tables up to this many positions are probed at every key, larger ones at random keys
TABLES = {
    "chomp": ("chomp", {"rows": 5, "cols": 6, "partition_rows": 16}),
    "chomp_large": ("chomp", {"rows": 8, "cols": 9}),
    "nim": ("nim", {"heaps": 3, "max_heap": 9}),
    "wythoff": ("wythoff", {"max": 40}),
    "fibonacci": ("fibonacci-nim", {"max": 30}),
    "subtraction": ("subtraction", {"set": "1,3,4", "max": 300}),
    "domineering": ("domineering", {"max_cells": 8}),
    "cram": (f"{EXAMPLES / 'cram.py'}:Cram", {"rows": 3, "cols": 4}),
    "tanhinmin": ("tanhinmin", {"max_card": 3, "max_hand": 2}),
}


@pytest.fixture(scope="module")
def tbprobe(tmp_path_factory) -> Path:
    """The C reader's command, compiled as its header says."""
    cc = shutil.which("cc")
    require(None if cc is not None else "no C compiler: cc is not on PATH (install gcc to test the C reader)")
    out = tmp_path_factory.mktemp("c") / "tbprobe"
    subprocess.run([cc, "-O2", "-std=c99", "-Wall", "-Werror", "-DTBPROBE_MAIN", "-o", out, READER], check=True,
                   capture_output=True, text=True)
    return out


def rows_by_key(root: Path, table: str) -> dict[int, dict]:
    """Every row by key, from DuckDB over the Parquet files: the figures, without key, position, level."""
    with tablebase.open(root) as tb:
        rows = tb.sql(f"SELECT * EXCLUDE (position, level) FROM {table}").to_pylist()
    return {row.pop("key"): row for row in rows}


def probed_in_c(tbprobe: Path, path: Path, keys: list[int]) -> list[dict]:
    found = []
    for start in range(0, len(keys), 2000):
        result = subprocess.run([tbprobe, path, *map(str, keys[start : start + 2000])], capture_output=True,
                                text=True, check=True)
        found += [json.loads(line) for line in result.stdout.splitlines()]
    return found


def keys_to_probe(rows: dict[int, dict], index: ProbeIndex) -> tuple[list[int], list[int]]:
    """Stored keys (all, or a random few thousand) and keys that are not stored."""
    stored = sorted(rows)
    if len(stored) > ALL_KEYS:
        stored = random.Random(len(stored)).sample(stored, ALL_KEYS)
    held = set(rows)
    top = max(rows) + 1
    absent = [k for k in range(min(top, 5000)) if k not in held][:50] + [top, top + 7, 2**63 - 1]
    absent += [k + 1 for k in sorted(rows)[:200] if k + 1 not in held][:50]
    return stored, absent


@pytest.mark.parametrize("name", sorted(TABLES))
def test_python_and_c_read_every_figure_the_rows_hold(built, tbprobe, name):
    ref, params = TABLES[name]
    root, table = built(ref, **params)
    rows = rows_by_key(root, table)
    path = root / table / FILE_NAME
    with ProbeIndex(path) as index:
        stored, absent = keys_to_probe(rows, index)
        assert index.header.positions == len(rows)
        python = [index.probe(k) for k in stored + absent]
        columns = index.probe_many(np.array(stored + absent, dtype=np.int64))
    c = probed_in_c(tbprobe, path, stored + absent)
    for i, key in enumerate(stored):
        assert same(python[i], rows[key]), (key, python[i], rows[key])
        assert c[i]["key"] == key and c[i]["found"] is True
        assert same(json_figures(c[i]), rows[key]), (key, c[i], rows[key])
        for figure, value in rows[key].items():
            column = columns[figure]
            assert same(None if np.ma.getmaskarray(column)[i] else plain(column.data[i]), value), (key, figure)
    for i, key in enumerate(absent, len(stored)):
        assert python[i] is None and c[i] == {"key": key, "found": False}
        assert not columns["found"][i]


def test_layouts_and_sizes_of_built_tables(built):
    def header(ref: str, **params):
        root, table = built(ref, **params)
        with ProbeIndex(root / table / FILE_NAME) as index:
            return index.header, (root / table / FILE_NAME).stat().st_size / index.header.positions

    chomp, chomp_bytes = header(*TABLES["chomp_large"][:1], **TABLES["chomp_large"][1])
    assert chomp.layout == DENSE and chomp.absent != 2**64 - 1 and chomp.slots == 24310  # C(17, 8), key 0 absent
    assert chomp_bytes <= 3
    domineering, _ = header(*TABLES["domineering"][:1], **TABLES["domineering"][1])
    assert domineering.layout == SPARSE and domineering.key_bytes == 8
    nim, _ = header(*TABLES["nim"][:1], **TABLES["nim"][1])
    assert nim.layout == DENSE and nim.absent == 2**64 - 1  # every key of the space is a position


def test_the_build_records_the_index_and_writes_the_same_bytes_whatever_its_files(built, scheduler, tmp_path):
    from tablebase.build import build_tables
    from tablebase.build.jobs import spec_for

    root, table = built("chomp", rows=5, cols=6, partition_rows=16)
    list(build_tables([spec_for("chomp", {"rows": 5, "cols": 6})], tmp_path, scheduler=scheduler,
                      partition_rows=1000, quiet=True))
    first, second = root / table / FILE_NAME, tmp_path / table / FILE_NAME
    assert len(list((root / table / "rows").glob("*.parquet"))) > len(list((tmp_path / table / "rows").glob("*")))
    assert first.read_bytes() == second.read_bytes()
    with tablebase.open(root) as tb:
        manifest = tb.manifest(table)
    record = manifest.probe[FILE_NAME]
    assert record["rows"] == manifest.positions and record["bytes"] == first.stat().st_size
    assert record["sha256"] == hashlib.sha256(first.read_bytes()).hexdigest()


def test_a_resumed_build_that_builds_nothing_keeps_its_index(scheduler, tmp_path):
    from tablebase.build import build_tables
    from tablebase.build.jobs import spec_for

    spec = spec_for("wythoff", {"max": 20})
    list(build_tables([spec], tmp_path, scheduler=scheduler, quiet=True))
    path = tmp_path / spec.name / FILE_NAME
    made = path.stat().st_mtime_ns
    list(build_tables([spec], tmp_path, scheduler=scheduler, quiet=True))
    assert path.stat().st_mtime_ns == made
    path.unlink()  # a lost index is written again by the next run
    list(build_tables([spec], tmp_path, scheduler=scheduler, quiet=True))
    assert path.is_file()


def test_the_c_command_refuses_bad_input_in_one_line(built, tbprobe, tmp_path):
    root, table = built(*TABLES["nim"][:1], **TABLES["nim"][1])
    good = root / table / FILE_NAME
    for args, words in [([good, "x7"], "not a key"), ([good, "-1"], "not a key"),
                        ([tmp_path / "none.tbi", "1"], "cannot open"), ([good], "usage")]:
        result = subprocess.run([tbprobe, *args], capture_output=True, text=True, check=False)
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1 and words in result.stderr
    damaged = tmp_path / "damaged.tbi"
    data = bytearray(good.read_bytes())
    data[70] ^= 1  # inside the header: its CRC no longer holds
    damaged.write_bytes(bytes(data))
    result = subprocess.run([tbprobe, damaged, "1"], capture_output=True, text=True, check=False)
    assert result.returncode == 2 and "the header's CRC-32 differs" in result.stderr and not result.stdout
    timed = subprocess.run([tbprobe, "--time", good, "100000"], capture_output=True, text=True, check=True)
    report = json.loads(timed.stdout)
    assert report["probes"] == report["found"] == 100000 and report["ns_per_probe"] > 0


@pytest.mark.parametrize("distinct, sparse", [(0, False), (2, False), (0, True), (2, True)])
def test_c_reads_every_figure_type_as_stored(tbprobe, tmp_path, distinct, sparse):
    keys = np.arange(1, 1500, dtype=np.int64) * (2**37 + 1 if sparse else 1)
    synthetic_table(tmp_path, "mixed", mixed_rows(keys[keys % 5 != 0] if not sparse else keys, distinct=distinct))
    rows = stored_rows(tmp_path, "mixed")
    absent = [0, 5, 10**6, 2**63 - 1] if not sparse else [0, 5, int(keys[3]) + 1, 2**63 - 1]
    c = probed_in_c(tbprobe, tmp_path / "mixed" / FILE_NAME, [*rows, *absent])
    for found, (key, row) in zip(c, rows.items()):
        assert found["found"] and same(json_figures(found), row), (key, found, row)
    assert [found["found"] for found in c[len(rows):]] == [False] * len(absent)


def test_c_reads_raw_floats_and_records_wider_than_64_bits(tbprobe, tmp_path, monkeypatch):
    from tablebase.store.probe import codes

    monkeypatch.setattr(codes, "FLOATS_LISTED", 8)
    monkeypatch.setattr(codes, "INTEGERS_LISTED", 8)
    rng = np.random.default_rng(11)
    keys = np.arange(3, 900, dtype=np.int64)
    rows = pa.table({"key": keys, "x": pa.array(rng.normal(size=len(keys)), mask=keys % 13 == 0),
                     "a": pa.array(rng.integers(-2**40, 2**40, len(keys))),
                     "b": pa.array(rng.integers(0, 2**62, len(keys)), pa.uint64()),
                     "level": pa.array(np.zeros(len(keys), np.int32))})
    synthetic_table(tmp_path, "wide", rows)
    stored = stored_rows(tmp_path, "wide")
    c = probed_in_c(tbprobe, tmp_path / "wide" / FILE_NAME, [0, 1, 2, *stored])
    assert [found["found"] for found in c[:3]] == [False] * 3
    for found, (key, row) in zip(c[3:], stored.items()):
        assert same(json_figures(found), row), (key, found, row)
