"""Lookups from other programs: in memory, in batch, through DuckDB, and over HTTP.

    python benchmarks/bench_lookup.py                    # builds Chomp 12x12 first
    python benchmarks/bench_lookup.py --db tb --table chomp_13x13

Prints a warm point probe's latency beside DuckDB's own point lookup on the same
Parquet files (the baseline), a million-position batch lookup's rate, and an
HTTP load test from a second process (throughput, p50 and p99 latency).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import report  # noqa: E402

import tablebase  # noqa: E402
from tablebase.build import build_tables  # noqa: E402
from tablebase.build.jobs import spec_for  # noqa: E402


def http_load(base: str, table: str, positions: list[str], seconds: float, threads: int) -> None:
    """Run in a second process: keep ``threads`` clients busy for ``seconds``; print latencies as JSON."""
    import http.client

    host, port = base.split("//")[1].split(":")

    def client(offset: int) -> list[float]:
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        out, i = [], offset
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            path = f"/tables/{table}/probe?position={urllib.parse.quote(positions[i % len(positions)])}"
            began = time.perf_counter()
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            assert response.status == 200
            out.append(time.perf_counter() - began)
            i += threads
        return out

    with ThreadPoolExecutor(threads) as pool:
        latencies = sorted(x for part in pool.map(client, range(threads)) for x in part)
    print(json.dumps({"requests": len(latencies), "seconds": seconds,
                      "p50_ms": 1000 * latencies[len(latencies) // 2],
                      "p99_ms": 1000 * latencies[int(len(latencies) * 0.99)]}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db")
    parser.add_argument("--table", default="chomp_12x12")
    parser.add_argument("--batch", type=int, default=1_000_000)
    parser.add_argument("--http-seconds", type=float, default=10)
    parser.add_argument("--http-threads", type=int, default=8)
    parser.add_argument("--load", nargs=3, help=argparse.SUPPRESS)  # base table file: the load process
    args = parser.parse_args()
    if args.load:
        base, table, file = args.load
        http_load(base, table, json.loads(Path(file).read_text()), args.http_seconds, args.http_threads)
        return

    work = tempfile.TemporaryDirectory()
    root = Path(args.db or work.name)
    if not args.db:
        list(build_tables([spec_for("chomp", dict(rows=12, cols=12))], root, quiet=True))
    tb = tablebase.open(root)
    sample = tb.sql(f"SELECT position FROM {args.table} "
                    f"USING SAMPLE {args.batch} ROWS (reservoir, 1)").column("position")
    some = sample.slice(0, 2000).to_pylist()

    began = time.perf_counter()
    tb._rows(args.table)
    report("index load", table=args.table, seconds=time.perf_counter() - began)

    for p in some[:100]:
        tb.probe(args.table, p)
    began = time.perf_counter()
    for p in some:
        tb.probe(args.table, p)
    probe_us = (time.perf_counter() - began) / len(some) * 1e6
    key_of = {p: tb.probe(args.table, p)["key"] for p in some[:50]}
    began = time.perf_counter()
    for key in key_of.values():
        tb.sql(f"SELECT * FROM {args.table} WHERE key = {key}")
    duck_us = (time.perf_counter() - began) / len(key_of) * 1e6
    report("point probe", warm_us=probe_us, duckdb_point_us=duck_us, speedup=duck_us / probe_us)

    tb.lookup(args.table, some[0])  # the first call loads the move generator
    began = time.perf_counter()
    moves = sum(len(tb.lookup(args.table, p)["moves"]) for p in some[:200])
    report("lookup with all moves", warm_us=(time.perf_counter() - began) / len(some[:200]) * 1e6,
           moves_per_lookup=moves / len(some[:200]))

    began = time.perf_counter()
    rows = tb.lookup_many(args.table, sample)
    seconds = time.perf_counter() - began
    report("batch lookup", positions=rows.num_rows, seconds=seconds, positions_per_s=int(rows.num_rows / seconds))
    began = time.perf_counter()
    rows = tb.lookup_many(args.table, sample, with_positions=False)
    seconds = time.perf_counter() - began
    report("batch lookup, no re-spelling", positions=rows.num_rows, positions_per_s=int(rows.num_rows / seconds))

    port = 18000 + int(time.time()) % 1000
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, "-m", "tablebase", "serve", "--db", str(root), "--port", str(port)],
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{base}/tables/{args.table}/probe?position={urllib.parse.quote(some[0])}",
                                       timeout=60)
                break
            except OSError:
                time.sleep(0.2)
        file = Path(work.name) / "positions.json"
        file.write_text(json.dumps(some))
        out = subprocess.run(
            [sys.executable, __file__, "--load", base, args.table, str(file),
             "--http-seconds", str(args.http_seconds), "--http-threads", str(args.http_threads)],
            capture_output=True, text=True, check=True,
        ).stdout
        figures = json.loads(out)
        report("http probe load", requests=figures["requests"], per_s=figures["requests"] / figures["seconds"],
               p50_ms=figures["p50_ms"], p99_ms=figures["p99_ms"], client_threads=args.http_threads)
    finally:
        server.terminate()
        server.wait()
    work.cleanup()


if __name__ == "__main__":
    main()
