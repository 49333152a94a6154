"""The work a Dask worker does: solve one partition of one level and write it.

A task reads the lower levels it needs from the store, never from the driver,
and keeps them in a per-process solver so that each level is read once per
worker. Parts a worker solved itself it keeps instead of reading them back;
workers on one machine share the values of dense games (build/cluster/shared_values.py), so
there a part solved by any of them is read by none. The solver belongs to one
build run at a time: it is the worker process's state between tasks.
"""

from __future__ import annotations

import bisect
import itertools
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from distributed import get_client, get_worker

from tablebase.build.census.entry import listed_from_store
from tablebase.build.cluster import allocator, shared_values
from tablebase.build.cluster.memory_plan import notation_bytes
from tablebase.build.plan import Slice
from tablebase.build.progress import worker_events
from tablebase.build.worker_game import builder_of_run
from tablebase.build.write_behind import WriteBehind
from tablebase.builders import ArtifactBuild, Builder
from tablebase.errors import TablebaseError
from tablebase.games import KeyedForm
from tablebase.jit import compile_all
from tablebase.lazy import np
from tablebase.probe.format import Figure
from tablebase.probe_writer import figures_of, segment_of_rows, write_keys_file, write_segments
from tablebase.solve import Solver
from tablebase.store import Layout, Manifest, Plan, with_levels
from tablebase.store.location import Folder, Location, located
from tablebase.store.placed import flush, names_under, put_rows, read_files, read_found

compile_all()  # building compiles the games' functions (a program that only reads runs them as Python)


@dataclass
class _Run:
    """What a worker keeps for the build run it works for: the solver, what it holds, the table's layout."""

    solver: Solver
    held: shared_values.Holding
    artifacts: tuple[ArtifactBuild, ...]
    layout: Layout
    plan: Plan
    builder: Builder
    #: the records of the table's files of rows this worker knows of: the manifest's when the run began, those
    #: the steps below gave the tasks here, and its own (an object store's files are read by their records)
    records: dict[str, dict[str, Any]]
    known_below: int = 0  # every level below this one is in the solver's memory
    one_by_one: bool = False  # read a lower level back a part at a time (values on disk)
    figures: list[Figure] | None = None  # the probe index's, once the first rows show the columns' types


_state: dict[str, _Run] = {}
_writers: dict[str, WriteBehind] = {}  # the run's files written behind its solving (write_behind.py)
# A worker started with several threads runs tasks side by side; the solver's
# memory of lower levels is shared, so a process solves one slice at a time.
_one_at_a_time = threading.Lock()
# A task waits for the step below through the scheduler, which hears of it
# from the worker's event loop: with the solving thread holding the GIL, that
# loop would wait a whole switch interval of Python's (its default) for each turn.
GIL_SWITCH_SECONDS = 0.0002


def _solver(run: str, root: Location, table: str, ref: str, params: dict[str, Any], values: dict[str, Any]) -> _Run:
    """The run's solver, made on the first call. ``values``: the folder to map values from on disk (None:
    memory) and the figures held wide (build/driver.py, ``TableBuild.values``)."""
    if run not in _state:
        _state.clear()  # one build at a time per worker: free the last one's memory
        sys.setswitchinterval(GIL_SWITCH_SECONDS)
        allocator.keep_freed_memory()
        manifest = Manifest.load(root, table)
        builder = listed_from_store(builder_of_run(run, ref, params), root, table, manifest.listing)
        disk = values["disk"]

        def place(size: int) -> Path | None:
            folder = shared_values.folder_for(values.get("name", run), size, disk)
            if disk is not None and folder is None:  # never the worker's own memory: the plan found it too small
                raise TablebaseError(f"cannot map {size / 2**20:,.0f} MiB of values from {disk} on this machine "
                                     "(no room, or the folder cannot be made); free disk space or name another "
                                     "folder with --scratch")
            return folder

        solver = builder.solver(place, wide=frozenset(values["wide"]))
        _state[run] = _Run(solver, shared_values.Holding(solver.shared), builder.artifacts, manifest.layout(),
                           manifest.plan, builder, dict(manifest.files), one_by_one=disk is not None)
    return _state[run]


def warm_up(run: str, root: Location, table: str, ref: str, params: dict[str, Any], values: dict[str, Any],
            every: float = float("inf")) -> None:
    """Make the run's solver (loading compiled code) before the first slice needs it; numba compiling what
    it does not find in its cache is told to the driver (``worker_events.Compiling``)."""
    with _one_at_a_time, worker_events.Compiling(run, every):
        _solver(run, located(root), table, ref, params, values)


