"""A build that takes hours, run in parts: each part's figures logged as it ends, the whole build's once done.

    python benchmarks/bench_big_build.py --out /scratch/chomp18 -- chomp --rows 18 --cols 18 --compact
    python benchmarks/bench_big_build.py --out /scratch/chomp18 --stop-after 3600 -- chomp --rows 18 --cols 18 --compact
    python benchmarks/bench_big_build.py --out /scratch/chomp18 --summary -- chomp --rows 18 --cols 18 --compact

Each run of this script is one part: it runs ``tablebase build ARGS --out DIR``
(which resumes where the last part stopped), keeps the build's own lines in
``DIR/build-log.txt``, samples the memory of the command and its workers,
and, when the command ends (done, stopped by ``--stop-after`` or Ctrl-C, or
failed), appends one JSON line to ``benchmarks/results/bench_big_build.jsonl``:
the part's wall seconds, the positions built before and after it, the load,
and the peak memory. A part that finishes the table also logs the whole
build: the sum of its parts' seconds (every part logged for the same
command and folder since the folder was empty), never an estimate.
``--summary`` logs nothing new and prints the parts and their sum.

A part killed without warning (the machine stopped, SIGKILL) cannot log its
end; every 30 s it writes what it has done so far to
``DIR/part-in-progress.json``, and the next part logs that first, its
seconds counted to the last time it was written (at most 30 s short).

``--pause`` and ``--go-on`` (with the same ``--out``) stop the running part's
processes where they are and let them go on: other work measured meanwhile
has the machine to itself, and the part's seconds leave out the pause (its
``paused_seconds`` are logged beside them). The build's workers are told not
to give one another up for silence while they are stopped.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import RESULTS, PeakMemory, log_run, report  # noqa: E402

LOG = RESULTS / "bench_big_build.jsonl"


def built(out: Path) -> tuple[int, int, bool]:
    """Positions recorded as built so far, the table's positions (0 if unknown), whether it is complete."""
    done = total = 0
    complete = False
    for manifest in out.glob("*/_manifest.json"):
        data = json.loads(manifest.read_text())
        done += sum(r["rows"] for r in data.get("files", {}).values())
        total += sum(sum(sizes) for _, _, sizes in data.get("plan", []))
        complete = bool(data.get("complete"))
    return done, total, complete


def parts_of(command: str, out: Path) -> list[dict]:
    """Every part logged for this build command into this folder, since the last that began it afresh."""
    if not LOG.exists():
        return []
    parts = [line for line in map(json.loads, LOG.read_text().splitlines())
             if line.get("build") == command and line.get("out") == str(out) and "part" in line]
    starts = [i for i, p in enumerate(parts) if p["part"]["positions_before"] == 0]
    return parts[starts[-1]:] if starts else parts


IN_PROGRESS = "part-in-progress.json"
RUNNING = "part-running.pid"  # the running part's process, for --pause and --go-on
CHECKPOINT_SECONDS = 30.0


def write_in_progress(out: Path, record: dict) -> None:
    """The part so far, written atomically, for the next part to log if this one is killed."""
    temporary = out / (IN_PROGRESS + ".tmp")
    temporary.write_text(json.dumps(record))
    os.replace(temporary, out / IN_PROGRESS)


def log_killed_part(out: Path) -> None:
    """Log the part a kill left unlogged, from its last checkpoint."""
    path = out / IN_PROGRESS
    if not path.exists():
        return
    record = json.loads(path.read_text())
    record["part"]["killed"] = True
    report(f"part {record['part']['number']} (killed; logged from its last checkpoint)", **record["part"])
    log_run(**record)
    path.unlink()


def signal_part(out: Path, number: signal.Signals) -> None:
    """Tell the part running into ``out`` to pause or go on."""
    try:
        pid = int((out / RUNNING).read_text())
        os.kill(pid, number)
    except (OSError, ValueError) as error:
        raise SystemExit(f"bench_big_build.py: no part is running into {out} ({error})") from None


