"""What a folder's store says is checked, never believed.

A manifest may name only files inside its table's folder; a resumed build
checks each kept file's sha256; verify checks each file's rows; SQL reads
exactly the files a manifest records; a table may not be named as another's
view; a sub-folder that is not a readable table is set aside; and running a
finished plain game's build again works. Each case is a folder edited as a
stranger, a killed build or a flipped bit would leave it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import assert_clean_error, copy_table, file_hashes
from helpers import tablebase as cli

import tablebase
from tablebase.build import build_tables
from tablebase.build.jobs import spec_for
from tablebase.errors import StoreError, TablebaseError

pytestmark = pytest.mark.slow  # the command or other processes: see conftest.py

CRAM = f"{Path(__file__).resolve().parent.parent / 'examples' / 'cram.py'}:Cram"


def _edit(folder: Path, change) -> None:
    """Change a table's manifest as a dict."""
    manifest = folder / "_manifest.json"
    data = json.loads(manifest.read_text())
    change(data)
    manifest.write_text(json.dumps(data))


def _rename_record(records: dict, new: str) -> None:
    old = sorted(records)[0]
    records[new] = records.pop(old)


# -- 4. every name a manifest gives stays in its folder ------------------------------------------------
@pytest.fixture
def escaping(built, tmp_path) -> tuple[Path, dict[str, str]]:
    """A folder of a good table and tables whose manifests name files outside their folder: rows by an
    absolute path (to a real file of rows) or by ``..``, the listing's, the values table's, a rows file
    that is a symlink out, and a table folder that is a symlink out. Returns the folder and each bad
    table's name -> the path it names."""
    nim, nim_table = built("nim", heaps=2, max_heap=3)
    hack, hack_table = built("hackenbush", max_edges=4, colors="BR", shape="stalk")
    root, elsewhere = tmp_path / "db", tmp_path / "elsewhere"
    root.mkdir()
    shutil.copytree(nim / nim_table, elsewhere)  # a real table's files, outside the folder
    outside = str(sorted((elsewhere / "rows").iterdir())[0])
    copy_table(nim / nim_table, root, "good")
    names = {"absolute": outside, "dotdot": "../good/rows/x.parquet", "listing": "_listing/../../x.parquet",
             "values": outside}
    for name in ("absolute", "dotdot", "listing"):
        copy_table(nim / nim_table, root, name)
    copy_table(hack / hack_table, root, "values")
    _edit(root / "absolute", lambda m: _rename_record(m["files"], names["absolute"]))
    _edit(root / "dotdot", lambda m: _rename_record(m["files"], names["dotdot"]))
    _edit(root / "listing", lambda m: m["listing"].update(files={names["listing"]: {"rows": 1, "bytes": 1,
                                                                                     "sha256": "0" * 64}}))
    _edit(root / "values", lambda m: _rename_record(m["values"]["files"], names["values"]))
    linked = copy_table(nim / nim_table, root, "linked")
    first = sorted((linked / "rows").iterdir())[0]
    first.unlink()
    first.symlink_to(outside)
    names["linked"] = str(first.relative_to(linked))
    (root / "folder").symlink_to(elsewhere, target_is_directory=True)
    names["folder"] = "folder"
    return root, names


def test_names_outside_the_folder_refuse_the_table(escaping):
    """Each such table is set aside with one line naming the path; the good table answers SQL and lookups."""
    root, names = escaping
    with tablebase.open(root) as tb:
        assert set(tb._every_manifest) == {"good"}
        assert set(tb.unreadable) == set(names)
        for name, path in names.items():
            assert "leads outside" in tb.unreadable[name] and repr(path) in tb.unreadable[name], name
            with pytest.raises(StoreError, match="leads outside"):
                tb.lookup(name, "1 2")
        assert tb.lookup("good", "1 2")["grundy"] == 3
        assert tb.sql("SELECT count(*) AS n FROM good").column("n").to_pylist() == [10]


def test_names_outside_the_folder_on_the_command_line(escaping):
    root, names = escaping
    assert_clean_error(cli("lookup", "--db", root, "absolute", "1 2"), "absolute", names["absolute"], "leads outside")
    assert_clean_error(cli("verify", "--db", root, "values"), "values", "leads outside")
    listed = cli("tables", "--db", root, "--json")
    assert listed.returncode == 0 and [t["table"] for t in json.loads(listed.stdout)] == ["good"]
    assert len(listed.stderr.splitlines()) == len(names) and "leads outside" in listed.stderr


