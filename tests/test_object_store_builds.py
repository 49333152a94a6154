"""A table built on an object store (a real S3-protocol server, tests/object_store.py) and read from it: the same
files, byte for byte, as the same build in a folder, and the same answers from every verb that reads.

The oracle of what the store holds is botocore's own listing of the bucket, each key's 16 hex digits of sha256
taken off by a pattern of this file's own; the oracle of the answers is the same command run on the folder.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from helpers import assert_clean_error, tablebase
from object_store import BUCKET

pytestmark = pytest.mark.slow  # builds on a cluster, commands in other processes, a server

HASHED = re.compile(r"^(.*)\.([0-9a-f]{16})(\.[a-z]+)?$")


def objects(server, prefix: str) -> dict[str, tuple[str, bytes]]:
    """Every object under a prefix, by key: the name a folder would hold it under, and its bytes; each key's
    digits checked to be the first 16 of its bytes' sha256 (the manifest and the lock have none)."""
    found = {}
    for key, data in server.keys(prefix + "/").items():
        name = key[len(prefix) + 1:]
        leaf = name.rpartition("/")[2]
        hashed = HASHED.match(leaf)
        if hashed and leaf not in ("_manifest.json", ".lock"):
            assert hashlib.sha256(data).hexdigest()[:16] == hashed.group(2), name
            name = name[: len(name) - len(leaf)] + hashed.group(1) + (hashed.group(3) or "")
        found[key] = (name, data)
    return found


def plain_files(server, prefix: str) -> dict[str, bytes]:
    """Every object under a prefix, by the name a folder would hold it under (``objects``)."""
    found: dict[str, bytes] = {}
    for name, data in objects(server, prefix).values():
        assert name not in found, f"{name} lies under two names"
        found[name] = data
    return found


def recorded(manifest: dict) -> dict[str, str]:
    """Every file a manifest records, by name, with its sha256, wherever in the manifest its record lies (the
    rows', the probe index's, a values table's...): docs/format.md's records, read here without the store's
    code."""
    found = {}

    def walk(node: object) -> None:
        inside = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in inside:
            if isinstance(value, dict) and isinstance(value.get("sha256"), str):
                found[value.get("file", key)] = value["sha256"]
            else:
                walk(value)

    walk(manifest)
    return found


def against_manifest(server, prefix: str, table: str) -> tuple[set[str], set[str]]:
    """A table's objects against its committed manifest, both read by botocore: the keys of the objects the
    manifest does not record (its own aside), and the names of the files it records that no object holds
    whole."""
    found = objects(server, f"{prefix}/{table}")
    manifest = json.loads(found[f"{prefix}/{table}/_manifest.json"][1])
    wanted = recorded(manifest)
    held = {(name, hashlib.sha256(data).hexdigest()) for name, data in found.values()}
    extra = {key for key, (name, data) in found.items()
             if name != "_manifest.json" and wanted.get(name) != hashlib.sha256(data).hexdigest()}
    return extra, {name for name, sha256 in wanted.items() if (name, sha256) not in held}


