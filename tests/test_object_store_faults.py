"""Faults of an object store during a build, on a real S3-protocol server (tests/object_store.py): the store
away for 30 s (waited for within the default budget; past a shorter one, a stop in one line and a resume),
slow past its timeouts, an upload cut off by a killed build, a worker killed while it uploads, ``gc`` after a
killed build, credentials refused. Each build ends in the table a folder gets, byte for byte, or in one line
that says what happened (and nothing written where it says so).

The oracle of what the store holds is botocore's listing of the bucket (``test_object_store_builds``'s own
reading of it); the oracle of the table is the same command's build in a folder.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest
from helpers import assert_clean_error, tablebase
from object_store import BUCKET, Proxy
from test_object_store_builds import against_manifest, folder_files, plain_files

pytestmark = pytest.mark.slow  # builds in other processes, a server taken away

CHOMP = ["chomp", "--rows", "10", "--cols", "10", "--partition-rows", "2000"]


@pytest.fixture
def in_folder(tmp_path):
    """The undisturbed build, in a folder: what a disturbed one on the store must end as."""
    folder = tmp_path / "tb"
    done = tablebase("build", *CHOMP, "--out", folder, "--quiet", timeout=600)
    assert done.returncode == 0, done.stderr
    return folder_files(folder)


def _building(*args: object) -> subprocess.Popen:
    """``tablebase build ARGS --quiet`` started, in a process group of its own (its cluster's processes too)."""
    return subprocess.Popen([sys.executable, "-m", "tablebase", "build", *map(str, args), "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def _building_slowly(s3, *args: object) -> tuple[subprocess.Popen, Proxy]:
    """Chomp 10x10 built on the store, its files of rows sent through a proxy at 64 KB/s: unhindered the build
    ends within a second or two, so a test that acts mid-build could find it done; so slowed it writes rows for
    seconds, over several of its manifest's saves. The proxy is the caller's to close."""
    proxy = Proxy(s3.server.port)
    proxy.rate, proxy.slowed = 64 << 10, "/chomp_10x10/rows/"
    build = _building(*CHOMP, "--out", s3.url, "--storage-option", f"endpoint_url={proxy.endpoint}", *args)
    return build, proxy


def _stopped(build: subprocess.Popen) -> None:
    """A build that is still running killed with its cluster (a test that failed midway)."""
    if build.poll() is None:
        os.killpg(build.pid, signal.SIGKILL)
        build.wait()


def _listed(s3, under: str) -> int:
    """How many objects lie under a folder of the test's prefix (botocore's listing)."""
    listed = s3.server.client().list_objects_v2(Bucket=BUCKET, Prefix=f"{s3.prefix}/{under}")
    return listed["KeyCount"]


def _recorded(s3, table: str) -> int:
    """How many files of rows the table's committed manifest records (botocore's read of it)."""
    import json

    try:
        got = s3.server.client().get_object(Bucket=BUCKET, Key=f"{s3.prefix}/{table}/_manifest.json")
    except Exception:  # not committed yet
        return 0
    return len(json.loads(got["Body"].read())["files"])


def _ends(process) -> set[tuple[int, int]]:
    """The (local, remote) ports of a process's TCP connections on loopback; none for one gone meanwhile."""
    import psutil

    try:
        return {(c.laddr.port, c.raddr.port) for c in process.net_connections("tcp") if c.raddr}
    except psutil.Error:
        return set()


def _mid_build(s3, build: subprocess.Popen, table: str = "chomp_10x10") -> None:
    """Until the table's committed manifest records 20 files of rows, the build still running."""
    deadline = time.monotonic() + 300
    while _recorded(s3, table) < 20:
        assert build.poll() is None, build.stderr.read()
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_the_store_away_for_30_s_mid_build_is_waited_for(s3, in_folder):
    """The server stopped for 30 s while the workers write parts: every request waits, backing off, within the
    default budget (``bucket.RETRY_SECONDS``), and the build goes on to the table the folder has."""
    build, proxy = _building_slowly(s3)
    try:
        _mid_build(s3, build)
        assert _recorded(s3, "chomp_10x10") < 164  # mid-build: parts are still to come
        with s3.server.down(30):
            time.sleep(30)
        assert build.poll() is None, build.stderr.read()  # it waited the outage out
        out, err = build.communicate(timeout=600)
    finally:
        _stopped(build)
        proxy.close()
    assert build.returncode == 0, err
    assert plain_files(s3.server, s3.prefix) == in_folder


def test_the_store_away_past_a_shorter_budget_stops_the_build_in_one_line_and_it_resumes(s3, in_folder):
    """The same outage, the build given 5 s to wait (``retry_seconds=5``): it stops in one line while the store
    is away; the manifest it committed last names only files that are there, whole; the same command then
    ends the table the folder has."""
    budget = ["--storage-option", "retry_seconds=5"]
    build, proxy = _building_slowly(s3, *budget)
    try:
        _mid_build(s3, build)
        with s3.server.down(30):
            out, err = build.communicate(timeout=120)
            away = not s3.server.up
    finally:
        _stopped(build)
        proxy.close()
    assert away  # it stopped while the store was still away
    assert_clean_error(subprocess.CompletedProcess(build.args, build.returncode, out, err), "did not answer in",
                       "run the same command again to resume")
    assert _recorded(s3, "chomp_10x10") >= 20
    assert against_manifest(s3.server, s3.prefix, "chomp_10x10")[1] == set()  # nothing it names is missing
    again = tablebase("build", *CHOMP, "--out", s3.url, "--quiet", *budget, timeout=600)
    assert again.returncode == 0, again.stderr
    assert plain_files(s3.server, s3.prefix) == in_folder


def test_a_slow_store_is_waited_for_through_timeouts_and_retries_that_back_off(s3, in_folder, monkeypatch):
    """Every fifth of the store's first hundred answers to the build held back past the request timeout: each
    such request times out and is sent again, and the build is the folder's. A reader's request that keeps
    timing out is tried again with growing pauses between the tries, until it is answered."""
    proxy = Proxy(s3.server.port)
    try:
        proxy.delay, proxy.every, proxy.delayed = 2.5, 5, 100
        slow = ["--storage-option", f"endpoint_url={proxy.endpoint}", "--storage-option", "request_timeout=1"]
        done = tablebase("build", *CHOMP, "--out", s3.url, "--quiet", *slow, timeout=900)
        assert done.returncode == 0, done.stderr
        assert proxy.held >= 10
        assert plain_files(s3.server, s3.prefix) == in_folder

        import tablebase as api
        from tablebase.store import bucket

        pauses: list[float] = []  # the reader's own pauses between tries (the client's retries come between them)
        def pause(seconds: float) -> None:
            pauses.append(seconds)
            time.sleep(seconds)

        monkeypatch.setattr(bucket, "time", SimpleNamespace(time=time.time, monotonic=time.monotonic, sleep=pause))
        proxy.every, proxy.delayed, proxy.delay = None, None, 0.0
        with api.open(s3.url, storage_options={"endpoint_url": proxy.endpoint, "request_timeout": 1}) as tb:
            assert tb.tables()[0]["table"] == "chomp_10x10"  # the store has answered this reader once
            proxy.delay, proxy.delayed, proxy.answers, proxy.asked = 4.0, 12, 0, []
            assert tb.sql("SELECT count(*) AS n FROM chomp_10x10").column("n").to_pylist() == [184_755]
        assert len(proxy.asked) >= 12  # every held answer timed out and was asked again
        assert len(pauses) >= 2 and pauses == sorted(pauses) and pauses[-1] > pauses[0], pauses
    finally:
        proxy.close()


def test_an_upload_cut_off_mid_build_is_never_seen_and_the_build_resumes(s3, tmp_path):
    """The build killed while it sends the probe index's file of Chomp 13x13 (a multipart upload, every upload
    slowed so that it is caught on the way): no object of it appears, no manifest records it, the table reads
    as unfinished; the same command ends the table, and the upload left behind is aborted."""
    proxy = Proxy(s3.server.port)
    proxy.rate = 4 << 20  # bytes a second: the index's file of about 12 MB is seconds on the way
    try:
        build = subprocess.Popen(
            [sys.executable, "-m", "tablebase", "build", "chomp", "--rows", "13", "--cols", "13", "--out", s3.url,
             "--quiet", "--storage-option", f"endpoint_url={proxy.endpoint}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        deadline = time.monotonic() + 600
        index = f"{s3.prefix}/chomp_13x13/probe/keys-"
        while not any(key.startswith(index) for key in s3.server.uploads(s3.prefix)):
            assert build.poll() is None, build.stderr.read()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        os.killpg(build.pid, signal.SIGKILL)
        build.wait()
    finally:
        proxy.close()
    assert not any(key.startswith(index) for key in s3.server.keys(s3.prefix + "/")), (
        sorted(k for k in s3.server.keys(s3.prefix + "/") if "/probe" in k), s3.server.uploads(s3.prefix))
    assert any(key.startswith(index) for key in s3.server.uploads(s3.prefix))
    listed = tablebase("tables", "--db", s3.url, "--json")
    assert listed.returncode == 0 and '"complete": false' in listed.stdout
    again = tablebase("build", "chomp", "--rows", "13", "--cols", "13", "--out", s3.url, "--quiet", timeout=900)
    assert again.returncode == 0, again.stderr
    assert s3.server.uploads(s3.prefix) == []
    looked = tablebase("lookup", "--db", s3.url, "chomp_13x13", "13 13 5 3", "--json")
    assert looked.returncode == 0, looked.stderr


def test_refused_credentials_stop_a_build_in_one_line_writing_nothing(s3, tmp_path):
    env = s3.server.env()
    for options in ([f"access_key={env['AWS_ACCESS_KEY_ID']}", "secret_key=wrong"],
                    ["access_key=AKIANOSUCHKEY0000000", "secret_key=wrong"]):
        done = tablebase("build", "chomp", "--rows", "5", "--cols", "5", "--out", s3.url,
                         *(word for option in options for word in ("--storage-option", option)))
        assert_clean_error(done, "refused the credentials")
    assert s3.server.keys(s3.prefix + "/") == {} and s3.server.uploads(s3.prefix) == []
    missing = tablebase("build", "chomp", "--rows", "5", "--cols", "5", "--out", "s3://no-such-bucket/t")
    assert_clean_error(missing, "has no bucket 'no-such-bucket'")
    assert not (tmp_path / "s3:").exists()


def test_a_worker_killed_while_it_uploads_leaves_nothing_half_written_and_the_build_goes_on(s3, tmp_path):
    """Chomp 13x13's probe index file (about 12 MB, one multipart upload from the worker that writes it) sent
    at 2 MB/s through the proxy; that worker, found by the connection the proxy sees it send on among the
    build's processes, killed (SIGKILL) with a part of the file on the way. The part is cut off and the upload
    never completes, so no object of it appears; Dask runs the task again on a worker, and the build ends in the
    table a folder gets, byte for byte, the bucket holding what its manifest records and nothing else: the
    killed worker's upload is aborted before the build ends."""
    import re
    import urllib.parse

    import psutil

    table, game = "chomp_13x13", ["chomp", "--rows", "13", "--cols", "13"]
    folder = tmp_path / "tb"
    done = tablebase("build", *game, "--out", folder, "--quiet", timeout=600)
    assert done.returncode == 0, done.stderr
    proxy = Proxy(s3.server.port)
    proxy.rate, proxy.slowed = 2 << 20, f"/{table}/probe/keys-"
    build = _building(*game, "--out", s3.url, "--storage-option", f"endpoint_url={proxy.endpoint}")
    try:
        deadline = time.monotonic() + 600
        # A part with seconds of its body still to go at this rate (the file's last part is small, and may be
        # sent whole before the kill lands), so that the kill lands with the part on its way.
        while not (sending := [e for e in proxy.exchanges if proxy.slowed in e.line and "partNumber=" in e.line
                               and e.body and not e.answered and not e.closed
                               and e.length is not None and e.length - e.body > 3 << 20]):
            assert build.poll() is None, build.stderr.read()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        exchange = sending[0]
        owners = [p for p in psutil.Process(build.pid).children(recursive=True)
                  if (exchange.port, proxy.port) in _ends(p)]
        assert len(owners) == 1, owners  # a worker of the build's cluster, not the build's own process
        owners[0].send_signal(signal.SIGKILL)
        while not exchange.closed:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        key = urllib.parse.unquote(re.match(r"PUT /[^/]+/([^?]+)\?", exchange.line).group(1))
        assert exchange.cut(), exchange  # the part was on its way, and no more of it went
        # Before the task run again can have sent its own part at this rate: the upload begun, no object.
        assert key in s3.server.uploads(s3.prefix) and _listed(s3, key[len(s3.prefix) + 1:]) == 0
        proxy.rate = None
        out, err = build.communicate(timeout=600)
    finally:
        _stopped(build)
        proxy.close()
    assert build.returncode == 0, err
    assert plain_files(s3.server, s3.prefix) == folder_files(folder)
    assert against_manifest(s3.server, s3.prefix, table) == (set(), set())
    assert s3.server.uploads(s3.prefix) == []  # the killed worker's, aborted once the index was written


def _stopped_with_rows_unrecorded(s3, build: subprocess.Popen, table: str) -> None:
    """The build and its cluster stopped (SIGSTOP) at a moment when the store holds files of rows that the
    committed manifest does not record, for the caller to kill there. Judged while stopped, a request already
    sent given time to land: judged running, the manifest could record the files between the look and the
    kill."""
    deadline = time.monotonic() + 300
    while True:
        assert build.poll() is None, build.stderr.read()
        assert time.monotonic() < deadline
        os.killpg(build.pid, signal.SIGSTOP)
        time.sleep(0.3)
        if _listed(s3, f"{table}/rows/") > _recorded(s3, table):
            return
        os.killpg(build.pid, signal.SIGCONT)
        time.sleep(0.05)


def test_gc_removes_exactly_what_a_killed_build_left(s3):
    """A build killed (SIGKILL) once files it wrote are not yet in its committed manifest: what it left is those
    files, its lock and any upload begun, by botocore's listing against the manifest; ``gc --dry-run`` names
    exactly those files, ``gc`` removes them, aborts the uploads and takes the lock away, and every object the
    manifest records stays as it was."""
    table = "chomp_10x10"
    build, proxy = _building_slowly(s3)
    try:
        _mid_build(s3, build)
        _stopped_with_rows_unrecorded(s3, build, table)
    finally:
        os.killpg(build.pid, signal.SIGKILL)
        build.wait()
        proxy.close()
    left, missing = against_manifest(s3.server, s3.prefix, table)
    assert missing == set() and any("/rows/" in key for key in left)
    lock = f"{s3.prefix}/{table}/.lock"
    assert lock in left
    files = s3.server.keys(s3.prefix + "/")
    uploads = s3.server.uploads(s3.prefix)
    garbage = left - {lock}
    dry = tablebase("gc", "--db", s3.url, "--grace", "0", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert set(dry.stdout.splitlines()[:-1]) == {key[len(s3.prefix) + 1:] for key in garbage}
    assert s3.server.keys(s3.prefix + "/") == files
    done = tablebase("gc", "--db", s3.url, "--grace", "0")
    assert done.returncode == 0, done.stderr
    size = sum(len(files[key]) for key in garbage)
    files_word = "file" if len(garbage) == 1 else "files"
    assert f"{table}: removed {len(garbage)} {files_word} ({size:,} bytes)" in done.stdout
    assert (f"aborted {len(uploads)} upload" in done.stdout) == bool(uploads)
    after = s3.server.keys(s3.prefix + "/")
    assert after == {key: data for key, data in files.items() if key not in left}
    assert s3.server.uploads(s3.prefix) == [] and against_manifest(s3.server, s3.prefix, table) == (set(), set())
