"""The probe index of built tables, read by Python and by C, against the rows as DuckDB reads them.

The C reader is compiled here with the system's cc (-std=c99 -Wall -Werror) and run as a program; each
key's figures must be the same from both readers and from the Parquet rows. A figure found by the children
(an impartial table's best move) is in neither reader's record: it is checked against the rows through
``Tablebase.probe``, which finds it so.
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
from index_seeds import make_seeds
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
from tablebase.probe.format import DENSE, NONE, SPARSE

pytestmark = pytest.mark.slow  # the cluster, and a compiled program run as a process

READER = Path(__file__).parent.parent / "readers" / "c" / "tbprobe.c"
EXAMPLES = Path(__file__).parent.parent / "examples"
ALL_KEYS = 4000  # tables up to this many positions are probed at every key, larger ones at random keys
BY_CHILDREN_KEYS = 400  # stored keys whose figures found by the children are checked through Tablebase.probe
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


def rows_by_key(root: Path, table: str) -> tuple[dict[int, dict], dict[int, str]]:
    """Every row by key, from DuckDB over the Parquet files: the figures (without key, position, level), and
    each key's position."""
    with tablebase.open(root) as tb:
        rows = tb.sql(f"SELECT * EXCLUDE (level) FROM {table}").to_pylist()
    positions = {row["key"]: row.pop("position") for row in rows}
    return {row.pop("key"): row for row in rows}, positions


def probed_in_c(tbprobe: Path, path: Path, keys: list[int]) -> list[dict]:
    found = []
    for start in range(0, len(keys), 2000):
        result = subprocess.run([tbprobe, path, *map(str, keys[start : start + 2000])], capture_output=True,
                                text=True, check=True)
        found += [json.loads(line) for line in result.stdout.splitlines()]
    return found


def checked_in_c(tbprobe: Path, path: Path) -> dict:
    """What ``tbprobe --check`` says of a sound index."""
    return json.loads(subprocess.run([tbprobe, "--check", path], capture_output=True, text=True, check=True).stdout)


def keys_to_probe(rows: dict[int, dict]) -> tuple[list[int], list[int]]:
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
    rows, positions = rows_by_key(root, table)
    path = root / table / FILE_NAME
    with ProbeIndex(path) as index:
        stored, absent = keys_to_probe(rows)
        assert index.positions == len(rows)
        python = [index.probe(k) for k in stored + absent]
        columns = index.probe_many(np.array(stored + absent, dtype=np.int64))
        by_children, names, about, segments = index.by_children, index.names, index.about, index.directory.segments
    assert checked_in_c(tbprobe, path) == {"segments": segments, "positions": len(rows), "damaged": 0,
                                           "figures": names, "not_available": by_children, "about": about}
    c = probed_in_c(tbprobe, path, stored + absent)
    for i, key in enumerate(stored):
        want = {f: v for f, v in rows[key].items() if f not in by_children}
        assert same(python[i], want), (key, python[i], want)
        assert c[i]["key"] == key and c[i]["found"] is True
        assert same(json_figures(c[i]), want), (key, c[i], want)
        for figure, value in want.items():
            column = columns[figure]
            assert same(None if np.ma.getmaskarray(column)[i] else plain(column.data[i]), value), (key, figure)
    for i, key in enumerate(absent, len(stored)):
        assert python[i] is None and c[i] == {"key": key, "found": False}
        assert not columns["found"][i]
    games = [ref] if ":" in ref else []  # a game from a file runs where it is named
    with tablebase.open(root, games=games) as tb:  # what neither reader holds, found by the children
        for key in stored[:BY_CHILDREN_KEYS] if by_children else []:
            probed = tb.probe(table, positions[key])
            assert all(same(probed[f], rows[key][f]) for f in by_children), (key, probed, rows[key])


def test_c_reads_every_layout_coding_and_rule_as_the_rows(tbprobe, tmp_path):
    """The fuzzer's seeds: dense and sparse, codings fields, dictionary and two widths, keys that are no
    position, records wider than 64 bits, the derived figures, several segments in two files."""
    for seed in make_seeds(tmp_path):
        path = seed.folder / FILE_NAME
        with ProbeIndex(path) as index:
            hidden = index.by_children
        top = seed.stored[-1]
        absent = sorted({0, top + 1, top + 99, 2**63 - 1, 2**64 - 1, *(k + 1 for k in seed.stored[:300])} -
                        set(seed.rows))
        c = probed_in_c(tbprobe, path, [*seed.rows, *absent])
        for found, (key, row) in zip(c, seed.rows.items()):
            want = {f: v for f, v in row.items() if f not in hidden}
            assert found["found"] and same(json_figures(found), want), (seed.name, key, found, want)
        assert [found["found"] for found in c[len(seed.rows):]] == [False] * len(absent), seed.name
        assert checked_in_c(tbprobe, path)["segments"] == len(seed.segments)


