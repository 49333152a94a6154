"""A structure-aware fuzzer of the probe index: valid indexes whose numbers are set to anything, every checksum
made right again, read by the C reader under the sanitizers and by the Python reader.

A case copies a seed (``index_seeds.py``: every layout, coding, encoding and rule), changes one to three of
its numbers where docs/format.md puts them (``mutations.py``) and computes every CRC-32 again, so that no
checksum catches the change. Then the C command, built with AddressSanitizer and UndefinedBehaviorSanitizer,
probes keys and checks every segment: it must exit 0 or 2, with no sanitizer's report and at most one line on
stderr. The Python reader, in a worker process whose address space is capped, probes the same keys one by
one and in a batch and checks every segment: each call gives an answer or a StoreError, within seconds.
Cases are numbered from a seed, so that a failure reproduces: ``python benchmarks/fuzz_index.py --seed S
--case N --keep DIR``.
"""

from __future__ import annotations

import json
import os
import random
import select
import shutil
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from index_seeds import Seed, make_seeds
from mutations import mutate

READER = Path(__file__).parent.parent / "readers" / "c" / "tbprobe.c"
SANITIZERS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
SECONDS = 20.0  # a case's bound, each reader: a loaded machine of two cores takes seconds for what is instant
ADDRESS_SPACE = 2 << 30  # bytes the Python worker may add to its address space: a large allocation fails in it
SANITIZED = ("Sanitizer", "runtime error:", "LeakSanitizer")


def build_sanitized(folder: Path, source: Path = READER) -> Path:
    """The C command built with AddressSanitizer and UndefinedBehaviorSanitizer, every report fatal, each
    segment copied alone (so that a read past it is seen, not only a read past its file's mapping)."""
    cc = shutil.which("cc")
    if cc is None:
        raise RuntimeError("no C compiler: cc is not on PATH (install gcc to fuzz the C reader)")
    out = folder / "tbprobe_sanitized"
    subprocess.run([cc, "-std=c99", "-g", "-O1", "-Wall", "-Werror", *SANITIZERS, "-DTBPROBE_MAIN",
                    "-DTBPROBE_COPY_SEGMENTS", "-o", out, source], check=True, capture_output=True, text=True)
    return out


@dataclass
class Report:
    """What a run of cases found: failures, one line each with its case, and counts of what the readers did."""

    cases: int = 0
    failures: list[str] = field(default_factory=list)
    c_refused: int = 0  # cases where the C command exited 2
    python_refused: int = 0  # cases where some call of the Python reader raised StoreError
    slowest: float = 0.0

    def summary(self) -> dict:
        return {"cases": self.cases, "failures": len(self.failures), "c_refused": self.c_refused,
                "python_refused": self.python_refused, "slowest_seconds": round(self.slowest, 2)}


def run_c(program: Path, directory: Path, keys: list[int]) -> str | None:
    """The C command's probes of ``keys`` and its check of every segment: what went wrong, or None."""
    env = {**os.environ, "ASAN_OPTIONS": "detect_leaks=1:allocator_may_return_null=1",
           "UBSAN_OPTIONS": "print_stacktrace=1"}
    refused = False
    for args in ([program, directory, *map(str, keys)], [program, "--check", directory]):
        try:
            done = subprocess.run(args, capture_output=True, timeout=SECONDS, env=env, check=False)
        except subprocess.TimeoutExpired:
            return f"C: {' '.join(map(str, args[:2]))} took more than {SECONDS} s"
        err = done.stderr.decode(errors="replace")
        if done.returncode not in (0, 2) or any(word in err for word in SANITIZED):
            return f"C: exit {done.returncode}: {err.strip()[-3000:]}"
        if done.returncode == 2 and (len(err.splitlines()) != 1 or not err.startswith("tbprobe: ")):
            return f"C: exit 2 without one line: {err!r}"
        if done.returncode == 0 and err:
            return f"C: exit 0 with {err!r}"
        for line in done.stdout.decode(errors="replace").splitlines():
            try:
                json.loads(line)
            except ValueError:
                return f"C: not JSON: {line[:300]!r}"
        refused |= done.returncode == 2
    return "refused" if refused else None


