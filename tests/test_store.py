"""What a build leaves on disk: layout, manifest, byte-identical rebuilds, resume, atomicity."""

from __future__ import annotations

import hashlib
import json

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import assert_clean_error, file_hashes, tablebase

from tablebase.build import build_tables
from tablebase.build.jobs import spec_for
from tablebase.store import Manifest, Piece, write_parquet


def build(root, scheduler, partition_rows=50, **params):
    spec = spec_for("nim", params or dict(heaps=3, max_heap=9))
    return list(build_tables([spec], root, scheduler=scheduler, partition_rows=partition_rows, quiet=True))[0]


def test_layout_and_manifest(tmp_path, scheduler):
    summary = build(tmp_path, scheduler)
    table = tmp_path / "nim_3x9"
    m = json.loads((table / "_manifest.json").read_text())
    assert (m["game"], m["params"], m["complete"]) == ("nim", {"heaps": 3, "max_heap": 9}, True)
    assert m["levels_done"] == [[0, 27]]  # as ranges of levels
    assert Manifest.load(tmp_path, "nim_3x9").levels_done == list(range(28))
    assert sum(f["rows"] for f in m["files"].values()) == summary.positions == 220  # C(12, 3)
    levels_seen = []
    for name, record in sorted(m["files"].items()):
        path = table / name
        assert name.startswith("rows/") and path.suffix == ".parquet"
        data = pq.read_table(path)
        rows = list(zip(data.column("level").to_pylist(), data.column("key").to_pylist()))
        assert rows == sorted(set(rows)) and len(rows) == record["rows"]
        first, last = (int(n) for n in path.stem.split(".")[0].split("-"))
        assert {level for level, _ in rows} <= set(range(first, last + 1))
        levels_seen += sorted({level for level, _ in rows})
        metadata = pq.ParquetFile(path).metadata
        assert metadata.row_group(0).column(0).compression == "ZSTD"
        level_column = metadata.schema.names.index("level")
        assert metadata.row_group(0).column(level_column).statistics.min == rows[0][0]
    assert sorted(set(levels_seen)) == list(range(28))
    # Small levels share files, large ones (a quarter partition or more) are cut in two.
    assert len(levels_seen) > len(set(levels_seen)) and len(m["files"]) < 28
    assert not [p for p in table.rglob("*") if "tmp" in p.name or p.name == ".lock"]


