"""Separate hosts on one machine: Linux network namespaces on a bridge, one address each.

A Dask scheduler runs on one host, each worker on a host of its own with a
private ``/dev/shm`` (a tmpfs mounted in its own mount namespace, so workers
share nothing in memory), and builds run on a further host. What stands in for
shared storage is an ordinary folder, seen by every host. Links can be taken
down and up, processes killed, as on a real network of machines.

    python -m tests.hosts up [--workers 2] [--memory-limit 1GiB]   # prints how to build on it
    python -m tests.hosts down

Needs root and ``ip netns`` (iproute2). The test suite uses :class:`Hosts` as a
context manager, which removes everything it made however it ends.
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
from typing import Sequence

REPO = Path(__file__).resolve().parent.parent
DASK = str(Path(sys.executable).with_name("dask"))
PORT = 8786
STATE = Path("/run/tablebase-hosts")  # what `up` started, for `down`


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check)


def usable() -> str | None:
    """Why separate hosts cannot be made here, or None if they can."""
    if os.geteuid() != 0:
        return "making network namespaces needs root"
    try:
        probe = f"tbprobe{os.getpid() % 100000}"
        made = _ip("netns", "add", probe, check=False)
        if made.returncode != 0:
            return f"`ip netns add` fails here: {made.stderr.strip()}"
        _ip("netns", "del", probe, check=False)
    except FileNotFoundError:
        return "iproute2 (`ip`) is not installed"
    return None


class Hosts:
    """A scheduler host, worker hosts and a driver host on one bridge (10.77.0.0/24 by default).

    ``tag`` keeps the names of several sets apart (namespaces ``tb<tag>-sched``,
    ``tb<tag>-w1``.., ``tb<tag>-drv``; bridge ``tb<tag>br``).
    """

    def __init__(self, workers: int = 2, tag: str | None = None, subnet: str = "10.77.0",
                 memory_limit: str | None = None, shm_size: str = "256m", worker_env: dict | None = None,
                 scheduler_env: dict | None = None, private_tmp: bool = False) -> None:
        """``private_tmp``: the workers and the driver each under a /tmp of their own too (a tmpfs), so that
        hosts that write to an object store share no folder they write to."""
        self.private_tmp = private_tmp
        self.tag = tag or f"{os.getpid() % 10000:04d}"
        self.subnet, self.memory_limit, self.shm_size = subnet, memory_limit, shm_size
        self.worker_env, self.scheduler_env = worker_env or {}, scheduler_env or {}
        names = ["sched", *(f"w{i}" for i in range(1, workers + 1)), "drv"]
        self.hosts = {name: (f"tb{self.tag}-{name}", f"{subnet}.{i}", f"tb{self.tag}{name}") for i, name in
                      enumerate(names, 1)}
        self.bridge = f"tb{self.tag}br"
        self.procs: dict[str, subprocess.Popen] = {}

    # -- the network -------------------------------------------------------------------------
    @property
    def scheduler(self) -> str:
        return f"tcp://{self.address('sched')}:{PORT}"

    @property
    def workers(self) -> list[str]:
        return [name for name in self.hosts if name.startswith("w")]

    def address(self, host: str) -> str:
        return self.hosts[host][1]

    def up(self) -> "Hosts":
        _ip("link", "add", self.bridge, "type", "bridge")
        _ip("link", "set", self.bridge, "up")
        for host, (ns, address, veth) in self.hosts.items():
            _ip("netns", "add", ns)
            _ip("link", "add", veth, "type", "veth", "peer", "name", f"{veth}p")
            _ip("link", "set", f"{veth}p", "netns", ns)
            _ip("link", "set", veth, "master", self.bridge, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "addr", "add", f"{address}/24", "dev", f"{veth}p")
            _ip("-n", ns, "link", "set", f"{veth}p", "up")
        return self

    def down(self) -> None:
        """Stop every process this set started, then remove its namespaces and bridge."""
        for name in list(self.procs):
            self.stop(name)
        for ns, _, veth in self.hosts.values():
            _ip("link", "del", veth, check=False)
            _ip("netns", "del", ns, check=False)
        _ip("link", "del", self.bridge, check=False)

    def reach_from_here(self, last: int = 254) -> str:
        """An address of this machine's own namespace on the hosts' bridge (``subnet.last``), where a server
        that the hosts reach (an object store) listens."""
        address = f"{self.subnet}.{last}"
        _ip("addr", "add", f"{address}/24", "dev", self.bridge)
        return address

    def link(self, host: str, up: bool) -> None:
        """Pull a host's cable out (or plug it back in): its packets go nowhere, nothing is closed."""
        _ip("link", "set", self.hosts[host][2], "up" if up else "down")

    def __enter__(self) -> "Hosts":
        try:
            return self.up()
        except BaseException:
            self.down()
            raise

    def __exit__(self, *exc: object) -> None:
        self.down()

    # -- processes ---------------------------------------------------------------------------
    def env(self, extra: dict | None = None) -> dict:
        environ = {**os.environ, **(extra or {})}
        environ["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [environ.get("PYTHONPATH")])])
        return environ

    def command(self, host: str, argv: Sequence[str], private_shm: bool = False) -> list[str]:
        """``argv`` as run on ``host``; with ``private_shm``, under a /dev/shm of its own."""
        prefix = ["ip", "netns", "exec", self.hosts[host][0]]
        mounts = [f"mount -t tmpfs -o size={self.shm_size} tmpfs /dev/shm"] if private_shm else []
        if self.private_tmp and host != "sched":
            mounts.append("mount -t tmpfs -o size=2g tmpfs /tmp")
        if mounts:
            mount = " && ".join(mounts) + " && exec \"$@\""
            prefix += ["unshare", "--mount", "--propagation", "private", "sh", "-c", mount, "sh"]
        return prefix + [str(a) for a in argv]

    def start(self, name: str, host: str, argv: Sequence[str], private_shm: bool = False,
              env: dict | None = None, log: Path | None = None) -> subprocess.Popen:
        """A long-running process on a host, in a process group of its own (so it is stopped whole)."""
        out = open(log, "ab") if log else subprocess.DEVNULL
        proc = subprocess.Popen(self.command(host, argv, private_shm), stdout=out, stderr=subprocess.STDOUT,
                                env=self.env(env), start_new_session=True)
        if log:
            out.close()
        self.procs[name] = proc
        return proc

    def stop(self, name: str, sig: int = signal.SIGTERM) -> None:
        proc = self.procs.pop(name, None)
        if proc is None:
            return
        for s in (sig, signal.SIGKILL):
            try:
                os.killpg(proc.pid, s)
            except ProcessLookupError:
                break
            try:
                proc.wait(timeout=20)
                break
            except subprocess.TimeoutExpired:
                continue
        proc.wait()

    def start_scheduler(self, log: Path | None = None) -> None:
        # A worker whose link is down sends nothing and closes nothing: after a silence of
        # this long the scheduler gives its tasks to others (Dask's default waits 5 minutes).
        env = {"DASK_DISTRIBUTED__SCHEDULER__WORKER_TTL": "10s", **self.scheduler_env}
        self.start("scheduler", "sched", [DASK, "scheduler", "--host", self.address("sched"), "--port", PORT,
                                          "--no-dashboard"], env=env, log=log)

    def start_worker(self, host: str, log: Path | None = None) -> None:
        argv = [DASK, "worker", self.scheduler, "--host", self.address(host), "--name", host,
                "--nthreads", "1", "--nworkers", "1", "--no-dashboard"]
        if self.memory_limit:
            argv += ["--memory-limit", self.memory_limit]
        self.start(host, host, argv, private_shm=True, env=self.worker_env, log=log)

    def start_cluster(self, logs: Path | None = None) -> None:
        """The scheduler and every worker, then wait until all workers have joined."""
        self.start_scheduler(logs / "scheduler.log" if logs else None)
        for host in self.workers:
            self.start_worker(host, logs / f"{host}.log" if logs else None)
        self.wait_for_workers(len(self.workers))

    def run(self, host: str, argv: Sequence[str], timeout: float = 600) -> subprocess.CompletedProcess:
        return subprocess.run(self.command(host, argv), capture_output=True, text=True, env=self.env(),
                              timeout=timeout)

    def python(self, host: str, code: str, timeout: float = 120) -> str:
        """Run Python code on a host; its standard output (an error if it fails)."""
        done = self.run(host, [sys.executable, "-c", code], timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"on {host}: {done.stderr.strip()[-2000:]}")
        return done.stdout

    def wait_for_workers(self, n: int, timeout: float = 90) -> None:
        self.python("drv", f"""
import time
from distributed import Client
deadline = time.monotonic() + {timeout}
while True:
    try:
        with Client({self.scheduler!r}, timeout="5s") as c:
            c.wait_for_workers({n}, timeout=max(1, deadline - time.monotonic()))
        break
    except OSError:
        if time.monotonic() > deadline:
            raise
        time.sleep(0.5)
""", timeout=timeout + 30)

    def tablebase(self, *args: object, host: str = "drv") -> list[str]:
        """The command line of ``tablebase ARGS`` on a host (the driver's by default)."""
        return self.command(host, [sys.executable, "-m", "tablebase", *map(str, args)])


# -- python -m tests.hosts up/down -------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.hosts", description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["up", "down"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", help="each worker's, as dask worker takes it (e.g. 1GiB)")
    parser.add_argument("--logs", type=Path, default=Path("/tmp/tablebase-hosts"))
    args = parser.parse_args(argv)
    if (why := usable()) is not None and args.action == "up":
        print(f"cannot make hosts: {why}", file=sys.stderr)
        return 2
    STATE.mkdir(parents=True, exist_ok=True)
    state = STATE / "hosts.json"
    if args.action == "down":
        if not state.exists():
            print("no hosts are up", file=sys.stderr)
            return 0
        saved = json.loads(state.read_text())
        for pid in saved["pids"]:
            try:
                os.killpg(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        time.sleep(2)
        for pid in saved["pids"]:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        Hosts(saved["workers"], tag=saved["tag"]).down()
        state.unlink()
        print("hosts removed")
        return 0
    if state.exists():
        print("hosts are up already; run `python -m tests.hosts down` first", file=sys.stderr)
        return 2
    hosts = Hosts(args.workers, tag="demo", memory_limit=args.memory_limit).up()
    args.logs.mkdir(parents=True, exist_ok=True)
    try:
        hosts.start_cluster(args.logs)
    except BaseException:
        hosts.down()
        raise
    state.write_text(json.dumps({"tag": "demo", "workers": args.workers,
                                 "pids": [p.pid for p in hosts.procs.values()]}))
    drv = hosts.hosts["drv"][0]
    print(f"scheduler {hosts.scheduler}, {args.workers} workers (each with its own /dev/shm), logs in {args.logs}\n"
          f"build from the driver host:\n"
          f"  ip netns exec {drv} {sys.executable} -m tablebase build chomp --rows 9 --cols 9 "
          f"--out /tmp/tables --scheduler {hosts.scheduler}\n"
          f"take a worker's link down: ip link set {hosts.hosts['w1'][2]} down\n"
          f"remove it all: python -m tests.hosts down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