# -- 5. resume, verify and SQL check the files -----------------------------------------------------------
def test_a_resumed_build_rebuilds_a_file_whose_bytes_changed(tmp_path, scheduler):
    """64 bytes flipped in one file of rows (its size kept): running the build again rebuilds that file
    and only it, byte for byte as before."""
    spec = spec_for("nim", {"heaps": 3, "max_heap": 6})
    first = list(build_tables([spec], tmp_path, scheduler=scheduler, partition_rows=7, quiet=True))[0]
    before = file_hashes(tmp_path)
    victim = sorted((tmp_path / spec.name / "rows").iterdir())[2]
    data = bytearray(victim.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(b ^ 0xFF for b in data[middle:middle + 64])
    victim.write_bytes(bytes(data))
    again = list(build_tables([spec], tmp_path, scheduler=scheduler, partition_rows=7, quiet=True))[0]
    assert again.skipped_partitions == first.partitions - 1
    assert file_hashes(tmp_path) == before


def test_verify_checks_each_files_rows(built, tmp_path):
    """A manifest that says a file holds 999,999 rows fails verify, naming the file and both counts."""
    source, table = built("nim", heaps=3, max_heap=6, partition_rows=7)
    folder = copy_table(source / table, tmp_path, table)
    name = sorted(json.loads((folder / "_manifest.json").read_text())["files"])[0]
    _edit(folder, lambda m: m["files"][name].update(rows=999_999))
    result = cli("verify", "--db", tmp_path, table, "--quiet")
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert f"{table} {name}: " in result.stdout and "the manifest says 999,999" in result.stdout


def test_sql_reads_exactly_the_recorded_files(built, tmp_path):
    """A file the build did not record (a killed build's leftover) is not counted; a recorded file that is
    missing makes the table's queries say so in one line, and the folder's other tables still answer."""
    source, table = built("nim", heaps=3, max_heap=6, partition_rows=7)
    folder = copy_table(source / table, tmp_path, table)
    copy_table(source / table, tmp_path, "other")
    files = sorted((folder / "rows").iterdir())
    with tablebase.open(tmp_path) as tb:
        total = tb.sql(f"SELECT count(*) AS n FROM {table}").column("n").to_pylist()
    shutil.copy(files[0], folder / "rows" / "9999999-9999999.00000.parquet")
    with tablebase.open(tmp_path) as tb:
        assert tb.sql(f"SELECT count(*) AS n FROM {table}").column("n").to_pylist() == total
    files[1].unlink()
    with tablebase.open(tmp_path) as tb:
        with pytest.raises(StoreError, match=f"rows/{files[1].name} is missing"):
            tb.sql(f"SELECT count(*) FROM {table}")
        assert tb.sql("SELECT count(*) AS n FROM other").column("n").to_pylist() == total


# -- 5. a table named as another's view ------------------------------------------------------------------
def test_a_table_named_as_a_view_is_refused_at_build(tmp_path, scheduler):
    """``h_values`` beside a partizan ``h`` is refused, whichever is built first, before anything is written."""
    hack = {"max_edges": 3, "colors": "BR", "shape": "stalk"}
    for first, second in ((("hackenbush", hack, "h"), ("nim", {"heaps": 2, "max_heap": 3}, "h_values")),
                          (("nim", {"heaps": 2, "max_heap": 3}, "x_values"), ("hackenbush", hack, "x"))):
        out = tmp_path / first[2]
        list(build_tables([spec_for(*first)], out, scheduler=scheduler, quiet=True))
        before = file_hashes(out)
        with pytest.raises(TablebaseError, match="another --table name"):
            list(build_tables([spec_for(*second)], out, scheduler=scheduler, quiet=True))
        assert file_hashes(out) == before
    result = cli("build", "nim", "--heaps", 2, "--max-heap", 3, "--table", "h_values", "--out", tmp_path / "h",
                 "--scheduler", scheduler)
    assert_clean_error(result, "h_values", "view of table h")


def test_a_folder_with_such_a_clash_still_answers(built, tmp_path):
    """A folder that holds both (built by an older version): the table ``h_values`` keeps its name, ``h``
    answers SQL, statistics and lookups, and so does every other table."""
    hack, hack_table = built("hackenbush", max_edges=4, colors="BR", shape="stalk")
    nim, nim_table = built("nim", heaps=2, max_heap=3)
    copy_table(hack / hack_table, tmp_path, "h")
    copy_table(nim / nim_table, tmp_path, "h_values")
    copy_table(nim / nim_table, tmp_path, "other")
    with tablebase.open(tmp_path) as tb:
        assert tb.sql("SELECT count(*) AS n FROM h_values").column("n").to_pylist() == [10]
        assert tb.sql("SELECT count(*) AS n FROM other").column("n").to_pylist() == [10]
        assert tb.stats("h") and tb.lookup("h", "BR")["value"] == "1/2"


# -- 5. sub-folders that are not tables ------------------------------------------------------------------
def test_a_sub_folder_that_is_not_a_table_is_set_aside(built, tmp_path):
    """A copy named ``Chomp-copy`` and a table whose manifest is not JSON: ``tables`` lists the good table
    and warns of each other in one line; lookups of the good table work; naming a bad one says why."""
    nim, nim_table = built("nim", heaps=2, max_heap=3)
    shutil.copytree(nim / nim_table, tmp_path / "Chomp-copy")
    copy_table(nim / nim_table, tmp_path, "good")
    copy_table(nim / nim_table, tmp_path, "damaged")
    (tmp_path / "damaged" / "_manifest.json").write_text("{not json")
    listed, looked, bad = (cli("tables", "--db", tmp_path), cli("lookup", "--db", tmp_path, "good", "1 2", "--json"),
                           cli("lookup", "--db", tmp_path, "damaged", "1 2"))
    assert listed.returncode == 0 and [line.split()[0] for line in listed.stdout.splitlines()[1:]] == ["good"]
    warned = listed.stderr.splitlines()
    assert len(warned) == 2 and "Chomp-copy" in warned[0] and "bad table name" in warned[0] and "damaged" in warned[1]
    assert looked.returncode == 0 and json.loads(looked.stdout)["grundy"] == 3
    assert_clean_error(bad, "damaged manifest")


# -- 5. a finished plain game built again ----------------------------------------------------------------
def test_a_finished_plain_impartial_table_builds_again(tmp_path, scheduler):
    """The same build of Cram from its file, twice, then a third time: each exits 0, the later runs skip
    every partition, the table stays complete and its files as the first run wrote them."""
    command = ("build", "--game", CRAM, "--rows", 3, "--cols", 4, "--out", tmp_path, "--scheduler", scheduler,
               "--quiet")
    first = cli(*command)
    assert first.returncode == 0, first.stderr
    rows = {k: v for k, v in file_hashes(tmp_path).items() if "/rows/" in k}
    for _ in range(2):
        again = cli(*command)
        assert again.returncode == 0, again.stderr
        summary = json.loads(again.stdout)
        assert summary["skipped_partitions"] == summary["partitions"] == json.loads(first.stdout)["partitions"]
        manifest = json.loads((tmp_path / "cram_rows3_cols4" / "_manifest.json").read_text())
        assert manifest["complete"] and {k: v for k, v in file_hashes(tmp_path).items() if "/rows/" in k} == rows


def test_a_finished_table_built_again_is_not_listed_again_unless_a_file_is_damaged(tmp_path, scheduler):
    """A build of a table that ended whole, every file as recorded, does nothing: a plain game's listing
    (a minute and more for a large one) is not made again to find every partition built, and a dry run
    says so. A damaged file makes the build list and build again, to the same bytes."""
    command = ("build", "--game", CRAM, "--rows", 3, "--cols", 4, "--out", tmp_path, "--scheduler", scheduler)
    first = cli(*command)
    assert first.returncode == 0, first.stderr
    assert "listing positions" in first.stderr
    folder = tmp_path / "cram_rows3_cols4"
    hashes = file_hashes(tmp_path)
    written = {p.name: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}

    again = cli(*command)
    assert again.returncode == 0, again.stderr
    assert "built already" in again.stderr and "listing positions" not in again.stderr
    summary = json.loads(again.stdout)
    assert summary["skipped_partitions"] == summary["partitions"] == json.loads(first.stdout)["partitions"]
    assert {p.name: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()} == written
    planned = cli(*command, "--dry-run")
    assert planned.returncode == 0 and "built already" in json.loads(planned.stdout)["plan"]

    damaged = sorted((folder / "rows").glob("*.parquet"))[-1]
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    mended = cli(*command)
    assert mended.returncode == 0, mended.stderr
    assert "built already" not in mended.stderr and "listing positions" in mended.stderr
    assert file_hashes(tmp_path) == hashes