API_PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include "tbprobe.h"

/* Each segment's keys, slot by slot, and whether each is a position; the figures and which the index holds. */
int main(int argc, char **argv) {
    char error[256];
    tb_index *index = tb_open(argv[1], error, sizeof error);
    if (!index) { fprintf(stderr, "%s\n", error); return 2; }
    tb_value *values = calloc((size_t)tb_figures(index), sizeof *values);
    for (int f = 0; f < tb_figures(index); f++)
        printf("figure %s %d %d\n", tb_figure_name(index, f), tb_figure_type(index, f), tb_figure_available(index, f));
    for (uint64_t i = 0; i < tb_segments(index); i++) {
        tb_segment_info info;
        if (tb_segment(index, i, &info) != 0) { fprintf(stderr, "%s\n", tb_error(index)); return 2; }
        printf("segment %llu %llu %llu %d\n", (unsigned long long)info.first, (unsigned long long)info.last,
               (unsigned long long)info.slots, info.dense);
        uint64_t key;
        for (uint64_t slot = 0; tb_key_at(index, i, slot, &key) == 1; slot++)
            printf("key %llu %d\n", (unsigned long long)key, tb_probe(index, key, values));
    }
    printf("check %llu\n", (unsigned long long)tb_check(index));
    free(values);
    tb_close(index);
    return 0;
}
"""


def test_the_c_api_as_its_header_shows_it(tmp_path):
    """A program of its own on the reader's functions: segments, their slots' keys, figures not in the index."""
    cc = shutil.which("cc")
    require(None if cc is not None else "no C compiler: cc is not on PATH (install gcc to test the C reader)")
    source = tmp_path / "api.c"
    source.write_text(API_PROGRAM)
    program = tmp_path / "api"
    subprocess.run([cc, "-O2", "-std=c99", "-Wall", "-Werror", f"-I{READER.parent}", "-o", program, source, READER],
                   check=True, capture_output=True, text=True)
    for seed in make_seeds(tmp_path / "seeds"):
        lines = subprocess.run([program, seed.folder / FILE_NAME], capture_output=True, text=True,
                               check=True).stdout.splitlines()
        with ProbeIndex(seed.folder / FILE_NAME) as index:
            figures = [f"figure {f.name} {f.type} {int(f.name not in index.by_children)}"
                       for f in index.directory.figures]
            want = list(figures)
            for i in range(index.directory.segments):
                s, last = index.segment(i).s, index.segment(i).last
                want.append(f"segment {s.first} {last} {s.slots} {int(s.layout == DENSE)}")
                keys = range(s.first, last + 1) if s.layout == DENSE else [s.first + k for k in index.segment(i).keys]
                want += [f"key {k} {int(k in seed.rows)}" for k in keys]
        assert lines == [*want, "check 0"], seed.name


def _segments(path: Path) -> tuple[list, float]:
    """The segments of an index, and its bytes a position (the directory and every segment file)."""
    with ProbeIndex(path) as index:
        segments = [index.segment(i).s for i in range(index.directory.segments)]
        positions = index.positions
    size = path.stat().st_size + sum(p.stat().st_size for p in (path.parent / "probe").iterdir())
    return segments, size / positions


def test_layouts_and_sizes_of_built_tables(built):
    def segments(name: str) -> tuple[list, float]:
        root, table = built(TABLES[name][0], **TABLES[name][1])
        return _segments(root / table / FILE_NAME)

    chomp, chomp_bytes = segments("chomp_large")
    assert {s.layout for s in chomp} == {DENSE} and sum(s.slots for s in chomp) == 24310  # C(17, 8)
    assert chomp[0].first == 0 and chomp[0].absent != NONE  # key 0, the empty bar, is no position
    assert chomp_bytes <= 3
    domineering, _ = segments("domineering")
    assert SPARSE in {s.layout for s in domineering}
    nim, _ = segments("nim")
    assert {s.layout for s in nim} == {DENSE} and {s.absent for s in nim} == {NONE}  # every key a position


def test_the_build_records_the_index_and_writes_the_same_bytes_whatever_its_files(built, scheduler, tmp_path):
    from tablebase.build import build_tables
    from tablebase.build.jobs import spec_for

    root, table = built("chomp", rows=5, cols=6, partition_rows=16)
    list(build_tables([spec_for("chomp", {"rows": 5, "cols": 6})], tmp_path, scheduler=scheduler,
                      partition_rows=1000, quiet=True))
    first, second = root / table / FILE_NAME, tmp_path / table / FILE_NAME
    assert len(list((root / table / "rows").glob("*.parquet"))) > len(list((tmp_path / table / "rows").glob("*")))
    assert first.read_bytes() == second.read_bytes()
    for segment_file in (root / table / "probe").iterdir():
        assert segment_file.read_bytes() == (tmp_path / table / "probe" / segment_file.name).read_bytes()
    with tablebase.open(root) as tb:
        manifest = tb._manifest(table)
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


def _refused(tbprobe: Path, *args: object) -> str:
    """The C command's one line on stderr, with exit status 2."""
    result = subprocess.run([tbprobe, *args], capture_output=True, text=True, check=False)
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, (args, result)
    return result.stderr


