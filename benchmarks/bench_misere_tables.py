"""Misère answers of sums through a built octal table, and what ``--misere`` costs a build, logged.

    python benchmarks/bench_misere_tables.py                   # the lookups, then four builds in turns
    python benchmarks/bench_misere_tables.py --only lookups -n 3

Lookups: Kayles (0.77) to 1,000 heaps is built twice, with ``--misere`` (its
quotient of heaps 0..20 beside) and without, and the same sum of twelve heaps
is probed warm on each: the time of a probe that answers normal play and
misère play from the quotient, against the probe of normal play alone (the
baseline, measured in the same run); ``lookup`` (every move listed, each with
the misère outcome of the sum it leaves) likewise. A sum's probe lists every
move of every heap to name a best move, so both take milliseconds; the misère
answer alone (its outcome and a winning move from the quotient) is timed too,
against reading the twelve heaps' Grundy values by probes and their XOR.

Builds: four impartial games, each built by the whole command with and without
``--misere`` in turns (A B A B ..., a fresh folder each run), the medians and
their ratio: an octal game (its quotient grown as a finishing task), a
subtraction game and Chomp (misère figures in the rows, from the same pass),
and Wythoff (whose queen solver gives way to the generic loop with misère
figures).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import report  # noqa: E402

SUM = "20 19 17 15 13 11 9 7 5 3 2 1"  # twelve heaps, each within the quotient's heaps 0..20
BUILDS = {  # each a few seconds of building, not only of starting
    "octal 0.77 to 1,000,000 heaps": ["octal", "--code", "0.77", "--max", "1000000"],
    "subtraction {2,5} to 2,000,000": ["subtraction", "--set", "2,5", "--max", "2000000"],
    "chomp 11x11": ["chomp", "--rows", "11", "--cols", "11"],
    "wythoff to 1,000": ["wythoff", "--max", "1000"],
}


def command(args: list[str], out: Path, misere: bool) -> list[str]:
    return [sys.executable, "-m", "tablebase", "build", *args, "--out", str(out), "--quiet", "--workers", "2",
            *(["--misere"] if misere else [])]


def built(args: list[str], out: Path, misere: bool) -> float:
    """Seconds of one whole build command; SystemExit with its last line if it fails."""
    began = time.perf_counter()
    done = subprocess.run(command(args, out, misere), capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"bench_misere_tables.py: {' '.join(args)} failed: {done.stderr.strip()[-300:]}")
    return time.perf_counter() - began


def in_turns(a, b, calls: int, rounds: int = 5) -> tuple[float, float]:
    """Microseconds a call of ``a`` and of ``b``: rounds of ``calls`` each, in turns (A B A B ...) so that the
    machine's drift falls on both alike, the best round of each (the first warms the table)."""
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for i, call in enumerate((a, b)):
            began = time.perf_counter()
            for _ in range(calls):
                call()
            best[i] = min(best[i], (time.perf_counter() - began) / calls * 1e6)
    return best[0], best[1]


def lookups(work: Path, calls: int) -> None:
    import tablebase
    from tablebase.kinds.misere_sums import misere_answer, quotient_of, winning_move

    args = ["octal", "--code", "0.77", "--max", "1000"]
    built(args, work / "plain", False)
    built(args, work / "misere", True)
    table = "octal_0_77_n1000"
    with tablebase.open(work / "plain") as plain, tablebase.open(work / "misere") as misere:
        answer = misere.probe(table, SUM)
        assert answer["misere_outcome"] in ("P", "N") and "misere_outcome" not in plain.probe(table, SUM)
        for verb in ("probe", "lookup"):
            a, b = in_turns(lambda: getattr(misere, verb)(table, SUM), lambda: getattr(plain, verb)(table, SUM), calls)
            report(f"{verb} of a sum of 12 heaps", with_misere_us=round(a, 1), normal_play_us=round(b, 1),
                   ratio=round(a / b, 2), misere_outcome=answer["misere_outcome"])
        # The misère answer alone, from the quotient the table read (its outcome and a winning move), against
        # reading the same heaps' stored Grundy values by probes and their XOR: what each play's answer costs
        # once the parts are known.
        heaps = [int(h) for h in SUM.split()]
        quotient = quotient_of(misere._stored_table(table))

        def xor() -> int:
            x = 0
            for h in heaps:
                x ^= plain.probe(table, str(h))["grundy"]
            return x

        a, b = in_turns(lambda: (misere_answer(quotient, heaps), winning_move(quotient, heaps)), xor, calls * 50)
        report("the answer of a sum of 12 heaps", misere_us=round(a, 2), normal_play_probes_us=round(b, 2),
               ratio=round(a / b, 2))


def builds(work: Path, runs: int) -> None:
    for name, args in BUILDS.items():
        with_misere, without = [], []
        for i in range(runs):  # in turns, so that the machine's drift falls on both alike
            with_misere.append(built(args, work / f"a{i}", True))
            without.append(built(args, work / f"b{i}", False))
        a, b = statistics.median(with_misere), statistics.median(without)
        report(f"build {name}", runs=runs, with_misere_s=round(a, 2), without_s=round(b, 2), ratio=round(a / b, 2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["lookups", "builds"], help="one half only")
    parser.add_argument("-n", type=int, default=3, help="builds of each game with and without --misere")
    parser.add_argument("--calls", type=int, default=100, help="lookups of the sum a round (50 times as many of the "
                        "answer alone)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-misere-") as work:
        if args.only != "builds":
            lookups(Path(work), args.calls)
        if args.only != "lookups":
            builds(Path(work), args.n)


if __name__ == "__main__":
    main()
