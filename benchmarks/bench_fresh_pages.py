"""What memory costs a process when the kernel gives it afresh, against the same memory taken again.

    python benchmarks/bench_fresh_pages.py                # 256 MiB, five rounds
    python benchmarks/bench_fresh_pages.py --mib 1024

In a fresh process, an array of ``--mib`` is made and every page of it
written, then freed, then made and written again, ``--rounds`` times in all;
then an array twice as large, whose second half the process never had, and
that one again. A large array is mapped from the kernel when it is made and
handed back when it is freed, so every round takes its pages from the
kernel: each page is cleared before the process sees it. Where the kernel
gives back the pages it was just handed, the rounds after the first cost
what clearing costs; where pages are new to the process (the first round,
the larger array), they may cost more: on a virtual machine whose host
backs the guest's memory only as it is touched, much more. The baseline is
the second round, measured in the same run; ``fresh_per_again`` is the
first round against it. This is the cost a build's worker pays for memory
its allocator handed back between tasks (build/cluster/allocator.py).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import report  # noqa: E402

ROUNDS = """
import json, sys, time
import numpy as np
mib, rounds = int(sys.argv[1]), int(sys.argv[2])
times = []
for size in [mib] * rounds + [2 * mib, 2 * mib]:
    began = time.perf_counter()
    pages = np.ones(size * 2**20, dtype=np.uint8)  # every page written
    times.append(time.perf_counter() - began)
    del pages
print(json.dumps(times))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=256, help="the array's size")
    parser.add_argument("--rounds", type=int, default=5, help="times the array is made, written and freed")
    args = parser.parse_args()
    if args.mib < 1 or args.rounds < 2:
        sys.exit("bench_fresh_pages: --mib must be at least 1 and --rounds at least 2")
    done = subprocess.run([sys.executable, "-c", ROUNDS, str(args.mib), str(args.rounds)], capture_output=True,
                          text=True)
    if done.returncode:
        sys.exit(f"bench_fresh_pages: the measuring process failed: {done.stderr.strip().splitlines()[-1]}")
    times = json.loads(done.stdout)
    again = times[1]
    report("fresh pages", mib=args.mib, rounds=args.rounds,
           first_s=round(times[0], 4), again_s=round(again, 4),
           later_s=[round(t, 4) for t in times[2:args.rounds]],
           fresh_per_again=round(times[0] / again, 1),
           ms_per_mib_fresh=round(1000 * times[0] / args.mib, 3), ms_per_mib_again=round(1000 * again / args.mib, 3),
           twice_first_s=round(times[args.rounds], 4), twice_again_s=round(times[args.rounds + 1], 4))


if __name__ == "__main__":
    main()
