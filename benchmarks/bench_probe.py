"""Probing a table through its probe index, from Python and from C, beside DuckDB's point query.

    python benchmarks/bench_probe.py                              # builds Chomp 13x13 first (about a minute)
    python benchmarks/bench_probe.py --db tb --table chomp_13x13
    python benchmarks/bench_probe.py --db tb --table wythoff_n1000    # any dense table

Prints in one run: the interpreter's own start (`python -c pass`), a cold one-shot
probe (a whole `python -c` process) beside a cold DuckDB point query, the first
probe after opening, a warm probe by key (`ProbeIndex.probe`) and of a position's
text (`Tablebase.probe`), each beside DuckDB's `SELECT ... WHERE key = ?` on the
same table's Parquet files (the baseline, measured in the same run), probe_many's
rate on ten million random keys, lookup_many's rate on texts, the C reader's probe
timed in C and the index's bytes a position. A shared machine slows every figure:
the load average is printed, and times are given by the wall's clock and by the
process's CPU time. Whole processes run with bytecode caches, as an installed
package has them.

Then the same through the library and the command, through the index and the
old way (the table's rows loaded into memory, as for a table without an index:
a folder of hard links to the same files, without probe.tbi), side by side:
`tablebase lookup` as a whole process, `import tablebase` and `tablebase.open`,
the first `Tablebase.probe` after them, the resident memory that importing,
opening and that probe add, a warm
`Tablebase.probe` of a position's text, and `lookup_many`'s rate.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

READER = Path(__file__).parent.parent / "readers" / "c" / "tbprobe.c"
sys.path.insert(0, str(Path(__file__).parent))

import common  # noqa: E402


def child_env() -> dict[str, str]:
    """The environment of the processes timed cold: bytecode caches written and read, as an installed
    package has them (a machine that sets PYTHONDONTWRITEBYTECODE compiles every module in every process)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def whole_process(argv: list[str], runs: int, given: str | None = None) -> float:
    """Seconds of a whole process (the median of ``runs``, after one that writes the caches), ``given`` its input."""
    subprocess.run(argv, check=True, capture_output=True, env=child_env(), input=given, text=True)
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, env=child_env(), input=given, text=True)
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def one_shot(path: Path, key: int, runs: int) -> float:
    """Seconds of a whole `python -c` process that opens the index and probes one key (the median)."""
    script = f"from tablebase.probe import ProbeIndex; print(ProbeIndex({str(path)!r}).probe({key}))"
    return whole_process([sys.executable, "-c", script], runs)


def duckdb_one_shot(root: Path, table: str, key: int, runs: int) -> float:
    """Seconds of a whole `python -c` process that asks DuckDB for one row of the table's Parquet files (the query
    read from its input: a large table's thousands of file names exceed the limit of a command line)."""
    from tablebase.store import Manifest, table_dir

    files = [str(table_dir(root, table) / name) for name in sorted(Manifest.load(root, table).files)]
    query = f"SELECT COLUMNS(lambda c: c != 'position') FROM read_parquet({files!r}) WHERE key = {key}"
    script = "import duckdb, sys; print(duckdb.sql(sys.stdin.read()).fetchall())"
    return whole_process([sys.executable, "-c", script], runs, given=query)


def in_process(path: Path, keys: list[int]) -> dict[str, float]:
    """Opening, the first probe after it, and warm probes (seconds each)."""
    from tablebase.probe import ProbeIndex

    began = time.perf_counter()
    index = ProbeIndex(path)
    opened = time.perf_counter()
    index.probe(keys[0])
    first = time.perf_counter()
    touched = time.perf_counter()
    for key in keys:  # each page's first touch in this process: a page fault, even with the file in the cache
        index.probe(key)
    wall, cpu = time.perf_counter(), time.process_time()
    for key in keys:
        index.probe(key)
    out = {"open": opened - began, "first": first - opened, "warm": (time.perf_counter() - wall) / len(keys),
           "warm_cpu": (time.process_time() - cpu) / len(keys), "touch": (wall - touched) / len(keys)}
    index.close()
    return out


