"""A plain game's whole build against the game's own moves() called once on every position, in one run.

    python benchmarks/bench_listing.py                    # Kayles 40 and Connect-Four 5x4, two workers
    python benchmarks/bench_listing.py --only kayles --workers 1
    python benchmarks/bench_listing.py --only connect_four --board 4x5
    python benchmarks/bench_listing.py --only kayles --pins 44

Two plugins: Kayles whose start positions are every set of rows of at most
40 pins in all (tests/plugins/kayles_rows.py, 215,308 positions), and
Connect-Four on 5 rows by 4 columns (examples/connect_four.py, 1,706,255
positions). For each, every position is found first (not timed), then:

1. the game's ``moves()`` called once on each in this process: the
   target's baseline;
2. the least any build does in one process: the game's own code that every
   build calls (``moves()`` of every position, ``result()`` of each without
   moves if the game scores them, ``level()`` and ``format()`` of each once,
   since a table is numbered by level and notation), and each move and each
   child numbered through a dict, as a graph of positions needs;
3. the same shared by ``--workers`` processes forked with the positions:
   what this machine's cores give when nothing travels between them;
4. the same again, of positions that travel between workers as notation,
   as a build on several workers sends them to their owners (never
   pickled: docs/security.md): each position read from its text rather
   than spelt, and each child a batch reaches spelt to travel;
5. a local Dask cluster of ``--workers`` processes started and closed:
   Dask's own start;
6. the build command, in a child process with a local cluster of
   ``--workers`` (its memory sampled);
7. the rest of the least a whole table takes: 4 again with each share
   spelling its share of the game's start positions first (they travel to
   their owners too: Kayles' fixture starts from every position); the
   table itself from the listed graph in one process (``least_table``:
   Grundy values of an impartial game solved a level at a time, keys by
   level and notation, rows written as Parquet) and the game's
   ``start_positions()`` run through once (the shares were handed theirs),
   both counted as shared by the workers with no wait; and a command's own
   start (Python and the libraries a build imports, in a process of its own).

Each is timed, ``--repeat`` times in turn (each figure the median of its
runs: on this shared machine one run of a 20-second command moves by a
tenth or more). ``bound_ratio`` is 3 and 5 together against 1: the least any
build on that many cores could take, before it sends, numbers, solves or
writes anything; ``ratio`` is 6 against 1; ``per_least``, 6 against 3 and 5
together, is the target's (at most 1.3); ``travelling_per_least``, 4 and 5
against 3 and 5, is the least that figure can be for a build whose
positions travel as notation, before it numbers, solves or writes
anything; ``table_bound_per_least``, 7 and 5 against 3 and 5, the least a
command that lists, numbers, solves and writes a table could take against
the target's least: a target under it is out of reach whatever the engine;
and ``cpu_shared_per_least`` the command's CPU shared by its
workers with no wait at all, against 3 and 5: what the steps spend,
whatever their order. Printed beside
them: the CPU time of the loop and of the command (its own, its
scheduler's and its workers', added up; on a shared machine the fairer
comparison), the kernel's share of it (``command_system_s``) and the pages
the kernel gave the command's processes (``command_minor_faults``: each
cleared, and on this host's virtual machine slow to give:
``bench_fresh_pages.py``), the command's peak memory, the largest worker's,
and that worker's growth per position of its share: its peak less the peak of a
worker building a tiny table of the same game (what a worker holds before
any position). The command's own summary splits its time: the listing's
search (``expanding_s``: every position's moves played and its children
sent to their owners, level by level; ``expanding_per_loop`` is that against
1), its numbering by notation (``numbering_s``) and the solving
(``solving_s``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from array import array
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import PeakMemory, report  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

from tablebase.games import ImpartialGame, ScoredGame  # noqa: E402
from tablebase.lazy import np, pa, pc, pq  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# name -> (game file, class, its options as the command takes them, as the class takes them, a tiny table's options)
GAMES = {"kayles": (ROOT / "tests" / "plugins" / "kayles_rows.py", "KaylesRows", {"pins": 40, "every": 1},
                    {"pins": 2, "every": 1}),
         "connect_four": (ROOT / "examples" / "connect_four.py", "ConnectFour", {"rows": 5, "cols": 4},
                          {"rows": 2, "cols": 2, "connect": 2})}


def load(path: Path, name: str, params: dict):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)(**params)


def options(params: dict) -> list[str]:
    return [word for key, value in params.items() for word in (f"--{key}", str(value))]


def build(path: Path, cls: str, params: dict, out: Path, workers: int) -> tuple[float, PeakMemory, dict]:
    """The build command's time, its memory and its summary (its last line). Kayles' start positions are every
    position: on a loaded machine they take more than the default limit of a call of the game's code."""
    began = time.perf_counter()
    with PeakMemory() as memory:
        done = subprocess.run([sys.executable, "-m", "tablebase", "build", "--game", f"{path}:{cls}", *options(params),
                               "--out", str(out), "--workers", str(workers), "--quiet",
                               "--position-seconds", "600"], capture_output=True, text=True)
    seconds = time.perf_counter() - began
    if done.returncode:
        sys.exit(done.stderr)
    return seconds, memory, json.loads(done.stdout.splitlines()[-1])


