"""Where a tablebase lies, on the command line: a folder or ``s3://BUCKET/PREFIX``, its storage options, and
``tablebase gc``, which removes what no manifest records.

The store's address, region and credentials come from the standard AWS
variables and files; ``--storage-option KEY=VALUE`` gives what they do not
(``tablebase.store.places.OPTIONS``).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from tablebase.cli.common import one_line
from tablebase.cli.output import DB_VARIABLE
from tablebase.errors import StoreError, TablebaseError
from tablebase.spelling import counted


def storage_option(parser: argparse.ArgumentParser) -> None:
    from tablebase.store.places import OPTIONS

    parser.add_argument("--storage-option", action="append", default=[], metavar="KEY=VALUE",
                        help=f"an option of the object store (may be given again): {', '.join(OPTIONS)}; the "
                             "address, region and credentials are otherwise the standard AWS variables' and files'")


def place(where: str, args: argparse.Namespace) -> Any:
    """The ``Location`` of a folder or URL, with the command's storage options."""
    from tablebase.store.places import location_of, storage_options

    return location_of(where, storage_options(args.storage_option))


def gc_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", default=os.environ.get(DB_VARIABLE), metavar="DIR|URL",
                        help=f"the tablebase: a folder, or s3://BUCKET/PREFIX (default: ${DB_VARIABLE})")
    parser.add_argument("--table", action="append", default=[], metavar="TABLE",
                        help="only this table (may be given again; default: every table)")
    parser.add_argument("--grace", type=float, default=None, metavar="SECONDS",
                        help="keep files younger than this, and every file of a table committed since (default "
                             "3600: a reader of the manifest before has long finished)")
    parser.add_argument("--dry-run", action="store_true", help="say what would be removed, and remove nothing")
    storage_option(parser)


def gc(args: argparse.Namespace) -> int:
    from tablebase.store.garbage import GRACE, collect, tables_at

    if not args.db:
        raise TablebaseError(f"give the tablebase: --db DIR or --db s3://BUCKET/PREFIX, or set {DB_VARIABLE}")
    grace = GRACE if args.grace is None else args.grace
    if not grace >= 0:
        raise TablebaseError(f"--grace must be 0 or more seconds, got {args.grace}")
    location = place(args.db, args)
    location.check()
    tables = list(dict.fromkeys(args.table)) or tables_at(location)
    if not tables:
        print(f"no tables in {args.db}")
        return 0
    skipped = 0
    for table in tables:
        try:
            found = collect(location, table, grace, args.dry_run)
        except StoreError as error:
            if args.table:  # a table named: its refusal is the command's
                raise
            print(one_line(f"tablebase: warning: {table} skipped: {error}"), file=sys.stderr)
            skipped += 1
            continue
        if args.dry_run:
            for name in found.removed:
                print(f"{table}/{name}")
        verb = "would remove" if args.dry_run else "removed"
        said = [f"{table}: {verb} {counted(len(found.removed), 'file')} ({found.bytes:,} bytes) that no manifest "
                "records"]
        if found.uploads:
            said.append(f"{'would abort' if args.dry_run else 'aborted'} {counted(found.uploads, 'upload')} "
                        "never completed")
        if found.kept:
            said.append(f"kept {counted(found.kept, 'file')} younger than the grace")
        print("; ".join(said))
    return 1 if skipped else 0
