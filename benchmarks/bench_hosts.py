"""Memory per host as hosts are added: a table (dense Chomp, or a plain game) built on 1, 2 and 3 worker hosts,
against one process.

    python benchmarks/bench_hosts.py                                  # Chomp 12x12, values on disk
    python benchmarks/bench_hosts.py --rows 15 --cols 15 --memory-limit 600MiB
    python benchmarks/bench_hosts.py --plain-kayles 40 --memory-limit 600MiB  # a plain game listed on the hosts

Needs root and iproute2 (``ip netns``): each host is a network namespace with a
``/dev/shm`` of its own (``tests/hosts.py``), one worker a host, and the build
runs on a host of its own. The workers are told that a machine keeps none of
the values in memory (``TABLEBASE_VALUES_MEMORY=0``, as for values larger than
any worker's limit): each host maps them from files on disk. The hosts here
share one kernel, so they map one copy; on separate machines each has its own.

For each number of hosts: the whole build's time, the peak of each worker
host's own memory (the anonymous and shared-memory pages of its processes,
sampled), the largest file pages one of its processes mapped (shared libraries
and the values' pages, which the kernel's page cache holds and may drop), the
driver host's own peak, and whether
the table is byte-identical to the one-process build, timed first in the same
run as the baseline; or, where the build failed (too few hosts for the table),
its exit and its last line.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from common import report  # noqa: E402

from tests.hosts import Hosts, usable  # noqa: E402

MIB = 2**20
KAYLES = ROOT / "tests" / "plugins" / "kayles_rows.py"


def status_bytes(pid: int, *fields: str) -> int:
    """The sum of these ``/proc/<pid>/status`` fields (kB there), in bytes; 0 for a process gone."""
    total = 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                name, _, value = line.partition(":")
                if name in fields:
                    total += int(value.split()[0]) * 1024
    except OSError:
        pass
    return total


class HostPeaks:
    """Samples each host's process tree: its own pages (anonymous and shared memory) and its mapped files."""

    def __init__(self, roots: dict[str, int], every: float = 0.1) -> None:
        self.roots, self.every = roots, every
        self.own = dict.fromkeys(roots, 0)
        self.files = dict.fromkeys(roots, 0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for host, pid in self.roots.items():
                try:
                    tree = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
                except psutil.Error:
                    continue
                own = sum(status_bytes(p.pid, "RssAnon", "RssShmem") for p in tree)
                files = max((status_bytes(p.pid, "RssFile") for p in tree), default=0)
                self.own[host], self.files[host] = max(self.own[host], own), max(self.files[host], files)
            time.sleep(self.every)

    def __enter__(self) -> "HostPeaks":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def file_hashes(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def game_args(args: argparse.Namespace) -> list[str]:
    """What names the table to build: Chomp of rows x cols, or the plain-Python Kayles of the tests (every set
    of rows of at most ``--plain-kayles`` pins: 215,308 positions for 40, whose listing in one process held
    about 1,190 MiB)."""
    if args.plain_kayles:
        return ["--game", f"{KAYLES}:KaylesRows", "--pins", str(args.plain_kayles), "--every", "1"]
    return ["chomp", "--rows", str(args.rows), "--cols", str(args.cols)]


def one_process(args: argparse.Namespace, out: Path) -> tuple[float, dict[str, str]]:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-m", "tablebase", "build", *game_args(args), "--partition-rows",
                    str(args.partition_rows), "--workers", "1", "--quiet", "--out", str(out)],
                   check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - began, file_hashes(out / table_name(args))


def table_name(args: argparse.Namespace) -> str:
    if args.plain_kayles:
        return f"kayles_rows_pins{args.plain_kayles}_every1"
    return f"chomp_{args.rows}x{args.cols}"


def on_hosts(args: argparse.Namespace, workers: int, out: Path, baseline: dict[str, str]) -> None:
    logs = out / "logs"
    logs.mkdir(parents=True)
    # Dask's own patience with a silent worker (the tests' hosts give up after 10 s, to cut links quickly): a
    # worker writing its values to a file on a busy disk may miss a heartbeat or two.
    with Hosts(workers, tag=f"b{workers}", subnet=f"10.78.{workers}", memory_limit=args.memory_limit,
               shm_size=args.shm_size, scheduler_env={"DASK_DISTRIBUTED__SCHEDULER__WORKER_TTL": "300s"}) as hosts:
        hosts.start_cluster(logs)
        argv = hosts.tablebase("build", *game_args(args), "--partition-rows", args.partition_rows, "--quiet",
                               "--out", out / "tables", "--scheduler", hosts.scheduler)
        began = time.perf_counter()
        with (logs / "driver.log").open("w") as said:
            driver = subprocess.Popen(argv, env=hosts.env({"TABLEBASE_VALUES_MEMORY": "0"}), cwd=ROOT,
                                      stdout=subprocess.DEVNULL, stderr=said)
            roots = {host: hosts.procs[host].pid for host in hosts.workers} | {"drv": driver.pid}
            with HostPeaks(roots) as peaks:
                code = driver.wait()
        seconds = time.perf_counter() - began
    own = [peaks.own[h] / MIB for h in roots if h != "drv"]
    figures = dict(seconds=seconds, worker_host_mib=" / ".join(f"{m:,.0f}" for m in own),
                   mapped_files_mib=max(peaks.files[h] for h in roots if h != "drv") / MIB,
                   driver_mib=peaks.own["drv"] / MIB)
    name = f"{workers} worker host{'s' if workers > 1 else ''}"
    if code != 0:  # a figure too (too few hosts for the table): the logs kept, as the scratch folder goes
        kept = shutil.copytree(logs, Path(tempfile.gettempdir()) / f"bench_hosts-logs-{workers}-{int(time.time())}")
        said = (logs / "driver.log").read_text().strip().splitlines()
        report(name, **figures, failed=f"exit {code}: {said[-1] if said else ''} (logs in {kept})")
        return
    report(name, **figures, identical=file_hashes(out / "tables" / table_name(args)) == baseline)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=12)
    parser.add_argument("--cols", type=int, default=12)
    parser.add_argument("--plain-kayles", type=int, metavar="PINS", help="the plain-Python Kayles instead of Chomp")
    parser.add_argument("--partition-rows", type=int, help="default: 100,000 for Chomp, 5,000 for Kayles")
    parser.add_argument("--memory-limit", default="1GiB", help="each worker's")
    parser.add_argument("--shm-size", default="256m", help="each worker host's /dev/shm")
    parser.add_argument("--hosts", default="1,2,3", help="the numbers of worker hosts")
    args = parser.parse_args()
    if args.partition_rows is None:
        args.partition_rows = 5_000 if args.plain_kayles else 100_000
    if (why := usable()) is not None:
        raise SystemExit(f"bench_hosts: {why}")
    with tempfile.TemporaryDirectory(prefix="bench_hosts_") as scratch:
        seconds, baseline = one_process(args, Path(scratch) / "one")
        report(f"{table_name(args)}, one process", seconds=seconds, files=len(baseline),
               load=psutil.getloadavg()[0])
        for workers in map(int, args.hosts.split(",")):
            on_hosts(args, workers, Path(scratch) / f"hosts{workers}", baseline)


if __name__ == "__main__":
    main()
