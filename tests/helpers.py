"""Running the command line as a user does, in a child process; solving a game level by level in-process."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tablebase.store import Manifest, write_parquet


def tablebase(*args: object, timeout: float = 300, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``tablebase ARGS`` in a child process, as a user runs it. One that runs past ``timeout`` fails its test
    with what it was doing: every thread's stack (faulthandler, on SIGABRT) and, where it used a cluster, the
    tasks the scheduler had waiting and what each worker was running."""
    argv = [sys.executable, "-m", "tablebase", *map(str, args)]
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**(os.environ if env is None else env), "PYTHONFAULTHANDLER": "1"})
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        cluster = cluster_state(str(args[args.index("--scheduler") + 1])) if "--scheduler" in args else ""
        child.send_signal(signal.SIGABRT)
        try:
            out, err = child.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            out, err = child.communicate()
        pytest.fail(f"{' '.join(argv)} still ran after {timeout} s\n-- its stderr, ending with its threads:\n"
                    f"{err[-30000:]}\n-- the cluster:\n{cluster}", pytrace=False)
    return subprocess.CompletedProcess(argv, child.returncode, out, err)


def cluster_state(address: str) -> str:
    """What a cluster is doing: its workers' states, the tasks each processes, and the stacks of those running."""
    from distributed import Client

    try:
        with Client(address, timeout=10) as client:
            workers = {a: w.get("status") for a, w in client.scheduler_info()["workers"].items()}
            return "\n".join([f"workers: {workers}", f"processing: {client.processing()}",
                              f"call stacks: {json.dumps(client.call_stack(), indent=1, default=str)[-20000:]}",
                              f"unrunnable: {client.run_on_scheduler(_unrunnable)}"])
    except Exception as e:  # the cluster itself gone: said, so the failure says the more
        return f"(its state could not be read: {type(e).__name__}: {e})"


def _unrunnable(dask_scheduler=None) -> list[str]:
    return [str(t.key) for t in dask_scheduler.unrunnable]


# Runs the command in a child and writes the child's own peak resident memory (KiB) to the file named first. Not
# getrusage: a child's ru_maxrss starts from the RSS of the process it was forked from (the test run, hundreds of
# MiB and growing), kept across exec; VmHWM is the high-water mark of the child's own memory since its exec.
MEASURED = ("import re, sys\nfrom tablebase.cli import main\ncode = main(sys.argv[2:])\n"
            "status = open('/proc/self/status').read()\n"
            "open(sys.argv[1], 'w').write(re.search(r'VmHWM:\\s*(\\d+) kB', status).group(1))\nsys.exit(code)\n")


def file_hashes(folder: Path) -> dict[str, str]:
    """sha256 of every file under a folder, by relative path."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def copy_table(folder: Path, root: Path, name: str, **source: str) -> Path:
    """A copy of a built table's folder as ``root/name``, its manifest naming it so (and ``source`` changed
    as given): a table as someone else's folder may hold it."""
    shutil.copytree(folder, root / name)
    manifest = root / name / "_manifest.json"
    data = json.loads(manifest.read_text())
    data["table"] = name
    data["source"].update(source)
    manifest.write_text(json.dumps(data))
    return root / name


def file_of(root: Path, table: str, level: int, part: int = 0) -> str:
    """The name of the file that holds (part of) a level, by the table's manifest."""
    return Manifest.load(root, table).layout().of_level(level)[part].name


