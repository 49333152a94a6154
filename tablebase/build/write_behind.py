"""A worker's files of solved parts written by a thread of its own while its next parts solve.

Where every worker of a build is on one machine and maps its one copy of the
values (cluster/shared_values.py), the level above needs none of a level's
files: it reads the values the workers stored as they solved. A part's
Parquet file then need not hold up the next level: the task hands its rows to
this thread and returns, and the level above starts while the file is
written. The records of the files written come back with the worker's later
tasks, and the last ones with ``drained`` once every level is solved. A
record is handed back only once its file is durable, so the manifest never
names a file a crash could lose; a part whose file a lost worker never wrote
is solved again by the driver.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

Records = list[dict[str, Any]]
Job = Callable[[], Records]


class WriteBehind:
    """One thread that runs write jobs in the order they are handed over, one at a time.

    ``put`` waits while a job is still being written, so that a worker holds the rows of one part being
    written beside the part it solves (the memory plan counts both: cluster/memory_plan.py). A job that
    fails stops the jobs after it; its error is raised by the next ``finished`` or ``drained``.
    """

    def __init__(self) -> None:
        self._jobs: queue.Queue[Job | None] = queue.Queue()
        self._room = threading.Semaphore(1)
        self._lock = threading.Lock()
        self._done: Records = []
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._work, name="tablebase-write-behind", daemon=True)
        self._thread.start()

    def put(self, job: Job) -> None:
        """Hand over a job that writes files and returns their records, once the job before is written."""
        self._room.acquire()
        self._jobs.put(job)

    def finished(self) -> Records:
        """The records of the jobs written since the last call; the error of a job that failed."""
        with self._lock:
            if self._error is not None:
                raise self._error
            done, self._done = self._done, []
        return done

    def drained(self) -> Records:
        """Every job handed over written, then their records (``finished``)."""
        self._jobs.join()
        return self.finished()

    def close(self) -> None:
        """Let the jobs handed over end, then the thread; their records and errors are dropped."""
        self._jobs.join()
        self._jobs.put(None)
        self._thread.join()

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                if self._error is None:
                    records = job()
                    with self._lock:
                        self._done.extend(records)
            except BaseException as e:  # raised in the task that next asks: a full disk, a store away
                with self._lock:
                    self._error = e
            finally:
                self._room.release()
                self._jobs.task_done()
        self._jobs.task_done()