def release(run: str, values: str, disk: str | None) -> None:
    """Let go of the run's solver and remove its values' folders on this machine: values mapped from disk
    take their room until the last mapping goes, and the probe index written next wants that room."""
    with _one_at_a_time:
        _state.pop(run, None)
        if run in _writers:
            _writers.pop(run).close()
    shared_values.remove(values, disk)


def measure_notation(run: str, ref: str, params: dict[str, Any]) -> int:
    """The mean length of the game's notation (``memory_plan.notation_bytes``), measured here for the driver."""
    return notation_bytes(builder_of_run(run, ref, params).keyed)


def _below(game: KeyedForm, levels: Iterable[int], first: int) -> list[int]:
    """The levels below ``first`` that moves from these levels reach, ascending.

    ``child_levels`` is often ``range(level)``: a span of thousands of levels would
    list millions of them, so ranges are taken as their bound.
    """
    bound, named = 0, set()
    for level in levels:
        below = game.child_levels(level)
        if isinstance(below, range) and below.step == 1 and below.start == 0:
            bound = max(bound, min(below.stop, first))
        else:
            named.update(c for c in below if c < first)
    return sorted(named | set(range(bound)))


def _lacking(state: _Run, levels: list[int], first: int) -> list[int]:
    """The levels below ``first`` that moves from ``levels`` reach and the solver has not taken in.

    Asking for each lower level of each of thousands of small levels (a
    subtraction game may have a million) would outweigh the solving; levels
    are taken in from the bottom up, so when all below ``first`` are known
    nothing needs asking, and otherwise only those above the first one
    missing need a look.
    """
    known = state.solver.levels
    while state.known_below in known:
        state.known_below += 1
    if state.known_below >= first:
        return []
    needed = _below(state.solver.game, levels, first)
    return [lvl for lvl in needed[bisect.bisect_left(needed, state.known_below):] if lvl not in known]


def _take_in(state: _Run, root: Location, table: str, level: int) -> None:
    """Give the solver a whole lower level, reading from the store only the pieces it does not hold.

    A run's file holds several levels: all of them are taken in at once.
    """
    solver, held = state.solver, state.held
    holding = state.layout.of_level(level)
    pieces = [piece for piece in holding if not held.has(piece)]
    if not pieces:  # held already (a span: all its levels are), or a level without positions
        run = holding[0] if holding and holding[0].whole else None
        for lower in [lv for lv, _ in state.plan.sizes(run.first, run.last)] if run else [level]:
            solver.remember(lower, None)
        return
    if pieces[0].first == pieces[0].last and state.one_by_one:
        # Values on disk: the level is read a part at a time, so that a worker holds no more than a
        # partition of it (the memory plan counts one).
        for piece in pieces:
            rows = _read_pieces(state, root, table, [piece.name], solver.columns)
            solver.remember(level, rows, whole=piece is pieces[-1])
            held.mark(piece)
        return
    rows = _read_pieces(state, root, table, [piece.name for piece in pieces], solver.columns + ["level"])
    if pieces[0].first == pieces[0].last:
        solver.remember(level, rows.drop_columns(["level"]))
    else:  # a span: its rows are sorted by level
        marks = rows.column("level").to_numpy()
        cuts = np.searchsorted(marks, np.arange(pieces[0].first, pieces[0].last + 2))
        for lower, (a, b) in zip(pieces[0].levels, zip(cuts[:-1], cuts[1:])):
            if lower not in solver.levels:
                solver.remember(lower, rows.slice(a, b - a).drop_columns(["level"]) if b > a else None)
    for piece in pieces:
        held.mark(piece)


def _read_pieces(state: _Run, root: Location, table: str, names: list[str], columns: list[str]) -> Any:
    """Files of rows of lower levels, by the records this worker knows; on an object store, one it has no
    record of (written by another worker since it last heard) is found by its plain name in a listing."""
    known = {name: state.records[name] for name in names if name in state.records}
    if isinstance(root, Folder) or len(known) == len(names):
        return read_files(root, table, {name: known.get(name, {}) for name in names}, columns)
    return read_found(root, table, names, columns)


