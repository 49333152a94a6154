"""`tablebase serve` under a long hostile load: a million requests, its memory before and after.

    python benchmarks/bench_serve_load.py                       # builds Chomp 7x7 first
    python benchmarks/bench_serve_load.py --requests 200000 --connections 8

Starts the server in its own process and keeps several HTTP/1.1 connections
alive from this one, each sending requests back to back: good probes and
lookups, small batches, and a share of bad ones (malformed positions, tables
that do not exist, names that try to leave the folder, bodies that are not
JSON, a body over the limit). Prints the requests sent, their answers by
status, the rate, and the server's resident memory after warming up and at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections import Counter
from pathlib import Path

import psutil

from tablebase.http.limits import MAX_BATCH, MAX_BODY


def requests_for(table: str, positions: list[str]) -> list[bytes]:
    """The mix each connection cycles through: about half of it bad."""

    def get(path: str) -> bytes:
        return f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode()

    def post(path: str, body: bytes) -> bytes:
        return (f"POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode() + body

    q = urllib.parse.quote
    good = [get(f"/tables/{table}/probe?position={q(p)}") for p in positions[:50]]
    good += [get(f"/tables/{table}/lookup?position={q(p)}") for p in positions[50:60]]
    good += [post(f"/tables/{table}/lookup-many", json.dumps({"positions": positions[i:i + 20]}).encode())
             for i in range(0, 200, 20)]
    bad = [
        get(f"/tables/{table}/probe?position={q('9 9 9 9 9 9 9 9')}"),
        get(f"/tables/{table}/probe?position={q('x' * 900)}"),
        get(f"/tables/{table}/probe?position={q('1' * 2000)}"),
        get("/tables/nosuch/probe?position=1"),
        get("/tables/..%2f..%2fetc/probe?position=1"),
        get(f"/tables/{table}/probe"),
        post(f"/tables/{table}/lookup-many", b"{not json"),
        post(f"/tables/{table}/lookup-many", b'{"positions": [1, null]}'),
        post(f"/tables/{table}/lookup-many", json.dumps({"positions": ["\0" * 500] * 10}).encode()),
        get("/nowhere"),
        post(f"/tables/{table}/lookup-many", b" " * 16 + b"{}"),
    ]
    too_many = post(f"/tables/{table}/lookup-many", json.dumps({"positions": ["0"] * (MAX_BATCH + 1)}).encode())
    return good + bad * 3 + [too_many]


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bool]:
    """One response: its status, and whether the server closes the connection after it."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
    await reader.readexactly(int(headers.get("content-length", "0")))
    return status, headers.get("connection", "").lower() == "close"


async def connection(port: int, mix: list[bytes], count: int, statuses: Counter, offset: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for i in range(count):
        writer.write(mix[(i + offset) % len(mix)])
        status, closing = await read_response(reader)
        statuses[status] += 1
        if closing:
            writer.close()
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.close()


async def oversize(port: int, statuses: Counter) -> None:
    """A body declared over the limit: refused on its headers, before it is sent, the connection closed."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"POST /tables/x/lookup-many HTTP/1.1\r\nHost: b\r\nContent-Length: {MAX_BODY + 1}\r\n\r\n".encode())
    status, _ = await read_response(reader)
    statuses[status] += 1
    writer.close()


async def load(port: int, mix: list[bytes], total: int, connections: int, statuses: Counter) -> None:
    each = total // connections
    await asyncio.gather(*(connection(port, mix, each, statuses, i * 7) for i in range(connections)))
    for _ in range(10):
        await oversize(port, statuses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="a tablebase folder (default: build Chomp 7x7 in a temporary one)")
    parser.add_argument("--table", default="chomp_7x7")
    parser.add_argument("--requests", type=int, default=1_000_000)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--port", type=int, default=8917)
    args = parser.parse_args()
    temp = tempfile.TemporaryDirectory()
    db = args.db or Path(temp.name)
    if args.db is None:
        subprocess.run([sys.executable, "-m", "tablebase", "build", "chomp", "--rows", "7", "--cols", "7",
                        "--out", str(db), "--workers", "1", "--quiet"], check=True, capture_output=True)
    import tablebase

    with tablebase.open(db) as tb:
        positions = [r["position"] for r in tb.sql(f"SELECT position FROM {args.table} LIMIT 200").to_pylist()]
    server = subprocess.Popen([sys.executable, "-m", "tablebase", "serve", "--db", str(db), "--port", str(args.port)])
    try:
        mix = requests_for(args.table, positions)
        statuses: Counter = Counter()
        deadline = time.monotonic() + 60
        while True:
            try:
                asyncio.run(load(args.port, mix, 2000, 4, statuses))  # warm up: the table's index is loaded
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)
        process = psutil.Process(server.pid)
        before = process.memory_info().rss
        statuses.clear()
        began = time.perf_counter()
        asyncio.run(load(args.port, mix, args.requests, args.connections, statuses))
        seconds = time.perf_counter() - began
        after = process.memory_info().rss
        sent = sum(statuses.values())
        print(json.dumps({
            "requests": sent, "seconds": round(seconds, 1), "per_second": round(sent / seconds),
            "statuses": dict(sorted(statuses.items())),
            "server_errors": sum(n for s, n in statuses.items() if s >= 500),
            "rss_before_mib": round(before / 2**20, 1), "rss_after_mib": round(after / 2**20, 1),
        }))
    finally:
        server.terminate()
        server.wait(timeout=30)
        temp.cleanup()


if __name__ == "__main__":
    main()
