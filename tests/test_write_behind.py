"""A worker writes a part's files while its next part solves (build/write_behind.py): jobs in order, one held
while the next solves, a failure raised by the next task; on a real cluster, the files of parts a worker
never wrote are solved again, and the table is the one a build that wrote them would have made."""

from __future__ import annotations

import threading
import time

import pytest
from distributed import Client

from tablebase.build import build_tables
from tablebase.build.jobs import spec_for
from tablebase.build.write_behind import WriteBehind
from tablebase.store import Manifest


def test_jobs_are_written_in_order_and_their_records_handed_back_once():
    writer = WriteBehind()
    written: list[int] = []

    def job(n: int):
        def write():
            written.append(n)
            return [{"file": f"part-{n}"}]
        return write

    for n in range(5):
        writer.put(job(n))
    records = writer.drained()
    assert written == [0, 1, 2, 3, 4]
    assert [r["file"] for r in records] == [f"part-{n}" for n in range(5)]
    assert writer.finished() == []  # handed back once
    writer.close()


def test_a_job_is_handed_over_only_once_the_one_before_is_written():
    """The worker holds the rows of one part being written beside the part it solves, never more."""
    writer = WriteBehind()
    release = threading.Event()
    writer.put(lambda: [release.wait(10), {"file": "slow"}][1:])
    handed = threading.Event()
    threading.Thread(target=lambda: (writer.put(lambda: [{"file": "next"}]), handed.set()), daemon=True).start()
    time.sleep(0.2)
    assert not handed.is_set()  # waits for the first job's write
    release.set()
    assert handed.wait(10)
    assert [r["file"] for r in writer.drained()] == ["slow", "next"]
    writer.close()


def test_a_failed_write_is_raised_by_the_next_call_and_stops_the_jobs_after_it():
    writer = WriteBehind()
    later: list[str] = []

    def failing():
        raise OSError(28, "No space left on device")

    writer.put(failing)
    writer.put(lambda: later.append("ran") or [{"file": "after"}])
    with pytest.raises(OSError, match="No space left"):
        writer.drained()
    with pytest.raises(OSError):  # every later call, until the build ends
        writer.finished()
    assert later == []
    writer.close()


def _drop_writes() -> None:
    """On a worker: its files written behind are never written, as if it died before it wrote them."""
    from tablebase.build import write_behind

    write_behind.dropped = 0

    def put(self, job):
        write_behind.dropped += 1

    write_behind.WriteBehind.original_put = write_behind.WriteBehind.put
    write_behind.WriteBehind.put = put


def _restore_writes() -> int:
    from tablebase.build import write_behind

    if hasattr(write_behind.WriteBehind, "original_put"):
        write_behind.WriteBehind.put = write_behind.WriteBehind.original_put
        del write_behind.WriteBehind.original_put
    return getattr(write_behind, "dropped", 0)


@pytest.mark.slow
def test_parts_a_worker_never_wrote_are_solved_again_into_the_same_files(tmp_path, scheduler):
    spec = spec_for("chomp", {"rows": 8, "cols": 9})
    list(build_tables([spec], tmp_path / "whole", scheduler=scheduler, partition_rows=2048, quiet=True))
    with Client(scheduler) as client:
        first = sorted(client.scheduler_info()["workers"])[0]
        client.run(_drop_writes, workers=[first])
        try:
            list(build_tables([spec], tmp_path / "dropped", scheduler=scheduler, partition_rows=2048, quiet=True))
        finally:
            dropped = client.run(_restore_writes, workers=[first])[first]
    assert dropped > 0  # the worker wrote behind, and lost what it had to write
    whole, again = (Manifest.load(tmp_path / folder, spec.name) for folder in ("whole", "dropped"))
    assert again.complete and len(again.files) == len(whole.files) > 20
    assert again.files == whole.files  # every file: its rows' bytes and hash
    assert again.probe == whole.probe


def test_a_workers_failed_write_is_one_line_naming_the_worker_and_a_full_disk_is_itself():
    from tablebase.build.cluster.failures import answered
    from tablebase.errors import BuildError

    assert answered({"tcp://b": [2], "tcp://a": [1]}, "t", "writing") == [[1], [2]]
    with pytest.raises(BuildError, match=r"^t: writing failed on tcp://b \(ValueError: bad\); files written so far"):
        answered({"tcp://a": [1], "tcp://b": ValueError("bad")}, "t", "writing")
    full = OSError(28, "No space left on device")
    with pytest.raises(OSError) as raised:
        answered({"tcp://a": full}, "t", "writing")
    assert raised.value is full
