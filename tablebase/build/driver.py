"""The build driver: a table's levels become partitions, partitions become Dask tasks, tasks become files.

``build_table`` is a short sequence of steps (``TableBuild``): resume what an earlier run left; list the
positions of a game that does not list them itself (census/entry.py); plan the memory and the files; submit
every step of solving tasks at once, each waiting for the step below inside the scheduler; collect each
partition's record into the manifest as it goes, so that a killed build resumes where it stopped; finish the
kind's artifacts; write the probe index (index_step.py); and clean up, whatever happened.
"""

from __future__ import annotations

import uuid
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from distributed import Client, Future, as_completed

from tablebase.build.census.entry import list_on_cluster, listed_from_store
from tablebase.build.cluster import allocator, shared_values
from tablebase.build.cluster.failures import (
    LOST,
    RecordsLost,
    again_key,
    answered,
    levels_named,
    records_lost,
    records_of,
    submitted_again,
)
from tablebase.build.cluster.lost_workers import finishing
from tablebase.build.cluster.mapped_memory import mapped_values_allowed
from tablebase.build.cluster.memory_plan import MemoryPlan, Workers, notation_bytes, plan_memory
from tablebase.build.cluster.start import cluster_workers
from tablebase.build.cluster.streams import send_at_once
from tablebase.build.collector import Collector
from tablebase.build.index_step import write_index
from tablebase.build.jobs import TableSpec
from tablebase.build.plan import deal, default_partition_rows, level_sizes, plan, schedule
from tablebase.build.progress.display import Progress, Ticker, Timings, throttled
from tablebase.build.progress.worker_events import listening
from tablebase.build.resume import built_already, resumed
from tablebase.build.summary import BuildSummary
from tablebase.build.tasks import drained_writes, measure_notation, release, solve_slices, warm_up
from tablebase.builders import ArtifactBuild, Builder
from tablebase.errors import BuildError, StoreError
from tablebase.solve.figures import FIGURES, FigureOverflow
from tablebase.spelling import counted
from tablebase.store import Manifest, remove_listing
from tablebase.store.garbage import clear_unrecorded
from tablebase.store.location import Location, located

# A table of at most this many keys holds its figures wide from the start: the byte a key that holding them
# narrow saves there is not worth starting the build again when a figure does not fit (solve/figures.py).
WIDE_KEYS = 1 << 16


def build_table(client: Client, root: Location | Path, spec: TableSpec, partition_rows: int | None = None,
                every: float = 1.0, scratch: Path | None = None, worker: int | None = None) -> BuildSummary:
    """Build (or finish building) one table; return the summary of the run.

    ``partition_rows`` fixes the partition size; by default it is planned from
    the workers' memory. A table being resumed keeps the size it was begun with.
    ``root``: the folder (a path, or its ``Location``) or object store the table is written to.
    ``scratch``: where values too large for memory are mapped from (by default
    under ``root``; for an object store, under each machine's temporary
    folder). ``worker``: the index of the worker (among the cluster's,
    sorted) that the table's solving goes to first, when tables are built side
    by side. The caller holds the table's build lock.

    The values of lower levels are held one byte a figure; a figure that does
    not fit makes the build start again with that figure wide, resuming from
    the files written so far (solve/figures.py).
    """
    timings = Timings()
    root = located(root)
    whole = built_already(root, spec, partition_rows)
    if whole is not None:
        Progress(spec.name, 1, 0, every=every).say(
            f"built already: {counted(len(whole.files), 'file')} of {whole.positions:,} positions as recorded, "
            "nothing to do")
        return BuildSummary(table=spec.name, positions=whole.positions, levels=len(whole.plan),
                            seconds=timings.seconds(), partitions=len(whole.files),
                            skipped_partitions=len(whole.files), bytes=whole.bytes, memory_estimate_mib=0,
                            worker_seconds={})
    wide: frozenset[str] = frozenset()
    while True:
        build = TableBuild(client, root, spec, every, wide, scratch, worker, timings)
        build.prepare(partition_rows)
        try:
            with build.values_mapped():
                build.solve()
                build.finish_artifacts()
                build.write_index()
                build.release_values()
        except FigureOverflow as e:
            build.close()
            wide |= {e.figure}
            build.say(f"{e}: holding it wide and starting again from the files written")
            continue
        except BaseException:
            build.close(failed=True)
            raise
        build.close()
        timings.stop()
        build.say(timings.line())
        return build.summary()


