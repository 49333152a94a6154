"""What a build says as it goes, seen on a real cluster and from the command: a part's positions told as they
are solved (the files the same as a part solved at once), a resumed listing never silent, compiling said at a
machine's first use, and the seconds of the summary those of the lines (build/progress/)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow as pa
import pytest
from distributed import Client
from helpers import assert_clean_error, killed_while_listing, tablebase

from tablebase.build import build_tables
from tablebase.build.driver import build_table
from tablebase.build.jobs import spec_for
from tablebase.build.progress.worker_events import STEP, listening
from tablebase.store import Manifest

pytestmark = pytest.mark.slow  # the cluster, or the command in processes of its own: see conftest.py

GAME = str(Path(__file__).parent / "plugins" / "kayles_rows.py") + ":KaylesRows"


def told_part(run: str) -> list[int]:
    """On a worker: 50,000 positions solved by a stand-in solver at 20 us each (0.16 s a step), told as they
    go."""
    from tablebase.build.progress.worker_events import solve_part_told

    def solve(a: int, b: int) -> pa.Table:
        time.sleep((b - a) * 2e-5)
        return pa.table({"key": pa.array(range(a, b), pa.int64())})

    return solve_part_told(solve, 0, 50_000, run, "part-x", 7, every=0.4).column("key").to_pylist()


def test_a_part_is_told_as_it_is_solved_and_its_rows_are_those_of_one_call(scheduler):
    heard: list[tuple[str, int, int]] = []

    class Hearing:
        def solving(self, part: str, level: int, done: int, seconds: float, over: bool = False) -> None:
            heard.append((part, level, done))

    with Client(scheduler) as client, listening(client, "told-run", Hearing()):
        keys = client.submit(told_part, "told-run", pure=False).result()
        time.sleep(0.5)  # the last events reach this process after the result
    assert keys == list(range(50_000))
    assert len(heard) >= 2 and {(p, lv) for p, lv, _ in heard} == {("part-x", 7)}, heard
    done = [n for _, _, n in heard]
    assert done == sorted(done) and 0 < done[0] and done[-1] < 50_000, done


def test_parts_solved_in_steps_write_the_files_of_parts_solved_at_once(tmp_path, scheduler):
    spec = spec_for("chomp", {"rows": 12, "cols": 12})  # 2,704,155 positions, levels of up to 61,108
    list(build_tables([spec], tmp_path / "quiet", scheduler=scheduler, partition_rows=32_768, quiet=True))
    with Client(scheduler) as client:
        (tmp_path / "told").mkdir()
        build_table(client, tmp_path / "told", spec, 32_768, every=0.02)
    quiet, told = (Manifest.load(tmp_path / name, spec.name) for name in ("quiet", "told"))
    assert {n: f["sha256"] for n, f in told.files.items()} == {n: f["sha256"] for n, f in quiet.files.items()}
    layout = told.layout()
    # Parts of a level larger than a step (readback.STEP): solved in steps, whether told or not.
    assert sum(1 for n, f in told.files.items() if layout.named(n).parts > 1 and f["rows"] > STEP) > 10


def lines_with_times(argv: list[str], env: dict[str, str] | None = None) -> tuple[list[tuple[float, str]], str, int]:
    """The command's stderr lines, each with the seconds from its start at which it came; its stdout; its status."""
    began = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "tablebase", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    said: list[tuple[float, str]] = []
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.append(proc.stdout.read()))
    reader.start()
    for line in proc.stderr:
        said.append((time.monotonic() - began, line.rstrip("\n")))
    proc.wait(timeout=900)
    reader.join()
    return said, out[0], proc.returncode


