"""Every code of a set of octal codes, one at a time: which loop each needed, its period, its cost.

    python benchmarks/bench_octal_codes.py                                 # all-3-digit to 2^16 heaps
    python benchmarks/bench_octal_codes.py --max 1048576 --codes "0.[0-3][0-3][0-3]"
    python benchmarks/bench_octal_codes.py --max 65536 --to 1048576        # and the cost at 2^20, estimated
    python benchmarks/bench_octal_codes.py --job --max 1048576 --codes "0.[0-3][0-3][0-3]"   # as a job

Each code is solved by the solver a job's table uses (``solve``, the automatic loop with its look for a
period), on one core, and printed with the path it took: ``period`` (proven at heap ``proven_at``, the
rest copied from it), ``sparse`` (no period proven; the sparse-space loop, under its mask), ``plain``
(no period, no sparse space: the quadratic loop, each pair set marked once where the code splits after
several numbers of tokens). Then the figures of the whole set: how many codes are proven periodic, the
largest period and preperiod and their codes, the codes left unproven, the CPU seconds of each path and
the peak memory of the process. With ``--to``, each unproven code is also solved to half of ``--max``,
its cost's exponent fitted to the two sizes, and its cost at ``--to`` heaps estimated from it.
``--job`` builds the set instead as one job through the command on two local workers (``bench_octal.py
--tables``) and prints its wall time, its summary and the peak memory of the command and its workers.
"""

from __future__ import annotations

import argparse
import math
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_octal import tables, warm_up  # noqa: E402
from common import PeakMemory, report  # noqa: E402

from tablebase.games.octal import expand_codes  # noqa: E402
from tablebase.solve.octal import OctalSequence, solve  # noqa: E402


def path_of(run: OctalSequence) -> str:
    """Which loop gave the values: see the module."""
    if run.period is not None:
        return "period"
    return "plain" if run.split is None else f"sparse {run.split.text(8)}"


def cpu(code: str, n: int) -> tuple[OctalSequence, float]:
    began = time.process_time()
    run = solve(code, n)
    return run, time.process_time() - began


def each_code(codes: list[str], n: int, to: int) -> None:
    seconds: dict[str, float] = {}
    proven, unproven, estimate = [], [], 0.0
    for code in codes:
        run, spent = cpu(code, n)
        path = path_of(run)
        seconds[path.split()[0]] = seconds.get(path.split()[0], 0.0) + spent
        figures = dict(path=path, cpu_s=spent, computed=run.computed, largest=int(run.values.max()))
        if run.period is not None:
            proven.append((code, run.period))
            figures.update(preperiod=run.period.preperiod, period=run.period.period, proven_at=run.period.proven_at)
        else:
            unproven.append(code)
            if to > n:
                _, half = cpu(code, n // 2)
                exponent = math.log(max(spent, 1e-3) / max(half, 1e-3)) / math.log(2)
                figures.update(exponent=exponent, cpu_s_at_to=spent * (to / n) ** exponent)
                estimate += figures["cpu_s_at_to"]
        report(f"code {code}", **figures)
    report(f"{len(codes)} codes to {n:,} heaps", proven=len(proven), unproven=len(unproven),
           **{f"cpu_s_{k}": v for k, v in sorted(seconds.items())}, cpu_s=sum(seconds.values()),
           peak_rss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    if proven:
        longest = max(proven, key=lambda cp: cp[1].period)
        latest = max(proven, key=lambda cp: cp[1].preperiod)
        report("  largest period", code=longest[0], period=longest[1].period, preperiod=longest[1].preperiod)
        report("  largest preperiod", code=latest[0], preperiod=latest[1].preperiod, period=latest[1].period)
    report("  unproven", codes=" ".join(unproven) or "none")
    if to > n and unproven:
        report(f"  unproven codes at {to:,} heaps, estimated", cpu_s=estimate, cpu_hours=estimate / 3600)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--codes", default="all-3-digit", help="a set of codes, as a job's `codes`")
    parser.add_argument("--max", type=int, default=2**16, help="the largest heap of each code")
    parser.add_argument("--to", type=int, default=0, help="estimate the unproven codes' cost at this many heaps")
    parser.add_argument("--job", action="store_true", help="build the set as one job through the command")
    args = parser.parse_args()
    codes = expand_codes(args.codes)
    if args.job:
        with PeakMemory() as memory:
            tables(args.codes, args.max, 0)
        report("  peak memory of the job", mib=memory.mib, largest_process_mib=memory.largest / 2**20,
               cpu_s=memory.cpu_seconds)
        return
    warm_up()
    each_code(codes, args.max, args.to)


if __name__ == "__main__":
    main()