def assert_clean_error(result: subprocess.CompletedProcess, *words: str) -> None:
    """Exit status 2, one line on stderr naming the problem, no traceback."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])


def levels_solved(solver, game, pieces: int = 1) -> list[pa.Table]:
    """Every level in order, each solved in ``pieces`` slices and then taken in whole."""
    out = []
    for level in range(game.max_level + 1):
        size = game.level_size(level)
        cuts = sorted({i * size // pieces for i in range(pieces)} | {size})
        spans = list(itertools.pairwise(cuts)) or [(0, 0)]  # an empty level is solved too
        parts = [solver.solve(game.level_keys(level, a, b)) for a, b in spans]
        rows = pa.concat_tables(parts).combine_chunks()
        solver.remember(level, rows)
        out.append(rows)
    return out


def plain(rows: pa.Table) -> pa.Table:
    """Dictionary columns decoded: slices and files read back carry other dictionaries."""
    return pa.table({
        name: col.cast(col.type.value_type) if pa.types.is_dictionary(col.type) else col
        for name, col in zip(rows.column_names, rows.columns)
    })


def parquet_sha(rows: pa.Table, path: Path) -> str:
    write_parquet(rows, path)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def killed_while_listing(out: Path, table: str, *args: object, levels: int = 3) -> None:
    """``tablebase build ARGS --out OUT`` killed (SIGKILL) once its manifest records ``levels`` levels of the
    listing found and other steps still waiting: a build stopped while the workers list its positions."""
    def listing() -> bool:
        try:
            search = json.loads((out / table / "_manifest.json").read_text()).get("listing", {}).get("search")
        except (OSError, ValueError):
            search = None
        return bool(search and len(search["found"]) >= levels and search["waiting"])

    _killed_once(out, args, listing, "the listing")


def killed_while_numbering(out: Path, table: str, *args: object) -> None:
    """``tablebase build ARGS --out OUT`` killed (SIGKILL) once the first of its listing's level files is
    written: a build stopped while it numbers the positions its search found."""
    _killed_once(out, args, lambda: any((out / table / "_listing").glob("level-*.parquet")), "the numbering")


def _killed_once(out: Path, args: tuple, ready: Callable[[], bool], what: str) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "tablebase", "build", *map(str, args), "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    try:
        while not ready():
            assert proc.poll() is None and time.monotonic() < deadline, f"{what} ended before it could be killed"
            time.sleep(0.005)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


def copy_without_index(root: Path, table: str, to: Path) -> None:
    """A copy of a built table in ``to`` without its probe index, as a table built before indexes is: its
    lookups load its rows, and ``verify`` has nothing but the rows to check them against."""
    shutil.copytree(root / table, to / table)
    manifest = to / table / "_manifest.json"
    data = json.loads(manifest.read_text())
    for name in data.pop("probe"):
        (to / table / name).unlink()
    manifest.write_text(json.dumps({**data, "probe": {}}))


def rewrite_recorded(root: Path, table: str, name: str, rows: pa.Table | bytes) -> None:
    """Replace a table's file with other rows (or bytes) and record the new file in its manifest as a build
    would (rows, bytes, sha256): a folder's maker can make any file match its manifest."""
    path = root / table / name
    if isinstance(rows, bytes):
        path.write_bytes(rows)
        count = 0
    else:
        pq.write_table(rows, path)
        count = rows.num_rows
    manifest = root / table / "_manifest.json"
    data = json.loads(manifest.read_text())
    for records in (data["files"], data.get("values", {}).get("files", {}), data.get("values", {}).get("pieces", {})):
        if name in records:
            records[name] = {"rows": count if count else records[name]["rows"], "bytes": path.stat().st_size,
                             "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    manifest.write_text(json.dumps(data))


def assert_slices_and_stored_levels_alike(make_solver, game, generic: list[pa.Table], pieces: int, cut: int,
                                          folder: Path) -> None:
    """A solver gives the generic rows when levels come in ``pieces`` slices, and when
    the levels below ``cut`` are fed to a fresh solver from Parquet files."""
    sliced = levels_solved(make_solver(game), game, pieces=pieces)
    assert [plain(s).equals(plain(g)) for s, g in zip(sliced, generic)] == [True] * len(generic)
    for level in range(cut):
        write_parquet(generic[level], folder / f"{level}.parquet")
    reader = make_solver(game)
    for level in range(cut):
        reader.remember(level, pq.read_table(folder / f"{level}.parquet", columns=reader.columns))
    for level in range(cut, game.max_level + 1):
        rows = reader.solve(game.level_keys(level, 0, game.level_size(level)))
        assert rows.equals(generic[level]), level
        reader.remember(level, rows)


def build_job(root: Path, scheduler: str, game: str, tables: list[dict]) -> Path:
    """Build a game's tables, one per dict of options, from one job file on the session's cluster:
    the folder they are in."""
    job = root / "tables.toml"
    job.write_text("".join(f'[[table]]\ngame = "{game}"\n' + "".join(f"{k} = {v}\n" for k, v in options.items())
                           + "\n" for options in tables))
    result = tablebase("build", "--job", job, "--out", root / "tb", "--scheduler", scheduler, "--quiet")
    assert result.returncode == 0, result.stderr
    return root / "tb"


def reachable(start, children, spell) -> dict:
    """Every position reachable from ``start`` through ``children(position)`` (positions), by ``spell(position)``."""
    found, todo = {spell(start): start}, [start]
    while todo:
        for child in children(todo.pop()):
            if spell(child) not in found:
                found[spell(child)] = child
                todo.append(child)
    return found


def require(missing: str | None) -> None:
    """Fail, saying what to install or allow, where the machine lacks what a test needs.

    The full suite needs what `.ci/run` gives it (root for network namespaces,
    Chromium and its driver, a C compiler): a test that skipped instead would
    pass without checking anything.
    """
    if missing is not None:
        pytest.fail(f"{missing} (the full suite needs it: see the README; the fast tier does not)", pytrace=False)
