"""What faults cost: a build killed half way and resumed, and verify, against an undisturbed build.

    python benchmarks/bench_resume.py                  # Chomp 12x12, 2,704,155 positions
    python benchmarks/bench_resume.py --rows 13 --cols 13

Runs the command line as a user would, in child processes: an undisturbed
build; a build killed with SIGKILL when about half of its partitions are done,
then the same command again; `tablebase verify` of the result. Prints each
time, the extra time the fault cost, and whether the files are identical.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import report  # noqa: E402


def hashes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "tablebase", *args]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=12)
    parser.add_argument("--cols", type=int, default=12)
    args = parser.parse_args()
    game = ["chomp", "--rows", str(args.rows), "--cols", str(args.cols)]
    table = f"chomp_{args.rows}x{args.cols}"
    with tempfile.TemporaryDirectory() as work:
        clean, faulty = Path(work) / "clean", Path(work) / "faulty"

        began = time.perf_counter()
        done = subprocess.run(command("build", *game, "--out", str(clean), "--quiet"),
                              capture_output=True, text=True, check=True)
        undisturbed = time.perf_counter() - began
        summary = json.loads(done.stdout)
        report("undisturbed build", table=table, positions=summary["positions"], seconds=undisturbed)

        began = time.perf_counter()
        proc = subprocess.Popen(command("build", *game, "--out", str(faulty), "--quiet"),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        manifest = faulty / table / "_manifest.json"
        while proc.poll() is None:
            try:
                m = json.loads(manifest.read_text())
                if sum(f["rows"] for f in m["files"].values()) >= summary["positions"] // 2:
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed_after = time.perf_counter() - began
        began = time.perf_counter()
        resumed = subprocess.run(command("build", *game, "--out", str(faulty), "--quiet"),
                                 capture_output=True, text=True, check=True)
        resume = time.perf_counter() - began
        r = json.loads(resumed.stdout)
        report("killed, then resumed", killed_after_s=killed_after, resume_s=resume,
               skipped=f"{r['skipped_partitions']}/{r['partitions']}",
               extra_s=killed_after + resume - undisturbed, identical=hashes(clean) == hashes(faulty))

        began = time.perf_counter()
        subprocess.run(command("verify", "--db", str(faulty), table, "--quiet"), capture_output=True, check=True)
        verify = time.perf_counter() - began
        report("verify", seconds=verify, verify_over_build=verify / undisturbed)


if __name__ == "__main__":
    main()