def every_position(game) -> list:
    seen = set(game.start_positions())
    todo = list(seen)
    while todo:
        for _, child in game.moves(todo.pop()):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return list(seen)


def moves_loop(game, positions: list) -> tuple[float, float]:
    """The loop's wall time and CPU time."""
    began, cpu = time.perf_counter(), time.process_time()
    for p in positions:
        for _ in game.moves(p):
            pass
    return time.perf_counter() - began, time.process_time() - cpu


def least_build(game, positions: list, travelling: bool = False) -> float:
    """The least a build does in one process, batch by batch: the game's own code that every build calls
    (``moves()`` of each position, ``result()`` of each without moves if the game scores them, ``level()``
    and ``format()`` of each once) and each move and child numbered once, as a graph of positions needs.
    Its wall time.

    ``travelling``: the positions travel between workers as notation (docs/security.md: never pickled), as
    a build on several workers must send them to their owners: ``positions`` are their texts (spelt before
    the clock starts), each read as it is played, and each child a batch reaches is spelt once, to travel,
    rather than each position. Nothing is sent, numbered by notation, solved or written either way."""
    scored = isinstance(game, ScoredGame)
    read = game.read
    began = time.perf_counter()
    for start in range(0, len(positions), 20_000):
        batch = positions[start:start + 20_000]
        children: dict = {}
        moves: dict = {}
        edges = array("q")
        levels = array("q")
        for p in batch:
            if travelling:
                p = read(p)
            n = 0
            for move, child in game.moves(p):
                m = moves.get(move)
                if m is None:
                    m = moves[move] = len(moves)
                c = children.get(child)
                if c is None:
                    c = children[child] = len(children)
                    levels.append(game.level(child))
                edges.append(c)
                n += 1
            if not n and scored:
                game.result(p)
        texts = [game.format(p) for p in (children if travelling else batch)]
        del texts
    return time.perf_counter() - began


def forked(game, positions: list, workers: int, travelling: bool = False, starts: list | None = None) -> float:
    """``least_build`` shared by ``workers`` processes forked with the positions (or their texts), each
    taking every ``workers``-th: what this machine's cores give when nothing is sent between them. Its wall
    time. ``starts``: the game's start positions, each process spelling every ``workers``-th of them first,
    as they must be spelt to travel to their owners before any is played."""
    context = multiprocessing.get_context("fork")
    began = time.perf_counter()
    shares = [context.Process(target=_least_share, args=(game, positions[i::workers], travelling,
                                                         starts[i::workers] if starts else []))
              for i in range(workers)]
    for share in shares:
        share.start()
    for share in shares:
        share.join()
    return time.perf_counter() - began


def _least_share(game, positions: list, travelling: bool, starts: list) -> None:
    for p in starts:
        game.format(p)
    least_build(game, positions, travelling)