def plan_table(client: Client, root: Location | Path, spec: TableSpec, partition_rows: int | None = None,
               scratch: Path | None = None) -> MemoryPlan | None:
    """The memory plan a build of the table would make on this cluster, without building (``--dry-run``);
    None if the table is built already (``built_already``): a build would do nothing."""
    root = located(root)
    if built_already(root, spec, partition_rows) is not None:
        return None
    build = TableBuild(client, root, spec, float("inf"), frozenset(), scratch)
    build.resume(partition_rows)
    build.builder = listed_from_store(build.builder, root, spec.name, build.manifest.listing)
    return build._memory(level_sizes(build.builder.keyed), cluster_workers(client, build.disk, build.values_name))


class TableBuild:
    """One run of one table's build, step by step (``build_table`` says the order)."""

    def __init__(self, client: Client, root: Location, spec: TableSpec, every: float,
                 wide: frozenset[str] = frozenset(), scratch: Path | None = None, worker: int | None = None,
                 timings: Timings | None = None) -> None:
        self.client, self.root, self.spec, self.every, self.worker = client, root, spec, every, worker
        self.timings = timings if timings is not None else Timings()  # the build's, over every run of it
        self.run = uuid.uuid4().hex  # names this run's tasks, and its workers' state
        self.wide = wide  # the figures held at their bound's type, the others in one byte
        self.builder: Builder = spec.builder
        #: where each machine maps values too large for memory from, if the plan says so
        self.disk = str(scratch if scratch is not None else shared_values.disk_folder(root))
        #: the values' folders are named for the build, not the run: a resumed build maps what a killed run left
        self.values_name = shared_values.values_name(root.url, spec.name, spec.source.digest, spec.game.params,
                                                     sorted(wide))
        self.say = Progress(spec.name, 1, 0, every=every).say
        self.task_args = (self.run, root, spec.name, spec.source.ref, spec.game.params)
        self.pending: dict[str, Any] = {}  # solving tasks not yet collected
        self.dealt: dict[str, list] = {}  # each solving task's slices, to submit it again
        self.warming: list = []
        self.behind = True  # files written behind the solving where the plan allows it (``_drain``)

    def prepare(self, partition_rows: int | None) -> None:
        """The steps before solving: resume, list, plan."""
        send_at_once(self.client)
        allocator.keep_freed_memory_on(self.client)
        self.resume(partition_rows)
        self.list_positions()
        self.plan()

    @property
    def values(self) -> dict[str, Any]:
        """What a worker needs to know of where and how wide it holds the values (build/tasks.py)."""
        return {"disk": self.disk if self.memory.on_disk else None, "wide": sorted(self.wide), "name": self.values_name,
                "behind": self.memory.behind and self.behind}

    # -- the steps ----------------------------------------------------------------
    def resume(self, partition_rows: int | None) -> None:
        """The manifest an earlier run left (or a fresh one); what killed builds left is removed."""
        self.manifest = resumed(self.root, self.spec, partition_rows)
        self.fixed_rows = bool(partition_rows or self.manifest.partition_rows)
        clear_unrecorded(self.root, self.spec.name, self.manifest)

    def list_positions(self) -> None:
        """A game that does not list its own levels is listed on the workers; its keyed form is then the listing's."""
        if self.builder.needs_listing:
            self.manifest.complete = False
            self.manifest.save(self.root)
            list_on_cluster(self.client, self.root, self.manifest, self.builder, self.spec.source.ref, self.run,
                            self.say, self.timings, self.every)
        self.builder = listed_from_store(self.builder, self.root, self.spec.name, self.manifest.listing)

    def _hold_wide(self, wide: frozenset[str]) -> None:
        """Hold these figures at their bound's type from the start."""
        self.wide = wide
        self.values_name = shared_values.values_name(self.root.url, self.spec.name, self.spec.source.digest,
                                              self.spec.game.params, sorted(wide))

    def plan(self) -> None:
        """Memory, partitions and files planned; the manifest the workers read saved; progress begun."""
        game, manifest = self.builder.keyed, self.manifest
        self.sizes = level_sizes(game, throttled(self.say, self.every))
        if not self.wide and (game.key_space if game.key_space is not None else sum(self.sizes)) <= WIDE_KEYS:
            self._hold_wide(frozenset(FIGURES))
        self.cluster = cluster_workers(self.client, self.disk, self.values_name)
        if self.cluster.kept_parts:
            self.say(f"values of {counted(self.cluster.kept_parts, 'part')} kept on this machine from the last run")
        self.memory = self._memory(self.sizes, self.cluster)
        manifest.partition_rows = self.memory.partition_rows
        manifest.plan = plan(self.sizes, self.memory.partition_rows, self.builder.whole_levels)
        for artifact in self.builder.artifacts:
            artifact.prepare(self.root, manifest)
        manifest.complete = False
        manifest.save(self.root)  # the workers read the plan's layout from it
        self.layout = manifest.layout()
        self.skipped = len(manifest.files)
        total = sum(self.sizes)
        self.progress = Progress(self.spec.name, total, game.max_level, every=self.every, sizes=self.sizes)
        self.progress.resumed(sum(f["rows"] for f in manifest.files.values()), manifest.plan,
                              self.layout.levels_held(manifest.files))
        self.progress.say(
            f"{counted(total, 'position')} in {counted(len(manifest.plan), 'level')}, "
            f"{counted(len(self.layout.pieces), 'file')}"
            + (f" ({self.skipped:,} already built, skipped)" if self.skipped else "")
            + f", {counted(len(self.cluster.addresses), 'worker')}"
        )
        self.progress.say(self.memory.describe())
        self.collector = Collector(self.root, manifest, self.layout, self.progress, self.builder.artifacts)

    def solve(self) -> None:
        """Every step of solving tasks submitted at once, then each task's records collected as it finishes."""
        # From before any task runs: the workers' reading back (progress/worker_events.py), and long parts.
        with self.timings.step("solving"), listening(self.client, self.run, self.progress), \
                Ticker(self.progress.heartbeat, self.every):
            self._warm_up()
            self._collect(self._submit_steps())
            if self.values["behind"]:
                self._drain()
                if len(self.manifest.files) < len(self.layout.pieces):  # a lost worker's, never written
                    self.behind = False
                    self._collect(self._submit_steps())

    def _collect(self, solving: dict[str, list[int]]) -> None:
        """Each solving task's records, as it finishes; a task whose records were lost, submitted again."""
        for future in finishing(self.client, self.pending, self.run, self.progress.say):
            try:
                records = self._records(future, solving)
            except RecordsLost:
                self._report_failures(solving)  # a task's failure says more than a lost record
                if submitted_again(future.key, self.run):
                    raise
                self._submit_again(future, solving)
                continue
            except BuildError:
                self._report_failures(solving)
                raise
            self.collector.add(records)
            # Forgotten once the step above has started, so that a worker lost
            # later does not make the scheduler compute it again.
            del self.pending[future.key]

    def _drain(self) -> None:
        """The records of the files the workers wrote behind their solving and have not handed back yet
        (build/write_behind.py); a worker lost meanwhile has none to give."""
        answers = self.client.run(drained_writes, self.run, on_error="return")
        for records in answered(answers, self.spec.name, "writing the files of solved parts"):
            self.collector.add(records)

    def values_mapped(self) -> AbstractContextManager[None]:
        """While the block runs, the workers' memory limits allow for the values mapped from disk: from the
        solve until they are let go of (``release_values``), not only while solving, or the nannies restart
        workers that still map them."""
        return mapped_values_allowed(self.client, self.run, self.memory.values if self.memory.on_disk else 0)

    def finish_artifacts(self) -> None:
        """The kind's files beside the rows, finished on the cluster once every partition is built."""
        self.manifest.levels_done = self.collector.finished()
        for artifact in self.builder.artifacts:
            _finish(self.client, self.root, self.manifest, artifact, self.run, self.progress.say)

    def release_values(self) -> None:
        """Values mapped from disk are let go of and their files removed once the index is written."""
        if self.memory.on_disk:
            # A worker lost meanwhile holds nothing; its host's files go at the end (``close``).
            self.client.run(release, self.run, self.values_name, self.disk, on_error="ignore")

    def write_index(self) -> None:
        """The probe index (``index_step.write_index``), timed for the summary; then what this run's killed
        writers left is removed, a worker's killed while it sent a file of the index among them."""
        seconds = write_index(self)
        if seconds is not None:
            self.timings.add("index", seconds)
        clear_unrecorded(self.root, self.spec.name, self.manifest)

    def close(self, failed: bool = False) -> None:
        """Whatever happened: the manifest saved as it stands, tasks left cancelled, the workers' state freed.
        After a failure (``failed``), a store that will not take the manifest keeps the last one committed,
        and the failure is what is said."""
        manifest = self.manifest
        manifest.complete = self.whole()
        if manifest.complete and manifest.listing.get("files"):
            manifest.listing["files"] = {}  # the rows hold all that lookups need of it
        try:
            manifest.save(self.root)
        except StoreError:
            if not failed:
                raise
        if manifest.complete:
            remove_listing(self.root, self.spec.name)
        if self.client.status == "running":  # not after the scheduler was lost
            unfinished = [f for f in [*self.pending.values(), *self.warming] if not f.done()]
            try:
                if unfinished:
                    self.client.cancel(unfinished)
                self.client.run(shared_values.remove, self.values_name, self.disk, on_error="ignore")
            except (OSError, TimeoutError):
                pass  # lost on the way: the next build removes what the workers keep

    def summary(self) -> BuildSummary:
        return BuildSummary(
            table=self.spec.name, positions=self.manifest.positions, levels=len(self.manifest.plan),
            seconds=self.timings.seconds(), partitions=len(self.layout.pieces),
            skipped_partitions=self.skipped, bytes=self.manifest.bytes,
            memory_estimate_mib=round(self.memory.peak / 2**20),
            worker_seconds={phase: round(seconds, 3) for phase, seconds in self.collector.busy.items()},
            index_seconds=self.timings.seconds("index"), listing_seconds=self.timings.seconds("listing"),
            numbering_seconds=self.timings.seconds("numbering"), solving_seconds=self.timings.seconds("solving"))

    # -- inside the steps ---------------------------------------------------------
    def whole(self) -> bool:
        """Whether every level and artifact is built (the levels done brought up to date)."""
        manifest = self.manifest
        manifest.levels_done = self.collector.finished()
        return len(manifest.levels_done) == len(manifest.plan) and all(
            a.complete(manifest) for a in self.builder.artifacts)

    def _memory(self, sizes: list[int], cluster: Workers) -> MemoryPlan:
        """The memory plan; partitions are sized to fit it unless their size is fixed (asked for, or resumed)."""
        footprint, game = self.builder.footprint(self.wide), self.builder.keyed
        if footprint.per_notation_byte:
            # A listed game's notation is read from its listing here; any other game's is spelt by its own,
            # often compiled, code: on a worker, which has numba ready, while this process never starts it.
            if self.builder.needs_listing:  # kept for a dry run once the table is built and its listing gone
                listing = self.manifest.listing
                notation = listing["notation_bytes"] = listing.get("notation_bytes") or notation_bytes(game)
            else:
                measuring = self.client.submit(measure_notation, self.run, self.spec.source.ref, self.spec.game.params,
                                               pure=False, key=f"notation-{self.spec.name}-{self.run}")
                notation = records_of(measuring, self.spec.name, [game.max_level // 2], cluster.limit)
            footprint = footprint.with_notation(notation)
        rows = self.manifest.partition_rows or default_partition_rows(sizes)
        return plan_memory(game, footprint, rows, self.fixed_rows, cluster, max(sizes, default=0), sum(sizes),
                           self.builder.whole_levels)

    def _warm_up(self) -> None:
        """Each worker makes the run's solver (loading compiled code) before the first slice needs it."""
        self.warming = [
            self.client.submit(warm_up, *self.task_args, self.values, self.every,
                               key=f"warm-up-{self.spec.name}-{i}-{self.run}", workers=[worker],
                               allow_other_workers=True, pure=False)
            for i, worker in enumerate(self._workers()[:1] if self.worker is not None else self._workers())
        ]

    def _workers(self) -> list[str]:
        """The workers in the order tasks are dealt to them: from this table's own, if it has one (a worker
        holds one build's solver at a time, so tables built side by side keep to their own)."""
        workers = list(self.cluster.addresses)
        if self.worker is None or not workers:
            return workers
        first = self.worker % len(workers)
        return workers[first:] + workers[:first]

    def _records(self, future: Future, solving: dict[str, list[int]]) -> list[dict[str, Any]]:
        """The records of a task seen finished or failed. One lost since was finished: its worker died holding
        its records, and the scheduler would wait for ever on the steps below it (forgotten on purpose)."""
        if future.status in LOST:
            raise records_lost(self.spec.name, f"solving {levels_named(solving[future.key])}")
        return records_of(future, self.spec.name, solving[future.key], self.memory.limit, small=True)

    def _report_failures(self, solving: dict[str, list[int]]) -> None:
        """The first task that failed, in its own line (a worker killed for memory names the level and the
        remedy); nothing if none has."""
        for other in self.pending.values():
            if other.status == "error":
                records_of(other, self.spec.name, solving[other.key], self.memory.limit)

    def _submit_again(self, lost: Future, solving: dict[str, list[int]]) -> None:
        """A finished task whose records were lost with its worker, submitted once more on its own: every
        step below it is on disk, and it writes the same files again."""
        self.progress.say(f"a worker holding the records of {levels_named(solving[lost.key])} was lost: solving "
                          "them again")
        key = again_key(lost.key, self.run)
        self.pending[key] = self.client.submit(solve_slices, *self.task_args, self.dealt[lost.key], self.spec.compact,
                                               [], self.values, self.every, key=key, pure=False)
        solving[key] = solving[lost.key]
        del self.pending[lost.key]

    def _submit_steps(self) -> dict[str, list[int]]:
        """Every step's tasks, each taking the tasks of the step below as arguments: the scheduler starts a
        step as soon as the one below is done, without a round trip through this process. Tasks are dealt
        to the workers in turn (the scheduler would otherwise run them where their arguments are, all on
        one worker); any worker takes them if one dies. Returns each task's levels, to name them if it fails."""
        workers = self._workers()
        if not workers:  # else no task is dealt, and the table would end unbuilt without a word
            raise BuildError(f"{self.spec.name}: the cluster has no workers at the moment; build again to resume")
        solving: dict[str, list[int]] = {}
        below: list = []
        for number, step in enumerate(schedule(self.manifest, self.layout)):
            dealt = deal(step, len(workers))
            below = [
                self.client.submit(
                    solve_slices, *self.task_args, slices, self.spec.compact, below, self.values, self.every,
                    key=f"solve-{self.spec.name}-{number}.{i}{'' if self.behind else '-again'}-{self.run}", pure=False,
                    workers=[workers[i % len(workers)]], allow_other_workers=True,
                )
                for i, slices in enumerate(dealt)
            ]
            self.pending.update((f.key, f) for f in below)
            self.dealt.update((f.key, slices) for f, slices in zip(below, dealt))
            solving.update((f.key, sorted({level for s in slices for level in (s[0].first, s[0].last)}))
                           for f, slices in zip(below, dealt))
        return solving


def _finish(client: Client, root: Location, manifest: Manifest, artifact: ArtifactBuild, run: str, say: Any) -> None:
    """Run an artifact's finishing tasks on the cluster, then let it record what they wrote."""
    tasks = artifact.finishing_tasks(root, manifest)
    futures = {client.submit(function, *args, key=f"{name}-{manifest.table}-{run}", pure=False): name
               for name, function, args in tasks}
    # One line, as for a solve, when a task fails or its workers die (records_of).
    records = [records_of(future, manifest.table, work=f"finishing the table ({futures[future]})")
               for future in as_completed(futures)]
    artifact.finished(root, manifest, records, say)
