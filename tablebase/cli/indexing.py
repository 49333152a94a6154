"""The ``index`` verb: the probe index of tables built before builds wrote one, from their Parquet files.

Nothing is built again: each table's rows are read a batch at a time and
its probe index written beside them (``tablebase.store.probe``), under the
table's build lock, and recorded in its manifest. Every table named is
checked (there, complete) before any is indexed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tablebase.cli.output import db_option, need_db
from tablebase.errors import StoreError

if TYPE_CHECKING:
    from tablebase.store.probe import Parallel


def add_options(index: argparse.ArgumentParser) -> None:
    """The verb's options."""
    db_option(index)
    index.add_argument("tables", nargs="*", metavar="TABLE", help="tables to index (default: every table)")
    index.add_argument("--force", action="store_true", help="write it again even where one is recorded")
    index.add_argument("--quiet", action="store_true", help="no progress on stderr")
    index.add_argument("--processes", type=int, default=None, metavar="N",
                       help="parts of each pass read at once, each by a process (default: one a core)")


def index(args: argparse.Namespace) -> int:
    from tablebase.store import Manifest, list_tables
    from tablebase.store.probe import InProcesses, InThreads

    if args.processes is not None and args.processes < 1:
        raise StoreError(f"--processes must be at least 1, got {args.processes}")
    width = args.processes or os.cpu_count() or 1
    root = Path(need_db(args))
    if not root.is_dir():
        raise StoreError(f"no tablebase folder at {root}")
    names = args.tables or list_tables(root)
    if not names:
        raise StoreError(f"no tables in {root}")
    for manifest in [Manifest.load(root, name) for name in dict.fromkeys(names)]:
        if not manifest.complete:
            raise StoreError(f"table {manifest.table} is not complete: finish its build (run the same build "
                             "command again) before indexing it")
    # One process needs none of its own: its parts run here, one after another.
    with contextlib.nullcontext(InThreads()) if width == 1 else InProcesses(width) as parallel:
        for name in dict.fromkeys(names):
            _index_one(args, root, name, parallel)
    return 0


def _index_one(args: argparse.Namespace, root: Path, name: str, parallel: Parallel) -> None:
    """One table's probe index, written under its build lock and recorded in its manifest."""
    from tablebase.build.indexing import counting, index_whole, index_work
    from tablebase.build.progress import Progress
    from tablebase.store import BuildLock, Manifest, table_dir
    from tablebase.store.probe import write_index

    def say(text: str) -> None:
        if not args.quiet:
            print(f"[{name}] {text}", file=sys.stderr, flush=True)

    began = time.perf_counter()
    with BuildLock(table_dir(root, name)):
        manifest = Manifest.load(root, name)  # as it is now that the table is ours
        if index_whole(root, manifest) and not args.force:
            say("its probe index is there already (--force writes it again)")
            return
        total, what = index_work(manifest)
        progress = Progress(name, total, 0, every=float("inf") if args.quiet else 1.0)
        manifest.probe = write_index(root, manifest, say, counting(progress, total, what), parallel)
        manifest.save(root)
    for file, record in manifest.probe.items():
        print(json.dumps({"table": name, "file": file, "positions": record["rows"], "bytes": record["bytes"],
                          "bytes_per_position": round(record["bytes"] / max(record["rows"], 1), 3),
                          "seconds": round(time.perf_counter() - began, 3)}))