def by_text(root: Path, table: str, keys: list[int], batch: int) -> dict[str, float]:
    """``Tablebase.probe`` of positions' texts in this process, warm (seconds each, by wall and CPU time),
    and ``lookup_many``'s rate on ``batch`` of the same texts (positions a second), with and without the positions,
    given as a list of str and as an Arrow array (a DataFrame's column: no Python string each); the best of
    three runs each."""
    import tablebase

    with tablebase.open(root) as tb:
        texts = tb._game(table).format_positions(np.array(keys, dtype=np.int64)).to_strings()
        for text in texts:  # every page touched once (see in_process)
            tb.probe(table, text)
        wall, cpu = time.perf_counter(), time.process_time()
        for text in texts:
            tb.probe(table, text)
        out = {"warm": (time.perf_counter() - wall) / len(texts), "warm_cpu": (time.process_time() - cpu) / len(texts)}
        # An impartial table's best move is found by the children: the figures the index holds, apart.
        held = [c for c in tb._stored_table(table).kind.columns() if c not in ("best_move", "key", "position")]
        wall, cpu = time.perf_counter(), time.process_time()
        for text in texts:
            tb.probe(table, text, columns=held)
        out["warm_held"] = (time.perf_counter() - wall) / len(texts)
        out["warm_held_cpu"] = (time.process_time() - cpu) / len(texts)
        tb.lookup_many(table, texts[:20_000])  # the game's readers compiled (numba, where installed)
        many = [texts[i % len(texts)] for i in range(batch)]
        column = pa.array(many)
        # An impartial table's best move is found by the children: its batch apart, once, on fewer texts.
        stored = [c for c in tb.sql(f"SELECT * FROM {table} LIMIT 0").column_names if c != "best_move"]
        for given, name in ((many, "many"), (column, "many_arrow")):
            for positions in (True, False):
                seconds = []
                for _ in range(3):
                    began = time.perf_counter()
                    tb.lookup_many(table, given, with_positions=positions,
                                   columns=[c for c in stored if positions or c != "position"])
                    seconds.append(time.perf_counter() - began)
                out[name if positions else f"{name}_keys_only"] = batch / min(seconds)
        few = column[: min(batch, 100_000)]
        began = time.perf_counter()
        tb.lookup_many(table, few)
        out["many_best"] = len(few) / (time.perf_counter() - began)
    return out


def batch(path: Path, slots: int, count: int) -> dict[str, float]:
    """probe_many of ``count`` random keys of a dense table: positions a second, by wall and CPU time."""
    from tablebase.probe import ProbeIndex

    keys = np.random.default_rng(1).integers(0, slots, count)
    with ProbeIndex(path) as index:
        index.probe_many(keys[:100])  # the tables of values, made once
        best_wall = best_cpu = float("inf")
        for _ in range(3):
            wall, cpu = time.perf_counter(), time.process_time()
            found = index.probe_many(keys)
            best_wall = min(best_wall, time.perf_counter() - wall)
            best_cpu = min(best_cpu, time.process_time() - cpu)
        assert found["found"].sum() > 0.99 * count
    return {"wall": count / best_wall, "cpu": count / best_cpu}


def in_c(path: Path, count: int) -> dict[str, float] | None:
    """The C reader's probe, timed in C over ``count`` probes of random stored keys (None without cc)."""
    cc = shutil.which("cc")
    if cc is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        program = Path(folder) / "tbprobe"
        subprocess.run([cc, "-O2", "-std=c99", "-Wall", "-Werror", "-DTBPROBE_MAIN", "-o", program, READER],
                       check=True)
        runs = [json.loads(subprocess.run([program, "--time", path, str(count)], check=True, capture_output=True,
                                          text=True).stdout) for _ in range(3)]
    return {"wall": min(r["ns_per_probe"] for r in runs) / 1e9, "cpu": min(r["cpu_ns_per_probe"] for r in runs) / 1e9}