def start_enumeration(game) -> float:
    """The game's ``start_positions()`` run through once, as any build must: the shares of the least above
    are handed their start positions ready-made. Its wall time."""
    began = time.perf_counter()
    for _ in game.start_positions():
        pass
    return time.perf_counter() - began


def moves_graph(game, positions: list) -> tuple[np.ndarray, np.ndarray]:
    """Each move as (its position's index, its child's index) into ``positions``, in the order played."""
    index = {p: i for i, p in enumerate(positions)}
    parents, children = array("q"), array("q")
    for i, p in enumerate(positions):
        for _, child in game.moves(p):
            parents.append(i)
            children.append(index[child])
    return np.frombuffer(parents, dtype=np.int64), np.frombuffer(children, dtype=np.int64)


def least_table(texts: list[str], levels: np.ndarray, parents: np.ndarray, children: np.ndarray,
                folder: Path, impartial: bool) -> float:
    """The least a build does, in one process, from a listed graph to a table on disk: each position's Grundy
    value (``impartial``: the mex of its children's, a level at a time from the bottom, vectorised over the
    graph of ``moves_graph`` of positions given by level, so that a level's moves are one slice), positions
    numbered by level and notation (the keys every build gives), and each row (key, notation, Grundy value)
    written as Parquet in key order. A build writes more (outcome, remoteness, best move, the probe index):
    this is less than any does. Its wall time."""
    began = time.perf_counter()
    grundy = np.zeros(len(texts), dtype=np.int64)
    if impartial and len(parents):
        cuts = np.flatnonzero(np.diff(levels[parents])) + 1
        for a, b in zip([0, *cuts.tolist()], [*cuts.tolist(), len(parents)]):
            firsts = np.flatnonzero(np.diff(parents[a:b], prepend=-1))
            seen = np.bitwise_or.reduceat(np.uint64(1) << grundy[children[a:b]].astype(np.uint64), firsts)
            free = ~seen & (seen + np.uint64(1))  # the least bit not set: the mex
            grundy[parents[a:b][firsts]] = np.log2(free.astype(np.float64)).astype(np.int64)
        if grundy.max(initial=0) >= 63:
            sys.exit("bench_listing: a Grundy value too large for the least table's bits")
    listed = pa.table({"level": pa.array(levels), "text": pa.array(texts)})
    order = pc.sort_indices(listed, [("level", "ascending"), ("text", "ascending")])
    pq.write_table(pa.table({"key": pa.array(np.arange(len(texts))), "position": listed.column("text").take(order),
                             "grundy": pa.array(grundy[order.to_numpy()].astype(np.uint8))}), folder / "least.parquet")
    return time.perf_counter() - began


def imports() -> float:
    """A command's own start: Python, and the libraries a build on a Dask cluster that writes Parquet needs,
    imported in a process of its own. Its wall time."""
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import distributed, pyarrow.parquet, numpy"], check=True)
    return time.perf_counter() - began