# -- the Python reader, in a worker process ---------------------------------------------------------------
def _python_case(directory: str, keys: list[int]) -> dict:
    """Every call of the Python reader on one case: an answer or a StoreError each; another exception is the
    failure, with its traceback. The answer says how many calls were refused and the first refusal, and what
    each key's probe gave (None where it was refused)."""
    import numpy as np

    from tablebase.errors import StoreError
    from tablebase.probe import ProbeIndex

    refusals: list[str] = []
    try:
        index = ProbeIndex(directory)
    except StoreError as e:
        return {"refused": 1, "first": str(e), "probes": []}
    except BaseException:
        return {"failure": traceback.format_exc()}
    probes: list[str | None] = []

    def probe(key: int) -> None:
        probes.append(None)
        probes[-1] = repr(index.probe(key))

    with index:
        batch = np.array([k for k in keys if k < 2**63], dtype=np.int64)
        calls = [lambda k=k: probe(k) for k in keys] + [
            lambda: index.probe_many(batch), lambda: index.probe_many(batch[::-1].copy()),
            lambda: index.probe_many(keys[:8]), index.check, lambda: [index.row(k) for k in keys[:8]]]
        for call in calls:
            try:
                call()
            except StoreError as e:
                refusals.append(str(e))
            except BaseException:
                return {"failure": traceback.format_exc()}
    return {"refused": len(refusals), "first": refusals[0] if refusals else None, "probes": probes}


def serve() -> None:
    """The worker: one case a line on stdin (JSON: directory and keys), one answer a line on stdout. Its address
    space is capped, so that an allocation of gigabytes fails here as MemoryError, a failure reported."""
    import resource

    import numpy  # noqa: F401  (imported before the cap: its own start is not the case's)

    import tablebase.probe.columns  # noqa: F401

    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[0])
    cap = pages * os.sysconf("SC_PAGE_SIZE") + ADDRESS_SPACE
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    for line in sys.stdin:
        case = json.loads(line)
        began = time.perf_counter()
        answer = _python_case(case["directory"], case["keys"])
        answer["seconds"] = time.perf_counter() - began
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


class Worker:
    """The Python reader's worker process, started again after a case that it did not answer in time."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None

    def start(self) -> subprocess.Popen:
        if self.process is None or self.process.poll() is not None:
            tests = str(Path(__file__).parent)
            self.process = subprocess.Popen(
                [sys.executable, "-c", "import index_fuzz; index_fuzz.serve()"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, text=True, cwd=tests,
                env={**os.environ, "PYTHONPATH": os.pathsep.join([tests, os.environ.get("PYTHONPATH", "")])})
        return self.process

    def run(self, directory: Path, keys: list[int]) -> dict:
        process = self.start()
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps({"directory": str(directory), "keys": keys}) + "\n")
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], SECONDS)
        line = process.stdout.readline() if ready else ""
        if not line:
            self.stop()
            return {"failure": f"Python: no answer within {SECONDS} s (or the worker died)"}
        return json.loads(line)

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


def run_case(seeds: list[Seed], seed: int, case: int, folder: Path, program: Path | None, worker: Worker,
             report: Report) -> None:
    """Case ``case`` of run ``seed``: a seed index mutated into ``folder`` and read by both readers."""
    rng = random.Random(f"{seed}:{case}")
    chosen = seeds[rng.randrange(len(seeds))]
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(chosen.folder, folder)
    what = mutate(folder, rng)
    name = f"case {case} of seed {seed} ({chosen.name}: {what})"
    keys = chosen.keys(rng)
    report.cases += 1
    if program is not None:
        found = run_c(program, folder / "probe.tbi", keys)
        if found == "refused":
            report.c_refused += 1
        elif found is not None:
            report.failures.append(f"{name}: {found}")
    answer = worker.run(folder / "probe.tbi", keys)
    if "failure" in answer:
        report.failures.append(f"{name}: Python: {answer['failure']}")
    else:
        report.python_refused += answer["refused"] > 0
        report.slowest = max(report.slowest, answer["seconds"])


def fuzz(root: Path, cases: int, seed: int, only: int | None = None, c: bool = True) -> Report:
    """``cases`` cases of run ``seed`` (or case ``only`` alone) under ``root``; the seeds are made there."""
    seeds = make_seeds(root / "seeds")
    program = build_sanitized(root) if c else None
    worker = Worker()
    report = Report()
    try:
        for case in [only] if only is not None else range(cases):
            run_case(seeds, seed, case, root / "case", program, worker, report)
    finally:
        worker.stop()
    return report