def test_rebuilds_are_byte_identical_whatever_the_cluster(tmp_path, scheduler):
    build(tmp_path / "a", scheduler)
    # A fresh LocalCluster of one worker, through the command line.
    result = tablebase(
        "build", "nim", "--heaps", 3, "--max-heap", 9, "--out", tmp_path / "b", "--workers", 1,
        "--partition-rows", 50, "--quiet",
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert file_hashes(tmp_path / "a") == file_hashes(tmp_path / "b")


def test_resume_recomputes_only_what_is_missing(tmp_path, scheduler):
    build(tmp_path, scheduler)
    table = tmp_path / "nim_3x9"
    before = file_hashes(tmp_path)
    m = Manifest.load(tmp_path, "nim_3x9")
    # As a killed build leaves it: some files gone, the manifest not complete.
    lost = sorted({p.name for level in (14, 27) for p in m.layout().of_level(level)})
    for name in lost:
        (table / name).unlink()
    m.complete = False
    m.levels_done = [lvl for lvl in m.levels_done if lvl < min(Piece.of_name(name).first for name in lost)]
    m.save(tmp_path)
    summary = build(tmp_path, scheduler)
    assert summary.skipped_partitions == summary.partitions - len(lost)
    assert file_hashes(tmp_path) == before


def test_a_table_built_with_other_options_is_not_overwritten(tmp_path, scheduler):
    build(tmp_path, scheduler)
    before = file_hashes(tmp_path)
    result = tablebase(
        "build", "nim", "--heaps", 3, "--max-heap", 9, "--out", tmp_path, "--partition-rows", 7,
        "--scheduler", scheduler,
    )
    assert result.returncode == 2 and "partitions of 50" in result.stderr
    assert file_hashes(tmp_path) == before


def test_narrow_integers_are_split_into_byte_streams_and_read_back_alike(tmp_path):
    rng = np.random.default_rng(3)
    n = 5000
    rows = pa.table({
        "key": pa.array(np.arange(n) * 7, pa.int64()),
        "grundy": pa.array(rng.integers(0, 256, n).astype(np.uint8)),
        "plies": pa.array(rng.integers(-300, 300, n).astype(np.int16)),
        "score": pa.array(rng.integers(-100, 100, n).astype(np.int8)),
        "moves": pa.array(rng.integers(0, 60000, n).astype(np.uint16)),
        "value_id": pa.array(rng.integers(0, 2**40, n), pa.int64()),
    })
    path = tmp_path / "rows.parquet"
    write_parquet(rows, path)
    meta = pq.ParquetFile(path).metadata.row_group(0)
    encodings = {meta.column(i).path_in_schema: meta.column(i).encodings for i in range(meta.num_columns)}
    for narrow in ("grundy", "plies", "score", "moves"):
        assert "BYTE_STREAM_SPLIT" in encodings[narrow], narrow
    assert "BYTE_STREAM_SPLIT" not in encodings["value_id"] and "DELTA_BINARY_PACKED" in encodings["key"]
    assert pq.read_table(path).equals(rows)
    through_duckdb = duckdb.sql(f"SELECT * FROM '{path}' ORDER BY key").to_arrow_table()
    assert through_duckdb.to_pylist() == rows.to_pylist()


def test_a_table_of_another_format_is_refused_in_one_line(tmp_path, scheduler):
    build(tmp_path, scheduler)
    path = tmp_path / "nim_3x9" / "_manifest.json"
    m = json.loads(path.read_text())
    m["format"] = 2  # one file per level, in folders named by level
    path.write_text(json.dumps(m))
    before = file_hashes(tmp_path)
    for args in (("lookup", "--db", tmp_path, "nim_3x9", "1 2 3"), ("verify", "--db", tmp_path, "nim_3x9"),
                 ("build", "nim", "--heaps", 3, "--max-heap", 9, "--out", tmp_path, "--partition-rows", 50,
                  "--scheduler", scheduler)):
        result = tablebase(*args)
        assert_clean_error(result, "format 2", "format 3", "rebuild")
    assert file_hashes(tmp_path) == before


def test_written_files_are_synced_each_by_itself_not_the_whole_system(tmp_path, monkeypatch):
    """A build syncs the files it wrote, and their folders once each, before recording them; a sync of every
    file on the machine would wait for other programs' writes too."""
    import os

    from tablebase.store import flush_to_disk

    paths = [tmp_path / f"piece-{i}.parquet" for i in range(40)]
    for i, path in enumerate(paths):
        path.write_bytes(bytes([i]) * 1000)
    synced, real_fsync = [], os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(os.readlink(f"/proc/self/fd/{fd}")) or real_fsync(fd))
    monkeypatch.setattr(os, "sync", lambda: (_ for _ in ()).throw(AssertionError("the whole system synced")))
    (tmp_path / "level-1").mkdir()
    paths.append(tmp_path / "level-1" / "piece-0.parquet")
    paths[-1].write_bytes(b"x")
    flush_to_disk(paths)
    assert sorted(synced) == sorted(str(p) for p in [*paths, tmp_path, tmp_path / "level-1"])
    flush_to_disk([])
    assert len(synced) == len(paths) + 2


def test_a_listing_work_file_gives_back_its_rows_columns_and_metadata_and_names_itself_when_damaged(tmp_path):
    """The steps of a listing hand each other Arrow files by their records: rows as written, a column alone, the
    schema's metadata without the size the file carries for the step that sizes rows unread, which is the rows'
    own. A file whose bytes are not its record's is refused, naming it, and a damaged one too."""
    from tablebase.errors import StoreError
    from tablebase.store.work import read_work, read_work_described, work_problem, write_work

    rows = pa.table({"hash": pa.array([3, 1, 2], pa.uint64()), "moves0": [[1, 2], [], [7]]})
    rows = rows.replace_schema_metadata({b"tablebase.moves": b"m"})
    name = "_listing/share-000001-0000-0000.arrow"
    records = write_work(rows, tmp_path, "t", name)
    path = tmp_path / "t" / name
    assert records == {name: {"rows": 3, "bytes": path.stat().st_size,
                              "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}}
    back = read_work(tmp_path, "t", records)[0]
    assert back.equals(rows) and back.schema.metadata == {b"tablebase.moves": b"m"}
    assert read_work(tmp_path, "t", records, ["hash"])[0].column_names == ["hash"]
    (hashes, metadata, held), = read_work_described(tmp_path, "t", records, ["hash"])
    assert hashes.column_names == ["hash"] and metadata == {b"tablebase.moves": b"m"} and held == rows.nbytes
    assert work_problem(tmp_path, "t", name, records[name]) is None
    path.write_bytes(path.read_bytes()[:-20])
    for changed in (records, {name: {**records[name], "bytes": path.stat().st_size}}):
        with pytest.raises(StoreError, match="share-000001-0000-0000.arrow"):
            read_work(tmp_path, "t", changed)
    assert "is not the one its record names" in work_problem(tmp_path, "t", name, records[name])