def cluster_start(workers: int) -> float:
    """Dask's own cost of a build's cluster: a local cluster of ``workers`` processes started, a client
    connected, and both closed. Its wall time."""
    began = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster):
        pass
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", choices=sorted(GAMES))
    parser.add_argument("--board", default="5x4", help="Connect-Four's rows x columns (4x5: 3,945,711 positions)")
    parser.add_argument("--pins", type=int, default=40, help="Kayles' pins in all (44: 451,501 positions)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each measure, in turn (medians reported)")
    args = parser.parse_args()
    rows, _, cols = args.board.partition("x")
    if not (rows.isdigit() and cols.isdigit()):
        sys.exit(f"bench_listing: --board must be rows x columns, like 5x4, not {args.board!r}")
    GAMES["connect_four"][2].update(rows=int(rows), cols=int(cols))
    GAMES["kayles"][2].update(pins=args.pins)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for key, (path, cls, params, tiny) in GAMES.items():
            if args.only and key != args.only:
                continue
            game = load(path, cls, params)
            positions = every_position(game)
            _, idle, _ = build(path, cls, tiny, folder / "tiny", args.workers)
            texts = [game.format(p) for p in positions]
            starts = list(dict.fromkeys(game.start_positions()))
            by_level = sorted(positions, key=game.level)  # the least table's graph: a level's moves run on
            levels = np.array([game.level(p) for p in by_level], dtype=np.int64)
            parents, children = moves_graph(game, by_level)
            texts_by_level = [game.format(p) for p in by_level]
            del by_level
            runs = []
            for r in range(max(args.repeat, 1)):
                loop, loop_cpu = moves_loop(game, positions)
                least = least_build(game, positions)
                shared = forked(game, positions, args.workers)
                travelling = forked(game, texts, args.workers, travelling=True)
                with_start = forked(game, texts, args.workers, travelling=True, starts=starts)
                table = least_table(texts_by_level, levels, parents, children, folder, isinstance(game, ImpartialGame))
                enumerated = start_enumeration(game)
                started = imports()
                dask = cluster_start(args.workers)
                command, memory, summary = build(path, cls, params, folder / f"{key}-{r}", args.workers)
                shutil.rmtree(folder / f"{key}-{r}")
                runs.append((loop, loop_cpu, least, shared, travelling, dask, command, memory.cpu_seconds, with_start,
                             table, started, enumerated, memory.system_seconds, memory.minor_faults, summary))
            del positions, texts, parents, children, texts_by_level
            (loop, loop_cpu, least, shared, travelling, dask, command, cpu, with_start, table, started, enumerated,
             system, faults) = (statistics.median(run[i] for run in runs) for i in range(14))
            bound = with_start + (table + enumerated) / args.workers + dask + started
            summary = {name: statistics.median(run[-1][name] for run in runs)
                       for name in ("positions", "listing_seconds", "numbering_seconds", "solving_seconds")}
            n, listing, numbering = summary["positions"], summary["listing_seconds"], summary["numbering_seconds"]
            # A local cluster's workers are the command's children or grandchildren (forked from its fork server).
            worker = max((peak for depth, peak in memory.by_depth.items() if depth >= 2), default=0)
            base = max((peak for depth, peak in idle.by_depth.items() if depth >= 2), default=0)
            report(key, load=round(os.getloadavg()[0], 1), runs=len(runs), positions=int(n),
                   moves_loop_s=round(loop, 2), command_s=round(command, 2),
                   ratio=round(command / loop, 2), least_build_s=round(least, 2), least_shared_s=round(shared, 2),
                   cluster_start_s=round(dask, 2), bound_ratio=round((dask + shared) / loop, 2),
                   per_least=round(command / (shared + dask), 2),
                   least_travelling_shared_s=round(travelling, 2),
                   travelling_per_least=round((travelling + dask) / (shared + dask), 2),
                   least_travelling_start_shared_s=round(with_start, 2), least_table_s=round(table, 2),
                   imports_s=round(started, 2), start_enumeration_s=round(enumerated, 2), table_bound_s=round(bound, 2),
                   table_bound_per_least=round(bound / (shared + dask), 2),
                   cpu_shared_per_least=round(cpu / args.workers / (shared + dask), 2),
                   expanding_s=round(listing - numbering, 2), numbering_s=round(numbering, 2),
                   solving_s=summary["solving_seconds"], expanding_per_loop=round((listing - numbering) / loop, 2),
                   moves_loop_cpu_s=round(loop_cpu, 2),
                   command_cpu_s=round(cpu, 2), cpu_ratio=round(cpu / loop_cpu, 2),
                   command_system_s=round(system, 2), command_minor_faults=int(faults),
                   command_mib=round(memory.by_depth.get(1, 0) / 2**20),
                   worker_mib=round(worker / 2**20), idle_worker_mib=round(base / 2**20),
                   worker_bytes_per_share_position=round((worker - base) * args.workers / n))


if __name__ == "__main__":
    main()