def duckdb_point(root: Path, table: str, keys: list[int]) -> float:
    """DuckDB's point query on the table's Parquet files: the median seconds of one `WHERE key = ?`."""
    import duckdb

    from tablebase.store import Manifest, table_dir

    files = [str(table_dir(root, table) / name) for name in sorted(Manifest.load(root, table).files)]
    con = duckdb.connect()
    query = f"SELECT COLUMNS(lambda c: c != 'position') FROM read_parquet({files!r}) WHERE key = ?"
    con.execute(query, [keys[0]]).fetchall()
    times = []
    for key in keys:
        began = time.perf_counter()
        assert con.execute(query, [key]).fetchall()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


READER_RUN = """
import json, sys, time, psutil
positions = json.load(open(sys.argv[3]))
process = psutil.Process()
before = process.memory_info().rss
began = time.perf_counter()
import tablebase
tb = tablebase.open(sys.argv[1])
opened = time.perf_counter() - began
began = time.perf_counter()
tb.probe(sys.argv[2], positions[0])
first = time.perf_counter() - began
added = process.memory_info().rss - before
for p in positions[1:1001]:  # their pages touched first (a page fault each, cached file or not)
    tb.probe(sys.argv[2], p)
began = time.perf_counter()
for p in positions[1:1001]:
    tb.probe(sys.argv[2], p)
warm = (time.perf_counter() - began) / 1000
batch = positions[1001:]
began = time.perf_counter()
tb.lookup_many(sys.argv[2], batch)
print(json.dumps({"open": opened, "first": first, "rss": added, "warm": warm,
                  "many": len(batch) / (time.perf_counter() - began)}))
"""


def without_index(root: Path, table: str) -> Path:
    """A folder holding the table as one built before probe indexes: hard links to its files, no probe.tbi."""
    from tablebase.probe import FILE_NAME

    folder = Path(tempfile.mkdtemp(prefix="bench_probe_old_"))
    for path in (root / table).rglob("*"):
        if path.is_file() and path.name != FILE_NAME and path.parent.name != "probe":
            target = folder / table / path.relative_to(root / table)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.link(path, target)
    return folder


def command_lookup(root: Path, table: str, position: str, runs: int) -> float:
    """Seconds of a whole `tablebase lookup` process (the median)."""
    return whole_process([sys.executable, "-m", "tablebase", "lookup", "--db", str(root), table, position], runs)


def library(root: Path, table: str, positions: list[str]) -> dict[str, float]:
    """Tablebase.open and probe in a fresh process: the first probe, memory added, a warm probe, lookup_many."""
    with tempfile.NamedTemporaryFile("w", suffix=".json") as listed:
        json.dump(positions, listed)
        listed.flush()
        argv = [sys.executable, "-c", READER_RUN, str(root), table, listed.name]
        subprocess.run(argv, check=True, capture_output=True, env=child_env())  # the caches written
        said = subprocess.run(argv, check=True, capture_output=True, text=True, env=child_env())
    return json.loads(said.stdout)


def routing(root: Path, table: str, keys: list[int], batch: int, index_only: bool) -> list[tuple[str, str, str]]:
    """The library's and the command's figures through the index and the old way, as report rows; through the
    index alone for a table too large to load (``index_only``)."""
    import tablebase

    with tablebase.open(root) as tb:  # spelt by the game, as a program's positions come
        chosen = np.array(keys[:1001] + keys[1001:][:batch], dtype=np.int64)
        positions = tb._game(table).format_positions(chosen).to_strings()
    if index_only:
        run, cold = library(root, table, positions), command_lookup(root, table, positions[0], runs=5)
        return [
            ("tablebase lookup, the whole process (index)", f"{cold * 1e3:.2f} ms", "<= 150 ms"),
            ("import tablebase and open the folder (index)", f"{run['open'] * 1e3:.2f} ms", ""),
            ("first Tablebase.probe after open (index)", f"{run['first'] * 1e3:.2f} ms", "<= 10 ms"),
            ("memory import + open + probe add (index)", f"{run['rss'] / 2**20:.2f} MiB", "<= 100 MB"),
            ("warm Tablebase.probe of a text (index)", f"{run['warm'] * 1e6:.2f} us", "~2 us"),
            (f"first lookup_many in the process, {len(positions) - 1001:,} texts (index)",
             f"{run['many'] / 1e6:.2f} M positions/s", ""),
        ]
    old = without_index(root, table)
    try:
        new_run, old_run = library(root, table, positions), library(old, table, positions)
        cold = [command_lookup(where, table, positions[0], runs=5) for where in (root, old)]
    finally:
        shutil.rmtree(old)

    def pair(new: float, was: float, unit: float, spelt: str) -> str:
        return f"{new / unit:.2f} / {was / unit:.2f} {spelt}"

    return [
        ("tablebase lookup, the whole process (index / old)", pair(*cold, 1e-3, "ms"), ""),
        ("import tablebase and open the folder (index / old)", pair(new_run["open"], old_run["open"], 1e-3, "ms"), ""),
        ("first Tablebase.probe after open (index / old)", pair(new_run["first"], old_run["first"], 1e-3, "ms"), ""),
        ("memory import + open + probe add (index / old)", pair(new_run["rss"], old_run["rss"], 2**20, "MiB"), ""),
        ("warm Tablebase.probe of a text (index / old)", pair(new_run["warm"], old_run["warm"], 1e-6, "us"), ""),
        (f"first lookup_many in the process, {len(positions) - 1001:,} texts (index / old)",
         pair(new_run["many"], old_run["many"], 1e6, "M positions/s"), ""),
    ]


