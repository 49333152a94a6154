"""Octal games: the sparse-space solver against the plain mex loop, published periods, Grundy's game, in one run.

    python benchmarks/bench_octal.py                          # .16 to 10^7, plain loop to 10^5, Grundy to 2^20
    python benchmarks/bench_octal.py --max 100000000          # the full figure: .16 to 10^8
    python benchmarks/bench_octal.py --grundy-max 21 --skip 0.354
    python benchmarks/bench_octal.py --stretch --skip 0.354,0.376 # and .1777 (period 60,620,715)
    python benchmarks/bench_octal.py --tables --codes all-3-digit --codes-max 1048576 --table-max 100000000
    python benchmarks/bench_octal.py --skip-all --tables --codes "" --table-max 100000000   # .16 vs subtraction
    python benchmarks/bench_octal.py --grundy-seconds 1200 --skip-all    # Grundy's game for 20 minutes
    python benchmarks/bench_octal.py --skip-all --grundy-seconds 20000 --grundy-top 30 --grundy-save g.npy

Prints, on one core: the sparse solver on ``--code`` to ``--max`` heaps with
every heap computed (and with the proven period used, the default of
``grundy_values``); the plain loop on the same code to ``--plain`` heaps and
half as many, its time extrapolated to ``--max`` by the exponent fitted to
those two sizes, and the ratio; the periods of .16, .56, .127, .376 and .354
(and .1777 with ``--stretch``) found and proven from scratch (the run is given room, not the answer), with
the heap that proves each and the published figures beside them; and Grundy's
game to 2^k with its rare values counted at each power of two. Times are
wall-clock and CPU seconds of this process (the machine may be shared).

``--tables`` times the built-in game's tables through the command, as a user
runs it: a job of every code of ``--codes`` to ``--codes-max`` heaps on two
local workers, with its summary (how many periods proven, and where the
values were copied from them), and ``tablebase build octal --code .16 --max
--table-max`` whole, beside the subtraction game that takes 1 or 2 tokens
(.16's amounts, without its splits) to the same heap. ``--grundy-seconds`` runs Grundy's game, doubling the
heaps, while the time lasts, and prints the rare heaps and the largest value; ``--grundy-save`` keeps the
values of each doubling and starts from them.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import load_grundy_values, report  # noqa: E402

from tablebase.solve.octal import ProgressLine, grundy_values, rare_values, solve  # noqa: E402

# Published periods: (preperiod, period, rare heaps, mask, largest value, heaps given to the run).
# .16, .56, .127, .376: Gangolli and Plambeck, IJGT 18 (1989); .354: Flammenkamp (2002). Rare heaps,
# masks and largest values: tczajka/octal-games, SolvedGames.md (see docs/octal.md).
PUBLISHED = {
    "0.16": (105351, 149459, 53, "1e", 23, 10**6),
    "0.56": (326640, 144, 46, "5b", 64, 10**6),
    "0.127": (46578, 4, 693, "1+pos", 56, 3 * 10**5),
    "0.376": (2268248, 4, 510, "fe", 176, 6 * 10**6),
    "0.354": (10061916, 1180, 132, "3f", 113, 25 * 10**6),
}
# The stretch goal, with --stretch: .1777, periodic with period 60,620,715, its last exception at heap
# 160,949,017 (OEIS A071509); 450 million heaps cover its proof, about 4.5 CPU minutes and 2 GB.
STRETCH = {"0.1777": (160949018, 60620715, None, None, None, 450_000_000)}
# Grundy's game below 2^21: 1,274 rare heaps, the last at 82,860; largest value 231, first at
# 763,622 (tczajka/octal-games, UnsolvedGames.md). Flammenkamp lists 1,287 rare values known in all.
GRUNDY_2_21 = (1274, 82860, 231, 763622)


class Clock:
    """Wall and CPU seconds of a block."""

    def __enter__(self) -> Clock:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.wall, self.cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu


def warm_up() -> None:
    """Compile (or load) every loop outside the clocks."""
    for code in ("0.16", "0.127", "0.8"):
        solve(code, 3000, use_period=False)
        solve(code, 300, method="plain")


def sparse_against_plain(code: str, top: int, plain_top: int, progress: bool) -> None:
    with Clock() as sparse:
        run = solve(code, top, use_period=False, progress=ProgressLine(f"sparse {code}") if progress else None)
    report(f"sparse {code} every heap", heaps=top, wall_s=sparse.wall, cpu_s=sparse.cpu,
           heaps_per_cpu_s=int(top / sparse.cpu), mask=rare_values(run.values[:200000], code).mask_text)
    with Clock() as shortcut:
        short = solve(code, top)
    same = bool((short.values == run.values).all())
    report(f"sparse {code} with period", heaps=top, computed=short.computed, wall_s=shortcut.wall,
           cpu_s=shortcut.cpu, equal_to_every_heap=same)
    times = []
    for n in (plain_top // 2, plain_top):
        with Clock() as plain:
            solve(code, n, method="plain", use_period=False)
        with Clock() as small:
            solve(code, n, use_period=False)
        times.append(plain.cpu)
        report(f"plain {code}", heaps=n, wall_s=plain.wall, cpu_s=plain.cpu, sparse_cpu_s=small.cpu,
               plain_over_sparse=plain.cpu / small.cpu)
    exponent = math.log(times[1] / times[0]) / math.log(2)
    extrapolated = times[1] * (top / plain_top) ** exponent
    report(f"plain {code} extrapolated", heaps=top, fitted_exponent=exponent, cpu_s=extrapolated,
           days=extrapolated / 86400, plain_over_sparse=extrapolated / sparse.cpu)


def periods(skip: set[str], progress: bool, stretch: bool = False) -> None:
    for code, (pre, per, rare, mask, largest, room) in (PUBLISHED | STRETCH if stretch else PUBLISHED).items():
        if code in skip:
            report(f"period {code}", skipped=True)
            continue
        with Clock() as clock:
            run = solve(code, room, progress=ProgressLine(f"period {code}") if progress else None)
        found = run.period
        if found is None:
            report(f"period {code}", proven=False, heaps=room, cpu_s=clock.cpu)
            continue
        rv = rare_values(run.values[: found.proven_at + 1], code)
        report(f"period {code}", preperiod=found.preperiod, period=found.period, proven_at=found.proven_at,
               computed=run.computed, wall_s=clock.wall, cpu_s=clock.cpu)
        report("  rare values", rare=rv.heaps.size, last_rare=int(rv.heaps[-1]), mask=rv.mask_text,
               largest=rv.largest, largest_at=rv.largest_heap)
        published = {"preperiod": pre, "period": per, "rare": rare, "mask": mask, "largest": largest}
        mine = {"preperiod": found.preperiod, "period": found.period, "rare": rv.heaps.size, "mask": rv.mask_text,
                "largest": rv.largest}
        known = {name: value for name, value in published.items() if value is not None}  # .1777: the period only
        report("  as published", **known, all_match=all(mine[name] == value for name, value in known.items()))


def grundy(k: int, progress: bool) -> None:
    top = 2**k
    with Clock() as clock:
        run = solve("grundy", top - 1, progress=ProgressLine("grundy") if progress else None)
    rv = rare_values(run.values, "grundy")
    report(f"grundy's game to 2^{k}", heaps=top, wall_s=clock.wall, cpu_s=clock.cpu,
           heaps_per_cpu_s=int(top / clock.cpu), mask=rv.mask_text, largest=rv.largest, largest_at=rv.largest_heap)
    for j in range(10, k + 1):
        below = rv.heaps[rv.heaps < 2**j]
        report(f"  rare heaps below 2^{j}", count=below.size, last=int(below[-1]),
               largest_value_below=int(run.values[: 2**j].max()))
    if k >= 21:
        below = rv.heaps[rv.heaps < 2**21]
        head = run.values[: 2**21]
        mine = (below.size, int(below[-1]), int(head.max()), int(head.argmax()))
        report("  2^21 as published", rare=GRUNDY_2_21[0], last=GRUNDY_2_21[1], largest=GRUNDY_2_21[2],
               largest_at=GRUNDY_2_21[3], all_match=mine == GRUNDY_2_21)


def command(*args: str) -> tuple[float, list[dict]]:
    """Run ``tablebase`` as a user does; its wall seconds and the JSON lines it printed."""
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tablebase", *args], capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"tablebase {' '.join(args)}: {done.stderr.strip()}")
    return time.perf_counter() - began, [json.loads(line) for line in done.stdout.splitlines()]


def tables(codes: str, codes_max: int, table_max: int) -> None:
    if codes:
        job_of_codes(codes, codes_max)
    if table_max:
        octal_against_subtraction(table_max)


def job_of_codes(codes: str, codes_max: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-octal-") as folder:
        job = Path(folder) / "codes.toml"
        job.write_text(f'[[table]]\ngame = "octal"\ncodes = "{codes}"\nmax = {codes_max}\nsummary = "codes"\n')
        seconds, printed = command("build", "--job", str(job), "--out", f"{folder}/tb", "--workers", "2", "--quiet")
        _, rows = command("query", "--db", f"{folder}/tb", "--format", "json", "--limit", "100000",
                          "SELECT count(*) AS codes, count(period) AS proven, count(stopped_at) AS copied, "
                          "max(proven_at) AS last_proof, max(largest) AS largest FROM codes")
        report(f"job: codes {codes} to {codes_max:,} heaps, two workers", tables=len(printed) - 1, wall_s=seconds,
               **rows[0][0] if isinstance(rows[0], list) else rows[0])


def octal_against_subtraction(heaps: int) -> None:
    """.16's table against the subtraction game with the same amounts taken (1 and 2, no splits) to the same
    heap, both whole commands in turn: what the splits and the octal figures cost over the simplest heap game."""
    timed = {}
    for name, game in ((".16", ["octal", "--code", ".16"]), ("subtraction {1,2}", ["subtraction", "--set", "1,2"])):
        with tempfile.TemporaryDirectory(prefix="bench-octal-") as folder:
            seconds, printed = command("build", *game, "--max", str(heaps), "--out", folder, "--quiet")
            _, listed = command("tables", "--db", folder, "--json")
            entry = listed[0][0] if isinstance(listed[0], list) else listed[0]
            timed[name] = seconds
            report(f"tablebase build {' '.join(game)} --max {heaps}", wall_s=seconds, table_s=printed[-1]["seconds"],
                   bytes=printed[-1]["bytes"], period=entry.get("period"))
    report("  .16 against the subtraction game, whole commands", ratio=timed[".16"] / timed["subtraction {1,2}"])


def grundy_for(seconds: float, progress: bool, saved: Path | None = None, top_k: int = 34) -> None:
    """Grundy's game from 2^20 heaps, doubling while the next doubling should fit the time left, up to
    2^top_k. With ``saved`` (a .npy file), each doubling's values are kept there and a run starts from
    them: a run of hours goes on where the last one stopped."""
    import numpy as np

    top, values, began = 2**20, None, time.process_time()
    if saved is not None and saved.exists():
        values = load_grundy_values(saved, "bench_octal")
        top = max(top, 1 << (values.size - 1).bit_length())
    while top <= 2**top_k:
        step = time.process_time()
        values = grundy_values("grundy", top - 1, start=values,
                               progress=ProgressLine("grundy") if progress else None)
        spent, last = time.process_time() - began, time.process_time() - step
        if saved is not None:
            partial = saved.with_name(saved.name + ".partial.npy")
            np.save(partial, values)
            partial.replace(saved)
        rv = rare_values(values, "grundy")
        report("grundy's game", heaps=top, cpu_s=spent, rare=rv.heaps.size, last_rare=int(rv.heaps[-1]),
               largest=rv.largest, largest_at=rv.largest_heap)
        if spent + 2.5 * last > seconds:
            return
        top *= 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", default="0.16", help="the code of the sparse-against-plain race")
    parser.add_argument("--max", type=int, default=10**7, help="heaps of the sparse solver")
    parser.add_argument("--plain", type=int, default=10**5, help="heaps of the plain loop (and half as many)")
    parser.add_argument("--grundy-max", type=int, default=20, help="Grundy's game to 2^k heaps")
    parser.add_argument("--skip", default="", help="published periods to leave out, e.g. 0.354,0.376")
    parser.add_argument("--progress", action="store_true", help="a progress line a second on stderr")
    parser.add_argument("--stretch", action="store_true", help="and .1777's period (2 GB, minutes)")
    parser.add_argument("--skip-all", action="store_true", help="none of the solver's figures above")
    parser.add_argument("--tables", action="store_true", help="the octal game's tables, through the command")
    parser.add_argument("--codes", default="all-3-digit", help="the codes of the job (--tables; \"\": no job)")
    parser.add_argument("--codes-max", type=int, default=2**20, help="heaps of each code of the job")
    parser.add_argument("--table-max", type=int, default=10**8,
                        help="heaps of the .16 table and of the subtraction game's beside it (0: none)")
    parser.add_argument("--grundy-seconds", type=float, default=0, help="Grundy's game, doubling, this long")
    parser.add_argument("--grundy-top", type=int, default=34, help="... up to 2^k heaps at most")
    parser.add_argument("--grundy-save", type=Path, help="... keeping the values in this .npy file, and resuming")
    args = parser.parse_args()
    warm_up()
    if not args.skip_all:
        sparse_against_plain(args.code, args.max, args.plain, args.progress)
        periods(set(filter(None, args.skip.split(","))), args.progress, args.stretch)
        grundy(args.grundy_max, args.progress)
    if args.tables:
        tables(args.codes, args.codes_max, args.table_max)
    if args.grundy_seconds:
        grundy_for(args.grundy_seconds, args.progress, args.grundy_save, args.grundy_top)


if __name__ == "__main__":
    main()
