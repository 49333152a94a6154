"""A folder's manifests and Parquet files set to anything, their digests made right, as an attacker would.

Seeded mutations of a built folder: a manifest's fields given other types and
values (counts, names, nested records, huge numbers), or a rows file's bytes
changed, cut or grown (its record's bytes and sha256 made to match, so that
only reading it can tell). Whatever a reader then does (open the folder, list
its tables, SQL, lookups, probes, verify) ends in an answer or one of the
package's errors, never another exception; and the folder's other table
still answers. (The probe index has its own fuzzer: tests/test_probe_fuzz.py.)
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil

import pytest

import tablebase
from tablebase.checks.verify import verify_table
from tablebase.errors import TablebaseError

pytestmark = pytest.mark.slow  # builds on the cluster

CASES = 30
VALUES = [None, True, 0, -1, 1, 2**63, -(2**63), 2**64, 1e308, float("nan"), "", "x" * 300, "../../etc",
          "rows/../../x.parquet", [], [[]], {}, {"a": {"b": {}}}, [1, 2, 3], "0" * 64]


@pytest.fixture(scope="module")
def folder(tmp_path_factory, built):
    """Two small tables in a folder of their own: a dense one (with its probe index) and a partizan one."""
    out = tmp_path_factory.mktemp("fuzz")
    for game, params in (("chomp", {"rows": 3, "cols": 4}), ("domineering", {"max_cells": 5})):
        root, table = built(game, **params)
        shutil.copytree(root / table, out / table)
    return out


def answers(root, table: str, other: str) -> None:
    """Everything a reader may ask, each ending in an answer or a TablebaseError; the other table answers."""
    try:
        tb = tablebase.open(root)
    except TablebaseError:
        return
    with tb:
        for ask in (lambda: tb.tables(), lambda: tb.sql(f"SELECT count(*), min(key), max(key) FROM {table}"),
                    lambda: tb.lookup(table, "4 4 3"), lambda: tb.probe(table, "4 4 3"),
                    lambda: tb.lookup_many(table, ["4 4 3", "2 1"]), lambda: tb.stats(table)):
            try:
                ask()
            except TablebaseError:
                pass
        assert tb.sql(f"SELECT count(*) AS n FROM {other}").column("n").to_pylist()[0] > 0
    try:
        verify_table(root, table)
    except TablebaseError:
        pass


def _mutated(value, rng: random.Random):
    """A value of a manifest, changed at one place of its structure."""
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(sorted(value))
        return {**value, key: _mutated(value[key], rng)}
    if isinstance(value, list) and value and rng.random() < 0.7:
        i = rng.randrange(len(value))
        return [*value[:i], _mutated(value[i], rng), *value[i + 1:]]
    return rng.choice(VALUES)


@pytest.mark.parametrize("seed", range(CASES))
def test_a_manifest_set_to_anything_is_refused_or_read_never_a_crash(folder, tmp_path, seed):
    root = tmp_path / "f"
    shutil.copytree(folder, root)
    rng = random.Random(seed)
    table = rng.choice(["chomp_3x4", "domineering_c5"])
    other = "domineering_c5" if table == "chomp_3x4" else "chomp_3x4"
    path = root / table / "_manifest.json"
    data = json.loads(path.read_text())
    for _ in range(rng.randint(1, 3)):
        data = _mutated(data, rng)
    path.write_text(json.dumps(data) if rng.random() < 0.9 else json.dumps(data)[: rng.randrange(1, 200)])
    answers(root, table, other)


@pytest.mark.parametrize("seed", range(CASES))
def test_a_rows_file_changed_cut_or_grown_with_its_record_made_right_never_crashes(folder, tmp_path, seed):
    root = tmp_path / "f"
    shutil.copytree(folder, root)
    rng = random.Random(1000 + seed)
    table = rng.choice(["chomp_3x4", "domineering_c5"])
    other = "domineering_c5" if table == "chomp_3x4" else "chomp_3x4"
    manifest = json.loads((root / table / "_manifest.json").read_text())
    name = rng.choice(sorted(manifest["files"]))
    data = bytearray((root / table / name).read_bytes())
    how = rng.choice(["flip", "cut", "grow", "zero"])
    if how == "flip":
        for _ in range(rng.randint(1, 20)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif how == "cut":
        data = data[: rng.randrange(len(data))]
    elif how == "grow":
        data += bytes(rng.randrange(256) for _ in range(rng.randint(1, 5000)))
    else:
        start = rng.randrange(len(data))
        data[start : start + rng.randint(1, 64)] = bytes(min(64, len(data) - start))
    (root / table / name).write_bytes(bytes(data))
    manifest["files"][name].update(bytes=len(data), sha256=hashlib.sha256(bytes(data)).hexdigest())
    (root / table / "_manifest.json").write_text(json.dumps(manifest))
    answers(root, table, other)
