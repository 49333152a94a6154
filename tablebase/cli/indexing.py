"""The ``index`` verb: the probe index of tables built without one (or with one of an older format).

Nothing is built again: the index is written from the table's Parquet files
(``tablebase.probe_writer``), under the table's build lock, and recorded in
its manifest. A dense impartial table whose values fit in memory (two or
three bytes a key) gets the index a build writes, from its values in key
order; any other table a segment beside each of its files. Every table
named is checked (there, complete) before any is indexed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from tablebase.cli.output import db_option, need_db
from tablebase.errors import StoreError, TablebaseError

MEMORY_SHARE = 0.5  # of the memory available, what a table's values may take to be indexed from them


def add_options(index: argparse.ArgumentParser) -> None:
    """The verb's options."""
    from tablebase.cli.storage import storage_option

    db_option(index)
    storage_option(index)
    index.add_argument("tables", nargs="*", metavar="TABLE", help="tables to index (default: every table)")
    index.add_argument("--force", action="store_true", help="write it again even where one is recorded")
    index.add_argument("--quiet", action="store_true", help="no progress on stderr")
    index.add_argument("--game", action="append", default=[], metavar="REF",
                       help="the game a table was built from, where it is neither built in nor installed")


def index(args: argparse.Namespace) -> int:
    from tablebase.store import Manifest, list_tables
    from tablebase.store.location import Folder

    root = need_db(args)
    if isinstance(root, Folder) and not Path(root.root).is_dir():
        raise StoreError(f"no tablebase folder at {root.url}")
    root.check()
    names = args.tables or list_tables(root)
    if not names:
        raise StoreError(f"no tables in {root.url}")
    for manifest in [Manifest.load(root, name) for name in dict.fromkeys(names)]:
        if not manifest.complete:
            raise StoreError(f"table {manifest.table} is not complete: finish its build (run the same build "
                             "command again) before indexing it")
    for name in dict.fromkeys(names):
        _index_one(args, root, name)
    return 0


def _index_one(args: argparse.Namespace, root: Any, name: str) -> None:
    """One table's probe index, written under its build lock and recorded in its manifest."""
    from tablebase.build.index_step import counting, index_whole
    from tablebase.build.progress.display import Progress, interval
    from tablebase.jit import compile_if_installed
    from tablebase.probe_writer import index_from_files, index_from_values_in_files
    from tablebase.store import Manifest
    from tablebase.store.lock import lock_at

    def say(text: str) -> None:
        if not args.quiet:
            print(f"[{name}] {text}", file=sys.stderr, flush=True)

    began = time.perf_counter()
    compile_if_installed()
    with lock_at(root, name):
        manifest = Manifest.load(root, name, tagged=True)  # as it is now that the table is ours
        if index_whole(root, manifest) and _current(root, manifest) and not args.force:
            say("its probe index is there already (--force writes it again)")
            return
        builder, dense = _builder(args, manifest)
        rules = builder.rules_for([c for c in _columns(root, manifest)])
        progress = Progress(name, manifest.positions, 0, every=interval(args.quiet))
        done = counting(progress, max(manifest.positions, 1), "writing the probe index")
        if dense is not None:
            say("from its values in key order")
            index_from_values_in_files(root, manifest, rules, *dense, done=done)
        else:
            say("a segment beside each file of rows")
            index_from_files(root, manifest, rules, done=done)
        manifest.save(root)
    size = sum(r["bytes"] for r in manifest.probe.values())
    print(json.dumps({"table": name, "files": len(manifest.probe), "positions": manifest.positions, "bytes": size,
                      "bytes_per_position": round(size / max(manifest.positions, 1), 3),
                      "seconds": round(time.perf_counter() - began, 3)}))


def _builder(args: argparse.Namespace, manifest: Any) -> tuple[Any, tuple[int, tuple[int, ...]] | None]:
    """The builder of the table's kind (its class where its game is not at hand), and (key space, keys that are
    no positions) where its index is written from its values: a dense impartial game's, its game trusted and
    its values within the memory they may take."""
    from tablebase.builders import builder_named, builder_of
    from tablebase.kinds import Trust
    from tablebase.lazy import psutil

    try:
        game, _ = Trust(args.game).load(manifest)
    except TablebaseError:
        return builder_named(manifest.kind), None
    builder = builder_of(game)
    if builder.needs_listing or not builder.indexed_from_values:
        return builder, None
    keyed = builder.keyed
    absent = tuple(keyed.absent_keys)
    fits = 3 * keyed.key_space <= MEMORY_SHARE * psutil.virtual_memory().available
    if manifest.positions + len(absent) != keyed.key_space or not fits:
        return builder, None
    return builder, (keyed.key_space, absent)


def _columns(root: Any, manifest: Any) -> list[str]:
    from tablebase.lazy import pq
    from tablebase.store.placed import source

    name = min(manifest.files)
    return pq.read_schema(source(root, manifest.table, name, manifest.files[name])).names


def _current(root: Any, manifest: Any) -> bool:
    """Whether the recorded index is of the format this version writes."""
    from tablebase.probe.format import FILE_NAME, VERSION
    from tablebase.store.placed import stored_name

    head = root.read_range(f"{manifest.table}/{stored_name(root, FILE_NAME, manifest.probe[FILE_NAME])}", 0, 10)
    return len(head) == 10 and int.from_bytes(head[8:10], "little") == VERSION
