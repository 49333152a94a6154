"""A structure-aware fuzzer of the probe index: valid indexes whose numbers are set to anything, every checksum
made right again, read by the C reader under the sanitizers and by the Python reader.

A case copies a seed (``index_seeds.py``: every layout, coding, encoding and rule), changes one to three of
its numbers where docs/format.md puts them (``mutations.py``) and computes every CRC-32 again, so that no
checksum catches the change. Then the C command, built with AddressSanitizer and UndefinedBehaviorSanitizer,
probes keys and checks every segment: it must exit 0 or 2, with no sanitizer's report and at most one line on
stderr. The Python reader, in a worker process whose address space is capped, probes the same keys one by
one and in a batch and checks every segment: each call gives an answer or a StoreError, within seconds.
Where both readers open a case, each key's answer must be the same from both: its figures, whether it is
stored, whether it is refused (``disagreement``). Cases are numbered from a seed, so that a failure
reproduces: ``python benchmarks/fuzz_index.py --seed S --case N --keep DIR``.
"""

from __future__ import annotations

import json
import os
import random
import select
import shutil
import struct
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


@dataclass
class CRun:
    """What the C command did with a case: ``problem`` (a crash, a sanitizer's report, output that is not one
    line or not JSON) or None; whether it opened the index, and each key's answer up to any refusal."""

    problem: str | None = None
    opened: bool = True
    refused: bool = False
    answers: list[dict] = field(default_factory=list)


def run_c(program: Path, directory: Path, keys: list[int]) -> CRun:
    """The C command's check of every segment and its probes of ``keys``."""
    env = {**os.environ, "ASAN_OPTIONS": "detect_leaks=1:allocator_may_return_null=1",
           "UBSAN_OPTIONS": "print_stacktrace=1"}
    run = CRun()
    for args in ([program, "--check", directory], [program, directory, *map(str, keys)]):
        try:
            done = subprocess.run(args, capture_output=True, timeout=SECONDS, env=env, check=False)
        except subprocess.TimeoutExpired:
            run.problem = f"C: {' '.join(map(str, args[:2]))} took more than {SECONDS} s"
            return run
        err = done.stderr.decode(errors="replace")
        if done.returncode not in (0, 2) or any(word in err for word in SANITIZED):
            run.problem = f"C: exit {done.returncode}: {err.strip()[-3000:]}"
        elif done.returncode == 2 and (len(err.splitlines()) != 1 or not err.startswith("tbprobe: ")):
            run.problem = f"C: exit 2 without one line: {err!r}"
        elif done.returncode == 0 and err:
            run.problem = f"C: exit 0 with {err!r}"
        if run.problem:
            return run
        try:
            answers = [json.loads(line) for line in done.stdout.decode().splitlines()]
        except ValueError as e:
            run.problem = f"C: not JSON: {e}: {done.stdout[:300]!r}"
            return run
        run.refused |= done.returncode == 2
        if args[1] == "--check":
            run.opened = done.returncode == 0 or "segments damaged" in err
        else:
            run.answers = answers
    return run


def _plain(value: object) -> object:
    """A figure's value as both readers' answers are compared: integers modulo 2^64 (C's are 64 bits), floats
    by their bits (NaN by being NaN: C prints no payload)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value % 2**64
    if isinstance(value, float):
        return "NaN" if value != value else struct.pack("<d", value).hex()
    return repr(value)


def disagreement(c: CRun, python: dict, keys: list[int]) -> str | None:
    """Where the C and Python readers differ on a case: one opens the index and the other refuses it, or a
    key's answer (its figures, or whether it is stored, or whether it is refused) differs. None if they agree."""
    python_opened = not (python["refused"] and not python["probes"])
    if c.opened != python_opened:
        return f"C {'opens' if c.opened else 'refuses'} the index, Python {'opens' if python_opened else 'refuses'} it"
    if not c.opened:
        return None
    for key, answer, theirs in zip(keys, c.answers, python["probes"]):
        if isinstance(theirs, dict) and "refused" in theirs:
            return f"key {key}: C answers {answer}, Python refuses: {theirs['refused']}"
        mine = {k: _plain(v) for k, v in answer.items() if k not in ("key", "found")} if answer["found"] else None
        if theirs is not None and mine is not None:  # a text that is not UTF-8 each reader replaces its own way
            replaced = {k for k, v in {**theirs, **mine}.items() if isinstance(v, str) and "\ufffd" in v}
            theirs = {k: v for k, v in theirs.items() if k not in replaced}
            mine = {k: v for k, v in mine.items() if k not in replaced}
        if mine != theirs:
            return f"key {key}: C answers {mine}, Python {theirs}"
    stopped = len(c.answers)
    if c.refused and stopped < len(keys):
        theirs = python["probes"][stopped]
        if not (isinstance(theirs, dict) and "refused" in theirs):
            return f"key {keys[stopped]}: C refuses it, Python answers {theirs}"
    return None


# -- the Python reader, in a worker process ---------------------------------------------------------------
def _python_case(directory: str, keys: list[int]) -> dict:
    """Every call of the Python reader on one case: an answer or a StoreError each; another exception is the
    failure, with its traceback. The answer says how many calls were refused and the first refusal, and what
    each key's probe gave: its figures, None where it is not stored, {"refused": why} where it was refused."""
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
    probes: list[dict | None] = []

    def probe(key: int) -> None:
        probes.append({"refused": "(not answered)"})
        found = index.probe(key)
        probes[-1] = None if found is None else {k: _plain(v) for k, v in found.items()}

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
                if probes and probes[-1] == {"refused": "(not answered)"}:
                    probes[-1] = {"refused": str(e)}
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
    c = run_c(program, folder / "probe.tbi", keys) if program is not None else None
    if c is not None and c.problem:
        report.failures.append(f"{name}: {c.problem}")
    report.c_refused += c is not None and c.refused
    answer = worker.run(folder / "probe.tbi", keys)
    if "failure" in answer:
        report.failures.append(f"{name}: Python: {answer['failure']}")
        return
    report.python_refused += answer["refused"] > 0
    report.slowest = max(report.slowest, answer["seconds"])
    differ = disagreement(c, answer, keys) if c is not None and not c.problem else None
    if differ:
        report.failures.append(f"{name}: the readers differ: {differ}")


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