class Pauses:
    """SIGUSR1 stops the build's processes, SIGUSR2 lets them go on; the seconds they were stopped."""

    def __init__(self, group: int) -> None:
        self.group, self.since, self.seconds = group, None, 0.0
        signal.signal(signal.SIGUSR1, lambda *_: self.pause())
        signal.signal(signal.SIGUSR2, lambda *_: self.go_on())

    def pause(self) -> None:
        if self.since is None:
            os.killpg(self.group, signal.SIGSTOP)
            self.since = time.perf_counter()

    def go_on(self) -> None:
        if self.since is not None:
            os.killpg(self.group, signal.SIGCONT)
            self.seconds += time.perf_counter() - self.since
            self.since = None

    def total(self) -> float:
        return self.seconds + (time.perf_counter() - self.since if self.since is not None else 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="the build's folder")
    parser.add_argument("--stop-after", type=float, default=None, metavar="SECONDS",
                        help="stop the build (as Ctrl-C does) after this long; the next part resumes it")
    parser.add_argument("--summary", action="store_true", help="print the parts logged so far and their sum")
    parser.add_argument("--pause", action="store_true", help="stop the running part's processes until --go-on")
    parser.add_argument("--go-on", action="store_true", help="let a paused part go on")
    parser.add_argument("build", nargs=argparse.REMAINDER, help="-- then the build's arguments")
    args = parser.parse_args()
    if args.pause or args.go_on:
        signal_part(args.out.resolve(), signal.SIGUSR1 if args.pause else signal.SIGUSR2)
        return
    build = [a for a in args.build if a != "--"]
    if not build:
        raise SystemExit("bench_big_build.py: give the build's arguments after --")
    command = " ".join(["tablebase", "build", *build])
    out = args.out.resolve()
    if args.summary:
        parts = parts_of(command, out)
        for p in parts:
            report(f"part {p['part']['number']}", **{k: v for k, v in p["part"].items() if k != "number"})
        report("whole", seconds=sum(p["part"]["seconds"] for p in parts), parts=len(parts))
        return
    if out.exists():
        log_killed_part(out)
    before, total, complete = built(out)
    if complete:
        print(f"{command} into {out} is complete already: --summary prints its parts", file=sys.stderr)
        return
    number = len(parts_of(command, out)) + 1 if before else 1
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "build-log.txt", "a") as lines, PeakMemory(every=5.0) as memory:
        lines.write(f"# part {number}: {command} --out {out}, {time.strftime('%Y-%m-%d %H:%M:%S')}\n")
        lines.flush()
        began = time.perf_counter()
        # Workers stopped together must not give one another up for silence when they go on.
        env = dict(os.environ, DASK_DISTRIBUTED__SCHEDULER__WORKER_TTL="1000 days")
        process = subprocess.Popen([sys.executable, "-m", "tablebase", "build", *build, "--out", str(out)],
                                   stdout=subprocess.PIPE, stderr=lines, text=True, start_new_session=True, env=env)
        pauses = Pauses(process.pid)
        (out / RUNNING).write_text(str(os.getpid()))
        stopped = False
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        try:
            while True:
                elapsed = time.perf_counter() - began
                wait = CHECKPOINT_SECONDS
                if args.stop_after is not None:
                    wait = min(wait, args.stop_after - elapsed)
                try:
                    outcome = process.wait(timeout=max(wait, 0.0))
                    break
                except subprocess.TimeoutExpired:
                    if args.stop_after is not None and time.perf_counter() - began >= args.stop_after:
                        stopped = True
                        break
                    done, _, _ = built(out)
                    write_in_progress(out, {"build": command, "out": str(out), "part": {
                        "number": number, "seconds": round(time.perf_counter() - began - pauses.total(), 1),
                        "paused_seconds": round(pauses.total(), 1),
                        "positions_before": before, "positions_after": done, "positions": total,
                        "complete": False, "peak_mib_all": round(memory.mib),
                        "cpu_seconds": round(memory.cpu_seconds, 1)}})
        except KeyboardInterrupt:
            stopped = True
        if stopped:
            pauses.go_on()
            os.killpg(process.pid, signal.SIGINT)
            outcome = process.wait()
        paused = pauses.total()
        seconds = time.perf_counter() - began - paused
        summary = process.stdout.read() if process.stdout else ""
    (out / IN_PROGRESS).unlink(missing_ok=True)
    (out / RUNNING).unlink(missing_ok=True)
    after, total, complete = built(out)
    part = {"number": number, "seconds": round(seconds, 1), "paused_seconds": round(paused, 1),
            "positions_before": before,
            "positions_after": after, "positions": total, "complete": complete, "exit": outcome,
            "stopped": stopped, "peak_mib_all": round(memory.mib), "peak_mib_largest": round(memory.largest / 2**20),
            "cpu_seconds": round(memory.cpu_seconds, 1)}
    report(f"part {number}", **part)
    record = {"build": command, "out": str(out), "part": part,
              "summary": [json.loads(s) for s in summary.splitlines() if s.startswith("{")]}
    if complete:
        parts = parts_of(command, out) + [{"part": part}]
        whole = sum(p["part"]["seconds"] for p in parts)
        report("whole", seconds=whole, hours=whole / 3600, parts=len(parts))
        record["whole"] = {"seconds": round(whole, 1), "parts": len(parts)}
    log_run(**record)


if __name__ == "__main__":
    main()