def _read_back(state: _Run, root: Location, table: str, run: str, lacking: list[int], every: float) -> None:
    """Take in the lacking lower levels from the bottom up, telling the driver how far it has got:
    a resumed build's first task on a worker reads back every level solved, the longest wait of a resume."""
    if not lacking:
        return
    positions = worker_events.positions_of(state.plan, lacking)
    with worker_events.Report(run, sum(positions), every) as report:
        for lower, count in zip(lacking, positions):
            if lower not in state.solver.levels:  # not taken in with the span of a level before it
                _take_in(state, root, table, lower)
            report.add(count)


def solve_slices(
    run: str,
    root: Location,
    table: str,
    ref: str,
    params: dict[str, Any],
    slices: list[Slice],
    compact: bool = False,
    after: list | None = None,
    values: dict[str, Any] | None = None,
    every: float = float("inf"),
) -> list[dict[str, Any]]:
    """Solve each piece of the slices (``plan.Slice``) in order and write it as one Parquet file.

    A task's slices are the levels of one span (solved in one call where the
    solver can) or a worker's share of the parts of a large level; every
    level below them is already stored. ``compact`` files leave out the
    positions' notation (the key determines it). ``after`` holds the records
    of the step below: passing them makes the scheduler wait for it; they are
    used only for the records of the files they wrote, by which an object store's are read.
    ``values``: where and how wide the values are held (``_solver``).
    ``every``: how often the driver says how far the build is, in seconds; a
    task reading lower levels back tells it how far that has got a few times
    as often (``worker_events.Report``), as does a part of a level as it is solved (``worker_events.solve_part_told``)
    and numba compiling the game's functions (``worker_events.Compiling``); never if the driver says nothing.
    """
    root = located(root)
    if _recorded_already(root, table, slices):
        return []
    with _one_at_a_time, worker_events.Compiling(run, every):
        return _solve_slices(run, root, table, ref, params, slices, compact, values or MEMORY, every, after)


def _recorded_already(root: Location, table: str, slices: list[Slice]) -> bool:
    """Whether this task is one the driver has the records of, computed again by the scheduler.

    Each step's tasks take the step below's as arguments, so the scheduler keeps
    the whole chain of steps: a worker lost holding results that a waiting task
    needs makes it compute those again, and with them every step below, down to
    the first (each needs the results of the step below to start). Such a task
    finds its files written, and the driver no longer wants its records: it
    has them. A task whose records the driver still waits for solves again,
    writing the same files.
    """
    names = [piece.name for piece, _ in itertools.groupby(slices, key=lambda s: s[0])]
    if not _written(root, table, names):
        return False  # the usual case, decided without asking the scheduler
    try:
        worker = get_worker()
    except ValueError:  # called directly, not by a worker
        return False

    # Defined in here, so that it travels by value: the scheduler need not have this package installed.
    def wanted(key: Any, dask_scheduler: Any = None) -> bool:
        """On the scheduler: whether a client holds the task's future (the driver lets go of one it has)."""
        task = dask_scheduler.tasks.get(key)
        return task is not None and bool(task.who_wants)

    try:
        return not get_client().run_on_scheduler(wanted, worker.get_current_task())
    except (OSError, TimeoutError):  # the scheduler out of reach: solving again is never wrong
        return False


def _written(root: Location, table: str, names: list[str]) -> bool:
    """Whether files of rows are written (a task's, which share their folder): on an object store, by one
    listing of their folder under their plain names."""
    if isinstance(root, Folder):
        return all((root.root / table / name).exists() for name in names)
    return set(names) <= names_under(root, table, names[0].rpartition("/")[0]) if names else True


MEMORY = {"disk": None, "wide": []}  # values in memory, every figure in one byte


