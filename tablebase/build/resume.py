"""Where a build begins: the manifest an earlier run of the same build left, or a fresh one.

A build is resumed only under the same game, options, source, version and
partition size; files are kept only where they are as the manifest records
them: present, of their size and of their sha256.
"""

from __future__ import annotations

from tablebase.build.jobs import TableSpec
from tablebase.errors import StoreError
from tablebase.store import Manifest, Piece, file_there, remove_listing
from tablebase.store.location import Location
from tablebase.version import VERSION


def fresh_manifest(spec: TableSpec, partition_rows: int) -> Manifest:
    """A fresh manifest of the table: what it is, before anything is planned."""
    game = spec.game
    return Manifest(table=spec.name, game=game.name, kind=game.kind, params=game.params,
                    version=VERSION, partition_rows=partition_rows,
                    source=spec.source.as_record(), compact=spec.compact, symmetry=spec.symmetry,
                    misere=game.misere)


def resumable(root: Location, spec: TableSpec, partition_rows: int | None) -> Manifest | None:
    """The manifest an earlier run of the same build left, or None to start afresh; StoreError, naming
    what differs, if the table was begun as another build. Reads the manifest only: a cheap early check."""
    return _same_build(root, Manifest.load_if_exists(root, spec.name, tagged=True), spec, partition_rows)


def _same_build(root: Location, old: Manifest | None, spec: TableSpec, partition_rows: int | None) -> Manifest | None:
    """``old``, if a build of ``spec`` goes on from it (``resumable``)."""
    if old is None:
        return None
    # 0: the earlier run stopped before its partitions were planned.
    fresh = fresh_manifest(spec, partition_rows or old.partition_rows)
    if not (old.files or old.listing.get("files") or old.listing.get("search") or old.values):
        return None
    if old.partition_rows == 0:
        old.partition_rows = fresh.partition_rows
    if not old.same_build(fresh):
        changed = " (the game's source has changed)" if old.source.get("digest") != fresh.source.get("digest") else ""
        if old.symmetry != fresh.symmetry:
            changed += " with --symmetry" if old.symmetry else " without --symmetry"
        raise StoreError(
            f"table {spec.name} in {root.url} was built as {old.game} {old.params}{changed} "
            f"(version {old.version}, partitions of {old.partition_rows}); "
            "build into another --out or under another --table name"
        )
    return old


def resumed(root: Location, spec: TableSpec, partition_rows: int | None) -> Manifest:
    """The manifest to build into: the one an earlier run of the same build left, or a fresh one (saved over
    the version there is, if any)."""
    there = Manifest.load_if_exists(root, spec.name, tagged=True)
    old = _same_build(root, there, spec, partition_rows)
    if old is None:
        remove_listing(root, spec.name)  # nothing was kept: whatever game it was, start again
        fresh = fresh_manifest(spec, partition_rows or 0)
        fresh.tag = None if there is None else there.tag  # saved over the version there is
        return fresh
    # Only files as recorded are kept: in a folder each is read once for its sha256 (a flipped byte keeps its
    # size); on an object store its stored name carries its hash (``placed.file_there``).
    old.files = {name: rec for name, rec in old.files.items() if file_there(root, spec.name, name, rec)}
    # A part's segment of the probe index is kept with its rows; the directory is written again at the end.
    old.probe = {name: rec for name, rec in old.probe.items() if Piece.is_segment_name(name)
                 and _piece_of_segment(name) in old.files and file_there(root, spec.name, name, rec)}
    return old


def _piece_of_segment(name: str) -> str:
    """The rows' file of a part's segment file."""
    stem = name.split("/", 1)[1].rsplit(".", 1)[0]
    return f"rows/{stem}.parquet"


def built_already(root: Location, spec: TableSpec, partition_rows: int | None) -> Manifest | None:
    """The manifest of the same build if that build ended whole and every file it records (rows, the kind's
    artifacts, the probe index, an octal table's misère quotient) is there as recorded: a build of it again has
    nothing to do. Else None.

    Said before anything is listed or planned: a plain game's listing (a minute and more) was made again
    only to find every partition built."""
    old = resumable(root, spec, partition_rows)
    if old is None or not old.complete or not old.probe:
        return None
    recorded = [old.files, old.probe, old.quotient.get("files", {}),
                *(artifact.files(old) for artifact in spec.builder.kind_class.artifacts)]
    if not all(file_there(root, spec.name, name, record) for files in recorded for name, record in files.items()):
        return None
    return old
