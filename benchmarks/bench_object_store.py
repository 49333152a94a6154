"""The same build on a folder and on an object store: time, requests, bytes sent and received.

    python benchmarks/bench_object_store.py                     # Chomp 12x12, 2,704,155 positions
    python benchmarks/bench_object_store.py --rows 11 --cols 11 --partition-rows 20000

Runs the command line as a user would, in child processes, each with a local
cluster of its own: the build in a folder, then on the S3-protocol server the
tests use (moto's, tests/object_store.py, in this process on loopback),
through a proxy that counts every request and byte between the command and
the store; then a query and lookups on each (a lookup's first with the probe
index fetched into an empty cache, then from the cache, then by ranges). The
files of both are compared byte for byte. The store's figures are moto's on
this machine: what the protocol costs in requests and bytes holds for any
store, its speed does not.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).parent))

from common import report  # noqa: E402

from tests.object_store import Proxy, S3Server  # noqa: E402

HASHED = re.compile(r"\.[0-9a-f]{16}(?=(\.[a-z]+)?$)")


def command(*args: object) -> list[str]:
    return [sys.executable, "-m", "tablebase", *map(str, args)]


def timed(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    began = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr.strip()[-2000:]}")
    return seconds, done.stdout


def counted(proxy: Proxy) -> dict[str, int]:
    return {"requests": len(proxy.asked), "bytes_sent": proxy.sent, "bytes_received": proxy.received}


def since(proxy: Proxy, before: dict[str, int]) -> dict[str, int]:
    return {k: v - before[k] for k, v in counted(proxy).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=12)
    parser.add_argument("--cols", type=int, default=12)
    parser.add_argument("--partition-rows", type=int, default=None, help="as the build takes it")
    args = parser.parse_args()
    game = ["chomp", "--rows", args.rows, "--cols", args.cols]
    if args.partition_rows:
        game += ["--partition-rows", args.partition_rows]
    table = f"chomp_{args.rows}x{args.cols}"
    position = " ".join(str(max(args.cols - i, 1)) for i in range(args.rows // 2))
    server = S3Server()
    proxy = Proxy(server.port)
    with tempfile.TemporaryDirectory() as work:
        folder, url = Path(work) / "tb", "s3://tables/bench"
        env = {**os.environ, **server.env(), "AWS_ENDPOINT_URL": proxy.endpoint,
               "TABLEBASE_CACHE": str(Path(work) / "cache")}
        seconds, out = timed(command("build", *game, "--out", folder, "--quiet"), env)
        summary = json.loads(out.splitlines()[-1])
        files = [p for p in (folder / table).rglob("*") if p.is_file()]
        report("folder build", table=table, positions=summary["positions"], seconds=seconds,
               files=len(files), bytes=sum(p.stat().st_size for p in files))
        before = counted(proxy)
        seconds, out = timed(command("build", *game, "--out", url, "--quiet"), env)
        report("store build", table=table, seconds=seconds, **since(proxy, before))

        stored = {HASHED.sub("", key[len("bench/"):]): data for key, data in server.keys("bench/").items()}
        local = {str(p.relative_to(folder)): p.read_bytes() for p in files}
        identical = stored == local
        report("files compared", files=len(local), identical=identical)

        query = f"SELECT outcome, count(*) AS n FROM {table} GROUP BY ALL ORDER BY 1"
        for where in (folder, url):
            before = counted(proxy)
            seconds, _ = timed(command("query", "--db", where, query, "--json"), env)
            report(f"query, {'store' if where == url else 'folder'}", seconds=seconds, **since(proxy, before))
        seconds, _ = timed(command("lookup", "--db", folder, table, position, "--json"), env)
        report("lookup, folder", seconds=seconds)
        for name, reads in (("lookup, store, cache empty", "cache"), ("lookup, store, cached", "cache"),
                            ("lookup, store, by ranges", "ranges")):
            before = counted(proxy)
            seconds, _ = timed(command("lookup", "--db", url, table, position, "--json"),
                               {**env, "TABLEBASE_INDEX_READS": reads})
            report(name, seconds=seconds, **since(proxy, before))
    proxy.close()
    server.stop()
    if not identical:
        raise SystemExit("the files on the store differ from the folder's")


if __name__ == "__main__":
    main()