def _solve_slices(run: str, root: Location, table: str, ref: str, params: dict[str, Any], slices: list[Slice],
                  compact: bool, values: dict[str, Any], every: float, after: list | None = None
                  ) -> list[dict[str, Any]]:
    state = _solver(run, root, table, ref, params, values)
    state.records.update((r["file"], r) for records in after or [] for r in records or [])
    solver, game = state.solver, state.solver.game
    behind = _writer(run) if values.get("behind") and solver.shared is not None else None
    records: list[dict[str, Any]] = []
    pieces = [(piece, list(group)) for piece, group in itertools.groupby(slices, key=lambda s: s[0])]
    single = len(pieces) == 1
    durable = single or behind is not None  # else all synced at once, at the end
    for piece, group in pieces:
        began = time.perf_counter()
        sizes = state.plan.sizes(piece.first, piece.last)
        _read_back(state, root, table, run, _lacking(state, [level for level, _ in sizes], piece.first), every)
        read = time.perf_counter()
        if piece.whole:
            span = [(level, game.level_keys(level, 0, size)) for level, size in sizes]
            rows, marks = solver.solve_span(span, compact)
        else:
            (_, level, a, b), = group
            # Solved here, so known here (and on a shared machine, to its other workers): no need to read it back.
            rows = worker_events.solve_part_told(lambda start, stop: solver.solve_part(level, start, stop, compact),
                                            a, b, run, piece.name, level, every)
            marks = np.full(rows.num_rows, level, dtype=np.int32)
        state.held.mark(piece)
        rows = with_levels(rows, marks)
        solved = time.perf_counter()
        # Files beside the rows, made from them (a partizan table's values table), while the solver is as they left it.
        files = [a.piece(solver, rows, root, table, piece, durable) for a in state.artifacts]
        seconds = {"read": read - began, "solve": solved - read}
        write = _piece_writer(state, rows, root, table, piece, files, seconds, durable)
        if behind is None:
            records.append(write())
        else:
            behind.put(lambda write=write: [write()])
        # A task may solve many parts: what Arrow kept from one would add to the next one's peak.
        del rows, write
        allocator.hand_back_arrow_memory()
    if behind is not None:
        return behind.finished()
    if not single:  # many files synced at once, before the driver records them
        flush(root, table, [piece.name for piece, _ in pieces]
              + [f["file"] for r in records for f in r["pieces"] if f]
              + [name for r in records for name in r["segment"]])
    return records


def _piece_writer(state: _Run, rows: Any, root: Location, table: str, piece: Any, files: list,
                  seconds: dict[str, float], durable: bool) -> Callable[[], dict[str, Any]]:
    """Writing a part's rows and its slice of the probe index: their record, once called. Written behind
    (write_behind.py), every file is made durable on its own before its record is handed back."""

    def write() -> dict[str, Any]:
        began = time.perf_counter()
        record = put_rows(rows, root, table, piece.name, durable=durable)
        state.records[piece.name] = {"file": piece.name, **record}
        segment = _segment(state, rows, root, table, piece, durable) if state.builder.parts_in_key_order \
            and not state.builder.indexed_from_values else {}
        return {"file": piece.name, **record, "pieces": files, "segment": segment,
                "seconds": {**seconds, "write": time.perf_counter() - began}}

    return write


def _writer(run: str) -> WriteBehind:
    """This process's writer for the run, made on the first call."""
    if run not in _writers:
        _close_writers()  # one build at a time per worker
        _writers[run] = WriteBehind()
    return _writers[run]


def _close_writers() -> None:
    for writer in _writers.values():
        writer.close()
    _writers.clear()


def drained_writes(run: str) -> list[dict[str, Any]]:
    """On a worker, once every level is solved: the records of the files it wrote behind and not yet handed
    back (none if it wrote none)."""
    writer = _writers.get(run)
    return writer.drained() if writer is not None else []


def _segment(state: _Run, rows: Any, root: Location, table: str, piece: Any, durable: bool) -> dict[str, Any]:
    """The probe index's segment of a part's rows, written beside them: {its file's name: its record}."""
    if state.figures is None:
        state.figures = figures_of(rows.schema, state.builder.index_rules())
    name = piece.segment_name
    return {name: write_segments(root, table, name, [segment_of_rows(rows, state.figures)], rows.num_rows, durable)}


def index_values(run: str, root: Location, table: str, ref: str, params: dict[str, Any], values: dict[str, Any],
                 every: float, figures: list[Figure], keys: tuple[int, int], done: Any) -> dict[str, Any]:
    """On a worker, once every level is solved: the probe index's segments of the keys [start, stop) from
    the values its machine holds in key order, in one file (``layout.keys_segment_name``); its record.

    A level this machine does not hold (solved on another host) is read back first, as for solving.
    """
    root = located(root)
    with _one_at_a_time:
        state = _solver(run, root, table, ref, params, values)
        solver, game = state.solver, state.solver.game
        # Every level, not only those that moves reach (a top level is reached by none); silently: this task's
        # reports count the keys it indexes.
        held = [start + i for start, _, sizes in state.plan.spans for i, n in enumerate(sizes) if n]
        lacking = [level for level in held if level not in solver.levels]
        _read_back(state, root, table, run, lacking, float("inf"))
        known = solver.known  # type: ignore[attr-defined]
        holes = np.asarray(game.absent_keys, dtype=np.int64)
        return write_keys_file(root, table, keys, known.grundy, known.remoteness,
                               known.misere if known.with_misere else None, holes, figures, done)