def test_the_c_command_refuses_bad_input_in_one_line(built, tbprobe, tmp_path):
    root, table = built(*TABLES["nim"][:1], **TABLES["nim"][1])
    good = root / table / FILE_NAME
    for args, words in [([good, "x7"], "not a key"), ([good, "-1"], "not a key"),
                        ([good, "18446744073709551616"], "not a key"), ([tmp_path / "none.tbi", "1"], "cannot open"),
                        ([tmp_path, "1"], "not a regular file"), ([good], "usage"), (["--check"], "usage")]:
        assert words in _refused(tbprobe, *args), args
    copy = tmp_path / table
    shutil.copytree(root / table, copy)
    index = copy / FILE_NAME
    data = bytearray(good.read_bytes())
    data[70] ^= 1  # inside the about text: the directory's CRC no longer holds
    index.write_bytes(bytes(data))
    assert "the directory's CRC-32 differs" in _refused(tbprobe, index, "1")
    data[70] ^= 1
    data[8:10] = (1).to_bytes(2, "little")
    index.write_bytes(bytes(data))
    assert "format 1, this reader reads 2; write it again with tablebase index" in _refused(tbprobe, index, "1")
    index.write_bytes(good.read_bytes())
    segment_file = sorted((copy / "probe").iterdir())[0]
    damaged = bytearray(segment_file.read_bytes())
    damaged[100] ^= 0x10  # inside the first segment: its CRC no longer holds, found when a probe touches it
    segment_file.write_bytes(bytes(damaged))
    result = subprocess.run([tbprobe, index, "0", "1"], capture_output=True, text=True, check=False)
    assert result.returncode == 2 and result.stdout == "" and result.stderr.count("\n") == 1
    assert "segment 0 in " in result.stderr and "its CRC-32 differs" in result.stderr
    checked = _refused(tbprobe, "--check", index)
    assert "segments damaged" in checked and "its CRC-32 differs" in checked
    segment_file.unlink()
    assert "cannot open the probe index's segment file" in _refused(tbprobe, index, "1")
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
    from tablebase.probe_writer import fields

    monkeypatch.setattr(fields, "FLOATS_LISTED", 8)
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


def test_a_null_whose_code_is_all_ones_is_a_position_in_both_readers(tbprobe, tmp_path, monkeypatch):
    """A float kept as its own 64 bits, alone in its record, whose null's code is 2^64 - 1: the segment's
    absent code is NONE (every slot a position), so that record is a null, not a key that is no position."""
    from tablebase.probe_writer import fields

    monkeypatch.setattr(fields, "FLOATS_LISTED", 4)
    keys = np.arange(50)
    rows = pa.table({"key": keys, "x": pa.array(np.random.default_rng(0).normal(size=50), mask=keys == 3),
                     "level": pa.array(np.zeros(50, np.int32))})
    synthetic_table(tmp_path, "raw", rows)
    stored = stored_rows(tmp_path, "raw")
    path = tmp_path / "raw" / FILE_NAME
    with ProbeIndex(path) as index:
        segment = index.segment(0).s
        assert segment.long_bits == 64 and segment.absent == NONE and segment.fields[0].null == NONE
        assert [index.probe(k) for k in range(6)] == [stored[k] for k in range(6)]
        assert index.probe_many(np.arange(50))["found"].all()
    c = probed_in_c(tbprobe, path, list(range(6)))
    assert all(same(json_figures(found), stored[k]) for k, found in enumerate(c))
