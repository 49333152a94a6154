"""Listing a game's positions before it is built, for games that do not list their levels.

The listing runs as one Dask task on a worker (``list_positions``): the
engine searches the game from its start positions and writes each level's
positions and moves through the store (``_listing/``). The driver records
the files in the manifest, so a resumed build reuses a whole listing, and
the listing's sizes, move names and bound on moves stay in the manifest
after the build (lookups of a plain table need them); the files go once the
table is complete. Progress of the search reaches the driver as Dask events.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any, Callable

from distributed import Client, get_worker

from tablebase.games import load_game
from tablebase.kinds import kind_of
from tablebase.kinds.listing import level_rows, level_table
from tablebase.store import Manifest, flush_to_disk, read_listing_level, table_dir, write_listing_level

TOPIC = "tablebase-listing"


def list_positions(ref: str, params: dict[str, Any], root: str, table: str, run: str) -> dict[str, Any]:
    """Dask task: list a game's positions into the store; the listing's record for the manifest."""
    game, _ = load_game(ref, params)
    worker = get_worker()

    def say(text: str) -> None:
        worker.log_event(TOPIC, {"run": run, "text": text})

    limit = worker.memory_manager.memory_limit
    listing = kind_of(game).list_positions(game, say, memory=int(0.8 * limit) if limit else None)
    files = {}
    for level, rows in listing.levels.items():
        record = write_listing_level(level_table(rows), root, table, level)
        files[record.pop("file")] = record
    flush_to_disk()
    return {"sizes": listing.sizes.tolist(), "move_names": listing.move_names, "max_moves": listing.max_moves,
            "files": files, "complete": True, "held_bytes": listing.held}


def whole(root: Path, manifest: Manifest) -> bool:
    """Whether a manifest records a listing whose files are all there, whole."""
    listing = manifest.listing
    if not listing.get("complete"):
        return False
    folder = table_dir(root, manifest.table)
    return all((folder / n).is_file() and (folder / n).stat().st_size == r["bytes"]
               for n, r in listing.get("files", {}).items())


def list_on_cluster(client: Client, root: Path, manifest: Manifest, ref: str, say: Callable[[str], None]) -> None:
    """List the game's positions on a worker (unless a whole listing is recorded); record it."""
    if whole(root, manifest):
        say(f"positions listed before: {sum(manifest.listing['sizes']):,}, reused")
        return
    run = uuid.uuid4().hex
    began = time.perf_counter()

    def heard(event: Any) -> None:
        _, message = event
        if isinstance(message, dict) and message.get("run") == run:
            say(message["text"])

    say("listing positions from the start positions on a worker")
    client.subscribe_topic(TOPIC, heard)
    try:
        future = client.submit(list_positions, ref, manifest.params, str(root), manifest.table, run,
                               key=f"list-{manifest.table}-{run}", pure=False)
        manifest.listing = future.result()
    finally:
        client.unsubscribe_topic(TOPIC)
    manifest.save(root)
    seconds = time.perf_counter() - began
    total = sum(manifest.listing["sizes"])
    levels = sum(1 for size in manifest.listing["sizes"] if size)
    say(f"listed {total:,} positions in {levels} levels in {seconds:.1f}s "
        f"({total / max(seconds, 1e-9):,.0f}/s), holding about {manifest.listing['held_bytes'] / 2**20:,.0f} MiB "
        "on one worker")


def stored_view(game: Any, root: str | Path, table: str, listing: dict[str, Any]) -> Any:
    """The game in keyed form over its recorded listing, levels read from the store as needed."""
    return kind_of(game).view(game, listing.get("sizes"), listing.get("move_names"),
                              lambda level: level_rows(read_listing_level(root, table, level)),
                              listing.get("max_moves", 0))
