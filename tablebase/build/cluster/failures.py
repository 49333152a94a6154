"""What a build says when a task fails: one line naming the levels and what to do, never a traceback.

A task may fail by a bug in a game's code, a full disk, workers killed for
memory or lost with their results, a cancelled task, or a lost scheduler;
each gets its own line, and every one says that the files written so far
are kept, so running the same command again resumes the build.
"""

from __future__ import annotations

import errno
import sys
import time
from concurrent.futures import CancelledError
from pathlib import Path
from typing import Any

from distributed.comm import CommClosedError
from distributed.scheduler import KilledWorker

from tablebase.build.cluster.lost_workers import wait_watching
from tablebase.build.cluster.memory_plan import MIB
from tablebase.errors import BuildError, TablebaseError

RESUME = "files written so far are kept, run the same command again to resume"


class RecordsLost(BuildError):
    """A task finished, but the worker that held its records died before they were fetched. Its files
    are on disk and it is deterministic: the driver submits it once more rather than stop."""
# A finished task's records are small: longer than this to fetch them means the worker that held them
# died and the scheduler cannot compute them again (the tasks below were forgotten on purpose).
GATHER_SECONDS = 60
LOST = ("lost", "pending")  # a finished task's status once its worker died holding its result
GATHER_POLL = 2.0  # seconds a try at fetching small records takes before looking whether the task was lost
AGAIN = "again-"  # in the key of a task submitted once more after its records were lost (``again_key``)


def again_key(key: str, run: str) -> str:
    """The key of a task submitted once more after its records were lost with its worker: it still ends with
    the build's run, as ``lost_workers.place_stranded`` asks."""
    return key.removesuffix(run) + AGAIN + run


def submitted_again(key: str, run: str) -> bool:
    """Whether the task of ``key`` was already submitted once more: a second loss stops the build."""
    return key.endswith(AGAIN + run)


def records_of(future: Any, table: str, levels: list[int] | None = None, limit: int | None = None,
               small: bool = False, work: str | None = None) -> list[dict[str, Any]]:
    """A task's records; a task that failed (a bug in a game's code, a full disk, workers that
    died, the scheduler lost) is one line saying what to do. Workers paused for memory meanwhile are
    freed, or restarted (``lost_workers.wait_watching``). Records known to be ``small`` are fetched in short
    tries, so that a task lost with its worker meanwhile is known in seconds, not in GATHER_SECONDS.
    ``work``: what the task did, as the lines say it (by default "solving" its ``levels``)."""
    doing = work or f"solving {levels_named(levels)}"
    if future.status != "finished":
        wait_watching(future.client, [future], lambda text: print(f"[{table}] {text}", file=sys.stderr, flush=True))
    try:
        if future.status == "finished":
            return _fetched(future, GATHER_POLL if small else GATHER_SECONDS)
        return future.result()
    except TablebaseError:
        raise
    except TimeoutError:
        raise records_lost(table, doing) from None
    except KilledWorker:
        most = f"{limit / MIB:,.0f} MiB" if limit else "their memory limit"
        raise BuildError(
            f"{table}: the workers {doing} died (a nanny kills a worker that passes {most}); "
            f"give each worker more memory (fewer workers per machine, dask worker --memory-limit) or "
            f"use smaller partitions (--partition-rows); {RESUME}") from None
    except (CancelledError, CommClosedError) as e:  # as when the scheduler is lost
        if isinstance(e, CancelledError) and future.client.status == "running":
            raise BuildError(f"{table}: the task {doing} was cancelled on the cluster; {RESUME}") from e
        raise BuildError(f"{table}: lost the Dask scheduler at {future.client.scheduler.address} while {doing}"
                         "; files written so far are kept: start a scheduler and workers, then "
                         "run the same command again to resume") from None
    except Exception as e:  # raised in a worker, by any code a task runs
        if isinstance(e, OSError) and e.errno == errno.ENOSPC:
            raise  # the caller knows the folder: see disk_full
        raise BuildError(f"{table}: a task failed {doing} ({type(e).__name__}: {e}); {RESUME}") from e


def records_lost(table: str, doing: str) -> RecordsLost:
    """The worker that held a finished task's records died before they were fetched (``doing``: what the
    task did, "solving level 4" say)."""
    return RecordsLost(f"{table}: the worker {doing} was lost before its records were fetched; {RESUME}")


def _fetched(future: Any, each: float) -> Any:
    """A finished task's result, tried for ``each`` seconds at a time; TimeoutError once the task is lost
    with its worker (the scheduler says so, or a fetch found it gone), or after GATHER_SECONDS."""
    deadline = time.monotonic() + GATHER_SECONDS
    while True:
        try:
            return future.result(timeout=each)
        except TimeoutError:
            if future.status in LOST or time.monotonic() >= deadline:
                raise


def disk_full(e: OSError, table: str, root: Path) -> BuildError:
    """A file system with no room left (on a worker or here): one line naming the folder."""
    writing = f" writing {Path(e.filename).name}" if e.filename else ""
    return BuildError(f"{table}: the file system of {root} is full (no space left{writing}); "
                      f"free some space, then run the same command again to resume (files written so far are kept)")


def levels_named(levels: list[int] | None) -> str:
    if not levels:
        return "a task"
    if len(levels) == 1:
        return f"level {levels[0]}"
    return f"levels {levels[0]}-{levels[-1]}"


def answered(answers: dict[str, Any], table: str, doing: str) -> list[Any]:
    """What each worker gave back from a call on all of them (``Client.run(..., on_error="return")``), in
    the workers' order; the first that raised, in one line (a full disk as itself: its caller names the
    folder)."""
    given = []
    for worker, answer in sorted(answers.items()):
        if isinstance(answer, BaseException):
            if isinstance(answer, TablebaseError) or isinstance(answer, OSError) and answer.errno == errno.ENOSPC:
                raise answer
            raise BuildError(f"{table}: {doing} failed on {worker} ({type(answer).__name__}: {answer}); {RESUME}")
        given.append(answer)
    return given