def test_a_resumed_listing_speaks_every_interval_and_its_seconds_are_the_summarys(tmp_path):
    out = tmp_path / "tb"
    table = "kayles_rows_pins40"
    killed_while_listing(out, table, "--game", GAME, "--pins", 40, "--workers", 2, levels=5)
    said, stdout, status = lines_with_times(["build", "--game", GAME, "--pins", "40", "--out", str(out),
                                             "--workers", "2", "--progress-every", "1"])
    text = "\n".join(line for _, line in said)
    assert status == 0, text
    resumed = next(t for t, line in said if "listing resumed" in line)
    listed = next(t for t, line in said if re.search(r"\] listed [\d,]+ positions", line))
    during = [t for t, _ in said if resumed <= t <= listed]
    # Each interval (a second here; more on a loaded machine) has its line, and they count what is found.
    assert max(b - a for a, b in zip(during, during[1:])) < 6, text
    assert any("positions found so far" in line for t, line in said if resumed <= t <= listed), text
    summary = json.loads(stdout.splitlines()[-1])
    line = next(line for _, line in said if re.search(r"\] listed [\d,]+ positions", line))
    assert re.search(r" in ([\d.]+)s ", line).group(1) == f"{summary['listing_seconds']:.1f}", (line, summary)
    built = next(line for _, line in said if "] built in " in line)
    assert re.search(r"built in ([\d.]+)s", built).group(1) == f"{summary['seconds']:.1f}", (built, summary)
    assert f"solving {summary['solving_seconds']:.1f}s" in built and f"listing {summary['listing_seconds']:.1f}s" \
        f" (numbering {summary['numbering_seconds']:.1f}s)" in built, (built, summary)
    assert 0 < summary["numbering_seconds"] <= summary["listing_seconds"], summary  # the listing's last part
    assert summary["seconds"] >= summary["listing_seconds"] + summary["solving_seconds"] + summary["index_seconds"]


def test_compiling_is_said_at_a_machines_first_use_and_not_after(tmp_path):
    """With a cache of compiled code of its own (the first use on a machine), the build says it compiles
    before it solves anything; built again with that cache, it does not."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["TABLEBASE_CACHE"] = str(tmp_path / "cache")
    first, _, status = lines_with_times(["build", "chomp", "--rows", "6", "--cols", "6", "--out", str(tmp_path / "a")],
                                        env)
    text = "\n".join(line for _, line in first)
    assert status == 0, text
    compiling = next(i for i, (_, line) in enumerate(first) if "compiling the game's functions with numba" in line)
    solved = [i for i, (_, line) in enumerate(first) if re.search(r"  [1-9][\d,]*/[\d,]+ positions", line)]
    assert solved and compiling < solved[0], text
    again, _, status = lines_with_times(["build", "chomp", "--rows", "6", "--cols", "6", "--out", str(tmp_path / "b")],
                                        env)
    assert status == 0 and not any("compiling" in line for _, line in again), again


LOOKUP = """
import tablebase
rows = tablebase.open({folder!r}).lookup_many("chomp_6x6", ["5 5 3 2"] * 20_000)
assert len(rows) == 20_000
"""


def test_a_batch_lookup_says_it_compiles_at_a_machines_first_use_and_not_after(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    built = subprocess.run([sys.executable, "-m", "tablebase", "build", "chomp", "--rows", "6", "--cols", "6",
                            "--out", str(tmp_path / "tb"), "--quiet"], capture_output=True, text=True,
                           env={**env, "TABLEBASE_CACHE": str(tmp_path / "built")}, timeout=600)
    assert built.returncode == 0, built.stderr
    looked = [subprocess.run([sys.executable, "-c", LOOKUP.format(folder=str(tmp_path / "tb"))], capture_output=True,
                             text=True, env={**env, "TABLEBASE_CACHE": str(tmp_path / "looked")}, timeout=600)
              for _ in range(2)]
    assert [r.returncode for r in looked] == [0, 0], [r.stderr for r in looked]
    assert "compiling the game's functions with numba (their first use on this machine" in looked[0].stderr
    assert "compiling" not in looked[1].stderr, looked[1].stderr


def test_the_interval_is_one_option_of_the_build_and_a_bad_one_is_refused_in_one_line(tmp_path):
    helped = tablebase("build", "chomp", "--help")
    assert helped.returncode == 0 and "--progress-every SECONDS" in helped.stdout, helped.stdout
    for bad in ("0", "-1", "nan"):
        refused = tablebase("build", "chomp", "--rows", "3", "--cols", "3", "--out", tmp_path / "tb",
                            "--progress-every", bad)
        assert_clean_error(refused, "--progress-every")
    assert not (tmp_path / "tb").exists()
