"""The work files of a plain game listed in shares (``tablebase.build.shares``, ``tablebase.build.ranges``),
kept beside the listing's levels in ``_listing/`` until the table is built.

What reached each partition's share of a level (inbox); each share's rows, a
file for each batch they were played in (share); then, to number them, each
share's rows routed to the ranges of notation its level is cut in (routed),
a level's rows in ranges (range) and each range's rows as the listing holds
them (block). Every file is written atomically under a name that says which
step made it, so a step run again writes the same files.
"""

from __future__ import annotations

import os
from pathlib import Path

from tablebase.lazy import pa, pq
from tablebase.store.files import LISTING, read_parquet, table_dir, write_atomic


def inbox_name(level: int, partition: int, round_: int, source: str) -> str:
    """Positions of a level that reached a partition from ``source`` (a step of the search, or the start)."""
    return f"{LISTING}/inbox-{level:06d}-{partition:04d}-{round_:04d}-{source}.parquet"


def share_name(level: int, partition: int, round_: int, batch: int = 0) -> str:
    """A partition's share of a level (found in one round of it): positions and their moves, a file for each
    batch they were played in."""
    return f"{LISTING}/share-{level:06d}-{partition:04d}-{round_:04d}{f'-{batch:04d}' if batch else ''}.parquet"


def routed_name(level: int, range_: int, partition: int, batch: int) -> str:
    """A share's rows of a level (one batch of them) that fall in one range of the level's notation."""
    return f"{LISTING}/routed-{level:06d}-{range_:04d}-{partition:04d}-{batch:04d}.parquet"


def routed_files(root: str | os.PathLike, table: str, level: int, range_: int | None = None,
                 partition: int | None = None) -> list[Path]:
    """The rows routed to a range of a level (or to any: None) from every share (or one), sorted."""
    range_part = "*" if range_ is None else f"{range_:04d}"
    share_part = "*" if partition is None else f"{partition:04d}"
    return sorted((table_dir(root, table) / LISTING).glob(f"routed-{level:06d}-{range_part}-{share_part}-*.parquet"))


def range_name(level: int, range_: int) -> str:
    """A range of a level's positions by notation, in order, with their moves and their children's hashes."""
    return f"{LISTING}/range-{level:06d}-{range_:04d}.parquet"


def block_name(level: int, range_: int) -> str:
    """A range of a level's rows as the listing's level file holds them (children as keys)."""
    return f"{LISTING}/block-{level:06d}-{range_:04d}.parquet"


def inbox_files(root: str | os.PathLike, table: str, level: int, partition: int, round_: int) -> list[Path]:
    """What reached a partition's share of a level for one round of it, from every source, sorted."""
    return sorted((table_dir(root, table) / LISTING).glob(f"inbox-{level:06d}-{partition:04d}-{round_:04d}-*.parquet"))


def share_files(root: str | os.PathLike, table: str, level: int, partition: int | None = None,
                before: int | None = None) -> list[Path]:
    """The shares of a level (of one partition; of its rounds before ``before``), sorted."""
    which = "*" if partition is None else f"{partition:04d}"
    paths = sorted((table_dir(root, table) / LISTING).glob(f"share-{level:06d}-{which}-*.parquet"))
    return [p for p in paths if before is None or int(p.stem.split("-")[3]) < before]


def write_work(rows: pa.Table, root: str | os.PathLike, table: str, name: str, durable: bool = False) -> None:
    """Write a work file of the listing atomically: fast rather than small, its schema's metadata kept;
    ``durable`` if the manifest will record it as done."""
    sink = pa.BufferOutputStream()
    pq.write_table(rows, sink, compression="lz4", use_dictionary=False, write_statistics=False)
    data = sink.getvalue()
    write_atomic(table_dir(root, table) / name, lambda tmp: Path(tmp).write_bytes(data), durable)


def read_work(paths: list[Path], columns: list[str] | None = None) -> list[pa.Table]:
    """Work files of the listing, each a table; a damaged one is a StoreError naming it."""
    return [read_parquet([path], columns) for path in paths]