def folder_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def built(s3, tmp_path, monkeypatch):
    """Chomp 10x10 built by the command on the store and in a folder, each by a local cluster of its own."""
    monkeypatch.setenv("TABLEBASE_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "tb"
    for out in (folder, s3.url):
        done = tablebase("build", "chomp", "--rows", "10", "--cols", "10", "--out", out, "--quiet", timeout=600)
        assert done.returncode == 0, done.stderr
    return folder, s3


def test_a_build_on_the_store_is_the_folders_byte_for_byte_and_answers_alike(built):
    folder, s3 = built
    stored, local = plain_files(s3.server, s3.prefix), folder_files(folder)
    assert sorted(stored) == sorted(local)  # nothing more, no lock left, no file of another name
    assert [name for name in local if stored[name] != local[name]] == []
    assert any(name.startswith("chomp_10x10/rows/") for name in local)
    for args in (["query", "SELECT outcome, count(*) AS n FROM chomp_10x10 GROUP BY ALL ORDER BY 1", "--json"],
                 ["query", "SELECT * FROM chomp_10x10 WHERE level = 37 ORDER BY key", "--format", "csv"],
                 ["lookup", "chomp_10x10", "10 9 9 4", "--json"],
                 ["lookup", "chomp_10x10", "--line", "7 7 5 3", "--json"]):
        there, here = tablebase(*args, "--db", s3.url), tablebase(*args, "--db", folder)
        assert there.returncode == here.returncode == 0, there.stderr
        assert there.stdout == here.stdout and there.stdout.strip()


def test_verify_stats_and_tables_read_the_store_as_the_folder(built):
    folder, s3 = built
    verified = tablebase("verify", "--db", s3.url, "chomp_10x10", "--quiet")
    assert verified.returncode == 0, verified.stderr
    assert "184,755 rows verified, no problems" in verified.stdout
    for args in (["stats", "chomp_10x10", "--json"], ["tables", "--json"]):
        there, here = tablebase(*args, "--db", s3.url), tablebase(*args, "--db", folder)
        assert there.returncode == 0, there.stderr
        assert json.loads(there.stdout) == json.loads(here.stdout)


def test_verify_finds_a_damaged_object_on_the_store(built):
    """An object of the table written over with other bytes under its name: verify names it."""
    _, s3 = built
    client = s3.server.client()
    key = next(k for k in s3.server.keys(s3.prefix + "/") if "/rows/" in k)
    client.put_object(Bucket=BUCKET, Key=key, Body=b"not the rows")
    verified = tablebase("verify", "--db", s3.url, "chomp_10x10", "--quiet")
    assert verified.returncode == 1
    name = HASHED.match(key.rpartition("/")[2]).group(1)
    assert f"chomp_10x10 rows/{name}.parquet: " in verified.stdout


def test_index_writes_on_the_store_the_index_a_build_writes(built):
    """The table on the store without its probe index, as a table built before indexes is (the index's objects
    deleted and its manifest recording none, by botocore); ``tablebase index --db s3://...`` then makes the
    store hold the folder's build byte for byte again, lookups through it answer as the folder's, and verify
    checks it."""
    folder, s3 = built
    client, table = s3.server.client(), f"{s3.prefix}/chomp_10x10"
    for key in s3.server.keys(table + "/"):
        if key.startswith(f"{table}/probe"):
            client.delete_object(Bucket=BUCKET, Key=key)
    manifest = json.loads(s3.server.keys(f"{table}/_manifest.json")[f"{table}/_manifest.json"])
    assert manifest["probe"]
    client.put_object(Bucket=BUCKET, Key=f"{table}/_manifest.json", Body=json.dumps({**manifest, "probe": {}}))
    assert not any(name.startswith("chomp_10x10/probe") for name in plain_files(s3.server, s3.prefix))
    indexed = tablebase("index", "--db", s3.url, "--quiet", timeout=600)
    assert indexed.returncode == 0, indexed.stderr
    assert json.loads(indexed.stdout)["table"] == "chomp_10x10"
    stored, local = plain_files(s3.server, s3.prefix), folder_files(folder)
    assert sorted(stored) == sorted(local) and [name for name in local if stored[name] != local[name]] == []
    for args in (["lookup", "chomp_10x10", "10 9 9 4", "--json"], ["lookup", "chomp_10x10", "1", "--json"],
                 ["lookup", "chomp_10x10", "--line", "7 7 5 3", "--json"]):
        there, here = tablebase(*args, "--db", s3.url), tablebase(*args, "--db", folder)
        assert there.returncode == here.returncode == 0, there.stderr
        assert there.stdout == here.stdout and there.stdout.strip()
    verified = tablebase("verify", "--db", s3.url, "chomp_10x10", "--quiet")
    assert verified.returncode == 0 and "184,755 rows verified, no problems" in verified.stdout, verified.stdout


def test_a_table_with_misere_figures_built_on_the_store_is_the_folders(s3, tmp_path):
    """Chomp 5x6 with ``--misere`` in small partitions (many files, the misère P-positions counted over them
    all by reading the store): the store's files are the folder's byte for byte, every reader answers alike,
    and the count it shows is the brute force's from the definitions."""
    from oracles import chomp_board, chomp_moves
    from test_misere_columns import Misere

    folder = tmp_path / "tb"
    for out in (folder, s3.url):
        done = tablebase("build", "chomp", "--rows", "5", "--cols", "6", "--partition-rows", "40", "--misere",
                         "--out", out, "--quiet", timeout=600)
        assert done.returncode == 0, done.stderr
    stored, local = plain_files(s3.server, s3.prefix), folder_files(folder)
    assert len([name for name in local if "/rows/" in name]) > 3
    assert sorted(stored) == sorted(local) and [name for name in local if stored[name] != local[name]] == []
    answers = {}
    for where in (s3.url, folder):
        answers[where] = [tablebase(*args, "--db", where) for args in (
            ["query", "SELECT position, misere_outcome, misere_remoteness, misere_best_move FROM chomp_5x6 "
                      "ORDER BY key", "--json", "--limit", "0"],
            ["lookup", "chomp_5x6", "6 6 4 2 1", "--json"], ["tables", "--json"], ["stats", "chomp_5x6", "--json"])]
        assert [a.returncode for a in answers[where]] == [0, 0, 0, 0], [a.stderr for a in answers[where]]
    assert [a.stdout for a in answers[s3.url]] == [a.stdout for a in answers[folder]]
    misere = Misere(chomp_moves)
    rows = json.loads(answers[s3.url][0].stdout)
    assert len(rows) == 461  # C(11, 5) - 1: every board of at most 5 rows of at most 6, the poisoned square on
    lost = sum(not misere(chomp_board(row["position"]))[0] for row in rows)
    shown = json.loads(answers[s3.url][2].stdout)
    assert shown[0]["misere"]["p_positions"] == lost and 0 < lost < len(rows)


def test_the_python_api_reads_the_store(built, tmp_path):
    import numpy as np

    import tablebase as tb_api
    from tablebase.store.index_reads import READS_VARIABLE

    folder, s3 = built
    positions = ["10 9 9 4", "7 7 5 3", "1", "2 1", "10 10 10 10 10 10 10 10 10 10"]
    with tb_api.open(folder) as here:
        want_sql = here.sql("SELECT level, count(*) AS n, sum(grundy) AS g FROM chomp_10x10 GROUP BY ALL ORDER BY 1")
        want = [here.lookup("chomp_10x10", p) for p in positions]
        want_many = here.lookup_many("chomp_10x10", positions)
        want_line = here.line("chomp_10x10", "7 7 5 3")
    for reads in ("cache", "ranges"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv(READS_VARIABLE, reads)
            with tb_api.open(s3.url) as there:
                assert there.sql("SELECT level, count(*) AS n, sum(grundy) AS g FROM chomp_10x10 GROUP BY ALL "
                                 "ORDER BY 1").equals(want_sql)
                assert [there.lookup("chomp_10x10", p) for p in positions] == want
                assert there.lookup_many("chomp_10x10", positions).equals(want_many)
                assert there.line("chomp_10x10", "7 7 5 3") == want_line
                assert there.probe("chomp_10x10", (7, 7, 5, 3), columns=["grundy"]) == \
                    {"grundy": want[1]["grundy"]}
                keys = np.arange(0, 184_755, 7, dtype=np.int64)
                assert there._rows("chomp_10x10").rows(keys, with_positions=False).equals(
                    tb_api.open(folder)._rows("chomp_10x10").rows(keys, with_positions=False))
    cached = [p for p in (tmp_path / "cache" / "indexes").rglob("*") if p.is_file()]
    assert sorted(p.name for p in cached) == ["keys-0000000000000.tbs", "probe.tbi"]
    assert {p.name: p.read_bytes() for p in cached} == {
        p.name: p.read_bytes() for p in (folder / "chomp_10x10").rglob("*.tb?")}


def test_the_explorer_and_the_api_serve_the_store(built):
    from served import get, running

    from tablebase.http.app import create_app

    folder, s3 = built
    answers = {}
    for where in (folder, s3.url):
        with running(create_app(str(where))) as url:
            answers[str(where)] = [get(f"{url}{path}") for path in (
                "/tables", "/tables/chomp_10x10/lookup?position=10%209%209%204",
                "/tables/chomp_10x10/probe?position=7%207%205%203")]
            status, page = get(f"{url}/tables/chomp_10x10/position?position=7%207%205%203")
            assert status == 200 and b"7 7 5 3" in page
            status, page = get(f"{url}/")
            assert status == 200 and b"chomp_10x10" in page and s3.server.endpoint.encode() not in page
    there, here = answers[s3.url], answers[str(folder)]
    assert [status for status, _ in there] == [200, 200, 200]
    assert there == here


def test_a_reader_given_refused_credentials_or_no_bucket_says_so_in_one_line(s3, tmp_path):
    bad = tablebase("tables", "--db", s3.url, "--storage-option", f"access_key={s3.server.access_key}",
                    "--storage-option", "secret_key=wrong")
    assert_clean_error(bad, "refused the credentials")
    half = tablebase("tables", "--db", s3.url, "--storage-option", "secret_key=wrong")
    assert_clean_error(half, "access_key and secret_key go together")
    missing = tablebase("query", "--db", "s3://no-such-bucket/t", "SELECT 1")
    assert_clean_error(missing, "has no bucket 'no-such-bucket'")


def options_of(s3) -> dict[str, str]:
    """The store's address and credentials as storage options: they travel with the tasks to the session's
    workers, whose processes began before the test set the AWS variables."""
    env = s3.server.env()
    return {"endpoint_url": env["AWS_ENDPOINT_URL"], "access_key": env["AWS_ACCESS_KEY_ID"],
            "secret_key": env["AWS_SECRET_ACCESS_KEY"], "region": env["AWS_REGION"]}


def test_a_plain_game_listed_in_shares_is_built_on_the_store_as_in_a_folder(s3, scheduler, tmp_path, monkeypatch):
    """Cram listed by the workers in three shares (every level in shares, numbered in ranges): its work files
    and level files go through the store (seen there while it builds) and are gone once it is built; the
    table is the folder's byte for byte."""
    import threading

    from tablebase.build import build_tables
    from tablebase.build.census import numbering_tasks, rounds
    from tablebase.build.jobs import spec_for
    from tablebase.store.places import location_of

    monkeypatch.setattr(rounds, "SERIAL_LEVEL", 0)
    monkeypatch.setattr(numbering_tasks, "RANGE_ROWS", 1)
    monkeypatch.setattr(numbering_tasks, "WHOLE_BYTES", 0)
    spec = spec_for(str(Path(__file__).resolve().parent.parent / "examples" / "cram.py") + ":Cram",
                    {"rows": 3, "cols": 5})
    seen: set[str] = set()
    stop = threading.Event()

    def watch() -> None:  # botocore's listing of the bucket, while the build runs
        client = s3.server.client()
        while not stop.is_set():
            listed = client.list_objects_v2(Bucket=BUCKET, Prefix=f"{s3.prefix}/{spec.name}/_listing/")
            seen.update(item["Key"].rpartition("/")[2] for item in listed.get("Contents", []))
            stop.wait(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        list(build_tables([spec], location_of(s3.url, options_of(s3)), scheduler=scheduler, quiet=True))
    finally:
        stop.set()
        watcher.join()
    list(build_tables([spec], tmp_path / "tb", scheduler=scheduler, quiet=True))
    kinds = {HASHED.match(leaf).group(1).split("-")[0] for leaf in seen if HASHED.match(leaf)}
    assert {"inbox", "share", "level"} <= kinds, sorted(seen)
    stored, local = plain_files(s3.server, s3.prefix), folder_files(tmp_path / "tb")
    assert sorted(stored) == sorted(local) and not any("/_listing/" in name for name in stored)
    assert [name for name in local if stored[name] != local[name]] == []
    assert "s3:" not in {p.name for p in Path.cwd().iterdir()}  # no folder was made of the URL's words
