"""Two whole commands timed in turns (A B A B ...) by ``farm-bench``, the medians and the ratios logged.

    python benchmarks/bench_turns.py --name "domineering 5x5 through c10" -n 5 \\
        --a ".venv/bin/python -m tablebase lookup --db /tmp/new domineering_c10 '.....|.....|.....|.....|.....'" \\
        --b "../old/.venv/bin/python -m tablebase lookup --db /tmp/old domineering_c10 '.....|.....|.....|.....|.....'"

A is the command measured, B the baseline (an older commit's checkout, or
the yardstick), run in the same call so that the machine's drift falls on
both alike; the ratio A/B is taken pair by pair (``farm-bench --vs``). The
log line holds both commands, each's median wall, CPU and peak memory, and
the median ratios.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import report  # noqa: E402


def medians(output: str) -> dict[str, float]:
    """The median of each row of farm-bench's table ("A wall s", "A/B cpu", ...)."""
    out = {}
    for line in output.splitlines():
        words = line.split()
        if len(words) >= 4 and words[0] in ("A", "B", "A/B"):
            try:
                numbers = [float(w) for w in words[-3:]]
            except ValueError:
                continue
            out[" ".join(words[:-3])] = numbers[1]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", required=True, help="what is measured, for the log")
    parser.add_argument("--a", required=True, help="the command measured, one string split as a shell splits")
    parser.add_argument("--b", required=True, help="the baseline command")
    parser.add_argument("-n", type=int, default=5, help="runs of each")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds for the whole call")
    args = parser.parse_args()
    if shutil.which("farm-bench") is None:
        raise SystemExit("bench_turns.py: farm-bench is not on PATH")
    done = subprocess.run(["farm-bench", "-n", str(args.n), "--timeout", str(args.timeout), "--vs", args.b, "--",
                           *shlex.split(args.a)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"bench_turns.py: farm-bench failed: {done.stderr.strip() or done.stdout.strip()}")
    m = medians(done.stdout)
    report(args.name, a=args.a, b=args.b, runs=args.n,
           a_wall_s=m.get("A wall s"), b_wall_s=m.get("B wall s"), a_cpu_s=m.get("A cpu s"), b_cpu_s=m.get("B cpu s"),
           a_peak_mib=m.get("A peak MiB"), b_peak_mib=m.get("B peak MiB"),
           ratio_wall=m.get("A/B wall"), ratio_cpu=m.get("A/B cpu"))


if __name__ == "__main__":
    main()
