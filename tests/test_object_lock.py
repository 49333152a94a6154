"""The build lock on an object store (a real S3-protocol server, tests/object_store.py): of two builds on one
table one holds it and the other refuses in one line; a holder renews it; one that stopped renewing loses it
after its lease; a store that ignores conditional writes is refused.

The oracle of what the bucket holds is botocore's own listing (``S3Server.keys``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import assert_clean_error, tablebase

from tablebase.errors import StoreError
from tablebase.store.location import Folder
from tablebase.store.lock import BuildLock, LeasedLock, lock_at
from tablebase.store.places import location_of

pytestmark = pytest.mark.slow  # a server, and other processes

TESTS = str(Path(__file__).resolve().parent)


def _holders(url: str, count: int, lease: float = 30) -> list[subprocess.Popen]:
    """Processes that each try to take the lock of table t at once (released by a file's appearing), then
    say whether they hold it and keep it until their standard input closes."""
    code = (f"import sys, time, os\nfrom tablebase.store.places import location_of\n"
            f"from tablebase.store.lock import lock_at\nlock = lock_at(location_of({url!r}), 't', {lease})\n"
            "print('ready', flush=True)\nsys.stdin.readline()\n"
            "try:\n    lock.acquire()\nexcept Exception as e:\n    print('refused', e, flush=True)\n"
            "    sys.exit(0)\nprint('held', flush=True)\nsys.stdin.read()\nlock.release()\n")
    holders = [subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True, env=dict(os.environ)) for _ in range(count)]
    for holder in holders:
        assert holder.stdout.readline().strip() == "ready"
    for holder in holders:  # all at once
        holder.stdin.write("go\n")
        holder.stdin.flush()
    return holders


def test_of_two_builds_at_once_one_holds_the_lock_and_the_other_refuses_in_one_line(s3):
    holders = _holders(s3.url, 2)
    said = [holder.stdout.readline().strip() for holder in holders]
    try:
        assert sorted(s.split(" ")[0] for s in said) == ["held", "refused"], said
        refusal = next(s for s in said if s.startswith("refused"))
        assert "is being built by process" in refusal and "wait for it or stop it" in refusal
        lock = json.loads(s3.server.keys(f"{s3.prefix}/t/.lock")[f"{s3.prefix}/t/.lock"])
        winner = holders[[s.split(" ")[0] for s in said].index("held")]
        assert lock["pid"] == winner.pid
        # gc of that table waits for no build: it refuses in one line, and writes nothing
        before = s3.server.keys(s3.prefix)
        assert_clean_error(tablebase("gc", "--db", s3.url, "--table", "t", env=dict(os.environ)),
                           f"process {winner.pid}", "is being built")
        assert s3.server.keys(s3.prefix) == before
    finally:
        for holder in holders:
            holder.stdin.close()
            holder.wait(30)
    assert s3.server.keys(s3.prefix) == {}  # released: nothing left


def test_a_held_lock_is_renewed_past_its_lease(s3):
    location = location_of(s3.url)
    with lock_at(location, "t", lease=1.2) as held:
        time.sleep(3.5)  # nearly three leases: renewed every quarter of one
        with pytest.raises(StoreError, match="is being built by process"):
            LeasedLock(location, "t", lease=1.2).acquire()
        assert not held.lost


def test_a_lock_not_renewed_for_its_lease_is_taken_over(s3):
    location = location_of(s3.url)
    # a build on another host that stopped renewing: its process cannot be seen, only its lock's age
    key = f"{s3.prefix}/t/.lock"
    s3.server.client().put_object(Bucket="tables", Key=key, Body=json.dumps(
        {"pid": 1, "host": "elsewhere", "started": 0, "run": "x", "lease": 2}).encode())
    with pytest.raises(StoreError, match="process 1 on elsewhere"):
        lock_at(location, "t").acquire()
    time.sleep(3.5)
    taker = lock_at(location, "t")
    taker.acquire()
    assert json.loads(s3.server.keys(key)[key])["pid"] == os.getpid()
    taker.release()
    assert s3.server.keys(key) == {}


def test_a_holder_whose_lock_was_taken_over_learns_it_and_does_not_remove_the_new_one(s3):
    location = location_of(s3.url)
    first = LeasedLock(location, "t", lease=1.2)
    first.acquire()
    first._stop.set()  # as a build stalled for longer than its lease
    first._renewing.join()
    time.sleep(3)
    second = LeasedLock(location, "t", lease=30)
    second.acquire()
    first._stop.clear()  # the stalled build wakes, and its next renewal is refused
    first._renew()
    assert first.lost
    first.release()
    key = f"{s3.prefix}/t/.lock"
    assert json.loads(s3.server.keys(key)[key])["run"] == json.loads(second.data)["run"]
    second.release()


def test_a_lock_whose_process_is_gone_on_this_host_is_stale_at_once(s3):
    location = location_of(s3.url)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    key = f"{s3.prefix}/t/.lock"
    s3.server.client().put_object(Bucket="tables", Key=key, Body=json.dumps(
        {"pid": int(gone.stdout), "host": os.uname().nodename, "started": 0, "run": "x", "lease": 3600}).encode())
    with lock_at(location, "t"):
        assert json.loads(s3.server.keys(key)[key])["pid"] == os.getpid()


def test_a_store_that_ignores_conditional_writes_is_refused(tmp_path):
    class Careless(Folder):
        def create(self, name: str, data: bytes) -> str:  # as a store that drops If-None-Match
            self.write(name, data)
            return "any"

    with pytest.raises(StoreError, match="does not honour conditional writes"):
        LeasedLock(Careless(tmp_path), "t").acquire()
    assert not (tmp_path / "t" / ".lock").exists()


def test_a_folder_keeps_its_lock_file(tmp_path):
    assert isinstance(lock_at(location_of(tmp_path), "t"), BuildLock)