def ensure_table(args: argparse.Namespace) -> tuple[Path, str]:
    """The table to measure, built (Chomp 13x13) into a temporary folder unless given, and its index."""
    from tablebase.probe_writer import FILE_NAME
    from tablebase.store import Manifest

    if args.db:
        root, table = Path(args.db), args.table
    else:
        from tablebase.build import build_tables
        from tablebase.build.jobs import spec_for

        root, table = Path(tempfile.mkdtemp(prefix="bench_probe_")), "chomp_13x13"
        print(f"building {table} into {root} ...", file=sys.stderr)
        list(build_tables([spec_for("chomp", {"rows": 13, "cols": 13})], root, quiet=True))
    manifest = Manifest.load(root, table)
    if FILE_NAME not in manifest.probe:
        print(f"writing the probe index of {table} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "tablebase", "index", "--db", str(root), table, "--quiet"], check=True)
    return root, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", help="a folder of tables (default: build Chomp 13x13 in a temporary one)")
    parser.add_argument("--table", default="chomp_13x13")
    parser.add_argument("--batch", type=int, default=10_000_000, help="keys of the probe_many batch")
    parser.add_argument("--texts", type=int, default=100_000, help="positions of the lookup_many batch")
    parser.add_argument("--index-only", action="store_true",
                        help="leave out the old way (the table's rows loaded in memory): for a table too large for it")
    args = parser.parse_args()
    root, table = ensure_table(args)
    try:
        measure(root, table, args.batch, args.texts, args.index_only)
    finally:
        if not args.db:
            shutil.rmtree(root)  # the table built for this run


def measure(root: Path, table: str, count: int, texts: int, index_only: bool = False) -> None:
    """Every figure of the report, in one run, on one table."""
    from tablebase.probe import FILE_NAME, ProbeIndex

    path = root / table / FILE_NAME
    with ProbeIndex(path) as index:
        d = index.directory
        top = d.entry(index.data, d.segments - 1)[0] + 1 if d.segments else 0
        positions = index.positions
        rng = random.Random(7)
        keys = [k for k in (rng.randrange(top) for _ in range(120_000)) if index.probe(k) is not None]
    if len(keys) < 100_000:
        sys.exit("bench_probe measures a dense table (Chomp, Nim, Wythoff, ...)")
    size = path.stat().st_size + sum(p.stat().st_size for p in (root / table / "probe").iterdir())
    cached_before = cached(path)
    cold = one_shot(path, keys[0], runs=5)
    interpreter = whole_process([sys.executable, "-c", "pass"], runs=5)
    duckdb_cold = duckdb_one_shot(root, table, keys[0], runs=5)
    probes = in_process(path, keys[:100_000])
    rates = batch(path, top, count)
    spelt = by_text(root, table, keys[:100_000], texts)
    c = in_c(path, 10_000_000)
    point = duckdb_point(root, table, keys[:200])
    load = os.getloadavg()[0]

    def faster(seconds: float) -> str:
        return f"{point / seconds:,.0f}x DuckDB's"

    rows = [
        ("the interpreter alone (python -c pass, the whole process)", f"{interpreter * 1e3:.1f} ms", ""),
        ("cold one-shot probe (python -c, the whole process)", f"{cold * 1e3:.1f} ms", ""),
        ("cold one-shot DuckDB point query (python -c, the whole process)", f"{duckdb_cold * 1e3:.1f} ms", ""),
        ("open the index (its header only)", f"{probes['open'] * 1e6:.1f} us", ""),
        ("first probe after opening", f"{probes['first'] * 1e6:.1f} us", ""),
        ("a probe by key touching its page first (page faults)", f"{probes['touch'] * 1e6:.2f} us", ""),
        ("warm probe by key, ProbeIndex.probe (wall / CPU)",
         f"{probes['warm'] * 1e6:.2f} / {probes['warm_cpu'] * 1e6:.2f} us, {faster(probes['warm'])}", "<= 2 us"),
        ("warm probe of a text, Tablebase.probe, the figures the index holds (wall / CPU)",
         f"{spelt['warm_held'] * 1e6:.2f} / {spelt['warm_held_cpu'] * 1e6:.2f} us, {faster(spelt['warm_held'])}",
         "~2 us"),
        ("warm probe of a text, Tablebase.probe, every figure (best move by the children)",
         f"{spelt['warm'] * 1e6:.2f} / {spelt['warm_cpu'] * 1e6:.2f} us, {faster(spelt['warm'])}", ""),
        ("probe_many of keys, numpy (wall / CPU)",
         f"{rates['wall'] / 1e6:.1f} / {rates['cpu'] / 1e6:.1f} M positions/s", ">= 10 M/s"),
        ("lookup_many of texts, stored figures, with positions / without",
         f"{spelt['many'] / 1e6:.2f} / {spelt['many_keys_only'] / 1e6:.2f} M positions/s", ""),
        ("lookup_many of an Arrow array, stored figures, with positions / without",
         f"{spelt['many_arrow'] / 1e6:.2f} / {spelt['many_arrow_keys_only'] / 1e6:.2f} M positions/s", ">= 10 M/s"),
        ("lookup_many of an Arrow array, every column (best moves by the children)",
         f"{spelt['many_best'] / 1e6:.3f} M positions/s", ""),
        ("probe in C, random keys (wall / CPU)",
         f"{c['wall'] * 1e9:.0f} / {c['cpu'] * 1e9:.0f} ns" if c else "no cc on this machine", "<= 1 us"),
        ("bytes a position, everything included", f"{size / positions:.3f} ({size:,} bytes)", "<= 3"),
        ("DuckDB point query on the Parquet files (baseline)", f"{point * 1e3:.2f} ms", ""),
    ]
    print(f"{table}: {positions:,} positions; load average {load:.1f} on {os.cpu_count()} cores; "
          f"the index in the page cache before the warm probes: {cached_before}")
    report(rows)
    report(routing(root, table, keys, texts, index_only))
    print(f"load average at the end {os.getloadavg()[0]:.1f}; the index in the page cache: {cached(path)}")


def cached(path: Path) -> str:
    """How much of the index (its directory and segment files) the page cache holds (util-linux's fincore): a
    probe of a page it lacks reads the disk, so the warm figures of a table larger than the memory left are
    figures of the disk."""
    if not shutil.which("fincore"):
        return "unknown (no fincore)"
    files = [path, *sorted((path.parent / "probe").glob("*"))]
    out = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", *map(str, files)],
                         capture_output=True, text=True)
    held = out.stdout.split()
    if out.returncode or len(held) != len(files) or not all(h.isdigit() for h in held):
        return "unknown"
    size = sum(f.stat().st_size for f in files)
    return f"{min(sum(map(int, held)), size) / max(size, 1):.0%}"


def report(rows: list[tuple[str, str, str]]) -> None:
    """Print the figures, and keep them for the run's log."""
    for measure, figure, target in rows:
        print(f"  {measure:<52} {figure:<34} {('target ' + target) if target else ''}".rstrip(), flush=True)
        common.record(measure, figure=figure, target=target)


if __name__ == "__main__":
    main()
