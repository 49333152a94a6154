"""Listing a game's positions before it is built, for games that do not list their levels.

A plain game is listed by the workers in shares (``rounds.py``), a keyed game
that gives ``start_keys()`` by one Dask task in numpy batches
(``list_keys_on_worker``). Either way each level is written through the store
(``_listing/``) and the manifest records the files, so that a resumed build
reuses a whole listing; the listing's limits (``tablebase.listing.Limits``)
are this process's current ones, and the tasks on the workers are given them.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from distributed import Client, Future, get_worker

from tablebase.build.census.rounds import ShareSearch
from tablebase.build.census.small_levels import written_levels
from tablebase.build.progress.display import Timings, throttled
from tablebase.build.worker_game import builder_of_run
from tablebase.builders import Builder
from tablebase.errors import BuildError, StoreError, TablebaseError
from tablebase.listed import LevelRows
from tablebase.listing import (
    Limits,
    Listing,
    current_limits,
    level_rows,
    limits_set,
)
from tablebase.store import Manifest, file_there, read_listing_rows, read_listing_span, remove_listing
from tablebase.store.listing_files import listing_name
from tablebase.store.location import Location

TOPIC = "tablebase-listing"


def _record(listing: Listing, root: Location, table: str) -> dict[str, Any]:
    """Write a listing's levels through the store; its record for the manifest."""
    return {"sizes": listing.sizes.tolist(), "move_names": listing.move_names, "max_moves": listing.max_moves,
            "mean_moves": listing.mean_moves, "files": written_levels(listing, root, table), "complete": True,
            "held_bytes": listing.held}


def list_keys_on_worker(ref: str, params: dict[str, Any], root: Location, table: str, run: str,
                        limits: Limits) -> dict[str, Any]:
    """Dask task: list a keyed game's positions into the store, under the driver's limits; the listing's
    record for the manifest."""
    builder = builder_of_run(run, ref, params)
    worker = get_worker()

    def say(text: str) -> None:
        worker.log_event(TOPIC, {"run": run, "text": text})

    limit = worker.memory_manager.memory_limit
    with limits_set(limits):
        listing = builder.list_positions(say, memory=int(0.8 * limit) if limit else None)
    return _record(listing, root, table)


def whole(root: Location, manifest: Manifest) -> bool:
    """Whether a manifest records a listing whose files are all there, whole (their sha256 checked).

    A finished table keeps the listing's sizes but not its files (its rows
    hold all that lookups need): running its build again lists the game
    again, as the levels are read from the listing's files, not its record.
    """
    listing, files = manifest.listing, manifest.listing.get("files", {})
    if not listing.get("complete") or not files:
        return False
    return all(file_there(root, manifest.table, n, r) for n, r in files.items())


STOP_PATIENCE = 60.0  # seconds a stopped listing's running tasks are waited for


def _stop_tasks(client: Client, run: str, patience: float = STOP_PATIENCE) -> None:
    """Cancel the run's tasks and wait until none is still running: a running task cannot be stopped, and
    writes its files as it ends (after the listing was removed, they were left behind)."""
    try:
        client.cancel([Future(key, client) for key in list(client.futures) if run in str(key)], force=True)
    except (OSError, TimeoutError):
        return

    def running(run: str, dask_worker: Any = None) -> int:
        return sum(run in str(task.key) for task in dask_worker.state.executing)

    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        try:
            if not any(client.run(running, run, on_error="ignore").values()):
                return
        except (OSError, TimeoutError):
            return
        time.sleep(0.05)


def list_on_cluster(client: Client, root: Location, manifest: Manifest, builder: Builder, ref: str, run: str,
                    say: Callable[[str], None], timings: Timings | None = None, every: float = 1.0) -> None:
    """List the game's positions (unless a whole listing is recorded); record it. A plain game's search
    resumes at the step it had not recorded; the listing's sizes, move names and bound on moves stay in the
    manifest after the build (lookups of a plain table need them), and its files go once the table is
    complete. ``timings``: where the
    listing's seconds go (the build's summary says the same as its line here); ``every``: seconds between
    the lines that say how far it has got."""
    if whole(root, manifest):
        say(f"positions listed before: {sum(manifest.listing['sizes']):,}, reused")
        return
    timings = timings if timings is not None else Timings()
    with timings.step("listing"):
        if builder.game.keyed:
            _keys_on_a_worker(client, root, manifest, ref, run, say, every)
        else:
            try:
                manifest.listing = ShareSearch(client, root, manifest, builder, ref, run, say, every=every,
                                               timings=timings).listing()
            except (BuildError, StoreError):
                raise  # the cluster or the disk: what was found is kept, and the same command resumes
            except TablebaseError:
                # A defect of the game: listing it again finds the same, so nothing is kept.
                manifest.listing = {}
                manifest.save(root)
                _stop_tasks(client, run)
                remove_listing(root, manifest.table)
                raise
        manifest.save(root)
    seconds = timings.seconds("listing")
    total = sum(manifest.listing["sizes"])
    levels = sum(1 for size in manifest.listing["sizes"] if size)
    held = manifest.listing.get("held_bytes")
    say(f"listed {total:,} positions in {levels} levels in {seconds:.1f}s ({total / max(seconds, 1e-9):,.0f}/s)"
        + ("" if held is None else f", holding about {held / 2**20:,.0f} MiB"))


def _keys_on_a_worker(client: Client, root: Location, manifest: Manifest, ref: str, run: str,
                      say: Callable[[str], None], every: float = 1.0) -> None:
    """A keyed game's listing, by one task on a worker; its progress reaches here as Dask events, said at most
    once every ``every`` seconds (the worker says how far it is once a second)."""
    status = throttled(say, every)

    def heard(event: Any) -> None:
        _, message = event
        if isinstance(message, dict) and message.get("run") == run:
            status(message["text"])

    say("listing positions from the start positions on a worker")
    client.subscribe_topic(TOPIC, heard)
    try:
        future = client.submit(list_keys_on_worker, ref, manifest.params, root, manifest.table, run,
                               current_limits(), key=f"list-{manifest.table}-{run}", pure=False)
        manifest.listing = future.result()
    finally:
        client.unsubscribe_topic(TOPIC)


def listed_from_store(builder: Builder, root: Location, table: str, listing: dict[str, Any]) -> Builder:
    """The builder over the game's recorded listing, levels read from the store as needed (a game that lists
    its own levels is its own keyed form: the builder as it is)."""
    if not builder.needs_listing:
        return builder

    # A file of several levels is read whole once, and its levels kept while the solve goes through them.
    files = listing.get("files", {})
    runs = {level: name for name, record in files.items() if "levels" in record
            for level in range(record["levels"][0], record["levels"][1] + 1)}
    held: dict[str, dict[int, Any]] = {}

    def part(level: int, start: int, stop: int) -> LevelRows:
        name = runs.get(level)
        if name is None:
            first, rows = read_listing_rows(root, table, level, start, stop, files.get(listing_name(level)))
            return level_rows(rows, first)
        if name not in held:
            held.clear()
            held[name] = read_listing_span(root, table, name, files[name])
        return level_rows(held[name][level])

    return builder.listed(listing.get("sizes"), listing.get("move_names"), part,
                       listing.get("max_moves", 0), listing.get("mean_moves", 0.0), listing.get("kept"))
