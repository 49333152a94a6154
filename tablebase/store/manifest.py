"""The manifest of a table: what game, from where, which parameters, what is built, file hashes."""

from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from tablebase.errors import StoreError
from tablebase.lazy import np
from tablebase.schema import FORMAT, JSON_TYPES, MANIFEST
from tablebase.store.files import escapes, first_outside, table_dir
from tablebase.store.layout import Layout, Plan
from tablebase.store.location import Conflict, Folder, Location, located

FILE_NAME = "_manifest.json"


@dataclass
class Manifest:
    table: str
    game: str
    kind: str
    params: dict[str, Any]
    version: str
    partition_rows: int
    #: where the game comes from: ref (to import it again), origin, version, digest of its source
    source: dict[str, str] = field(default_factory=dict)
    #: level -> number of positions, number of parts, and the first level of its file (``layout``)
    plan: Plan = field(default_factory=Plan)
    #: file name (``layout.Piece.name``) -> rows, bytes, sha256
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    levels_done: list[int] = field(default_factory=list)
    complete: bool = False
    #: partizan tables: the values table ("buckets", and "files" and "pieces",
    #: each a name -> rows, bytes, sha256), see tablebase.store.values_files
    values: dict[str, Any] = field(default_factory=dict)
    format: int = FORMAT
    #: files leave out the position text, which is spelt from the key when read
    compact: bool = False
    #: games whose positions the engine lists: "sizes" per level, "move_names", "max_moves",
    #: and while the table builds, "files" (name -> rows, bytes, sha256); while a plain game's search
    #: runs, "search" (its steps) and "work" (its work files' records, build/census/rounds.py)
    listing: dict[str, Any] = field(default_factory=dict)
    #: the probe index other programs memory-map (tablebase.probe): file name -> rows, bytes, sha256
    probe: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: what the rows say of the game as a whole, found once the table is whole (an octal table's
    #: period and rare values, tablebase.builders.heap_figures)
    figures: dict[str, Any] = field(default_factory=dict)
    #: the table keeps one position of each orbit under the game's symmetry (``--symmetry``): saved only
    #: then, so that a reader that does not know the field refuses such a table rather than read it as whole
    symmetry: bool = False
    #: the rows hold misère figures beside normal play's (``--misere``, or a game that always keeps them):
    #: saved only then
    misere: bool = False
    #: an octal table built with ``--misere``: its misère quotient's file (``files``) and what it says (the heaps
    #: asked for and covered, order, P-portion's size, where it last grew, why it stopped short): saved only then
    quotient: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        #: the tag of the version of the manifest this one was read as or saved as, which its next save is
        #: conditional on (``save``); None: there was none. Not a field: the file does not hold it.
        self.tag: str | None = None

    def layout(self) -> Layout:
        """Which files hold which levels, by the plan."""
        return Layout(self.plan)

    @property
    def positions(self) -> int:
        return sum(f["rows"] for f in self.files.values())

    @property
    def bytes(self) -> int:
        return sum(f["bytes"] for f in self.files.values())

    def same_build(self, other: "Manifest") -> bool:
        """Whether a build of ``other`` may continue this one: the same game, rules and settings."""
        keys = ("table", "game", "kind", "params", "version", "partition_rows", "format", "compact", "symmetry",
                "misere")
        same_rules = self.source.get("digest") == other.source.get("digest")
        return same_rules and all(getattr(self, k) == getattr(other, k) for k in keys)

    def save(self, place: str | os.PathLike | Location) -> None:
        """Commit the manifest where its table lies, only over the version it was read as (``tag``) or, if it
        was read as none, only where there is none: ``Conflict`` in one line if another build committed
        meanwhile (``commits.Head`` says why). Every file it records must be written already."""
        location = located(place)
        name = f"{table_dir('', self.table)}/{FILE_NAME}"
        data = self.text().encode()
        try:
            self.tag = location.create(name, data) if self.tag is None else location.replace(name, data, self.tag)
        except Conflict:
            raise Conflict(f"{location.where(self.table)} was committed by another build since this one read it; "
                           "this one stops (run it again to go on from that commit)") from None

    def text(self) -> str:
        """The manifest as its file holds it."""
        # Fields as they are: dataclasses.asdict deep-copies every file record first,
        # which would be most of a save's time for a table of thousands of files.
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _BULKY}
        for flag in ("symmetry", "misere", "quotient"):  # a table without them is as it was before them
            if not data[flag]:
                del data[flag]
        # A game may have a million levels (a subtraction game up to a million): its plan and
        # levels done are kept as ranges, each on one line, where a level per line would make each save slow.
        bulky = {"levels_done": _ranges(self.levels_done), "plan": self.plan.spans}
        return json.dumps(data, indent=1, sort_keys=True)[:-2] + "".join(
            f',\n "{name}": {json.dumps(value, separators=(",", ":"))}' for name, value in bulky.items()) + "\n}\n"

    @classmethod
    def load(cls, place: str | os.PathLike | Location, table: str, tagged: bool = False) -> "Manifest":
        """A table's manifest, every field and name checked; StoreError naming the tables there if it has none.
        ``tagged``: with the tag of its version (``tag``), to save it again (a folder's always is)."""
        manifest = cls.load_if_exists(place, table, tagged)
        if manifest is None:
            location = located(place)
            raise StoreError(f"no table {table!r} in {location.url} (tables: "
                             f"{', '.join(list_tables(location)) or 'none'})")
        return manifest

    @classmethod
    def parse(cls, text: str | bytes, root: object, table: str, path: object) -> "Manifest":
        """A manifest from its file's text, every field checked (``load``; the names it records are the
        caller's to check, where they lie). ``root`` and ``path`` say where it is, in messages."""
        try:
            data = json.loads(text.decode() if isinstance(text, bytes) else text)
        except ValueError as e:
            raise StoreError(f"damaged manifest {path}: {e}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            found = data.get("format") if isinstance(data, dict) else None
            raise StoreError(
                f"table {table} in {root} is of format {found} and this tablebase reads format {FORMAT}; "
                "rebuild it with this version, into a new folder"
            )
        try:
            _check_fields(data, table)
            manifest = cls(**data)
            manifest.plan = Plan(manifest.plan)
            manifest.levels_done = list(itertools.chain.from_iterable(
                range(first, last + 1) for first, last in manifest.levels_done))
        except (ValueError, TypeError) as e:
            raise StoreError(f"damaged manifest {path}: {e}") from None
        return manifest

    def records(self) -> dict[str, dict[str, Any]]:
        """Every file the manifest records, by name (rows, bytes, sha256): rows, the listing's (and its work
        files'), the values table's files and pieces, the probe index, the misère quotient."""
        return {**self.files, **self.listing.get("files", {}), **self.listing.get("work", {}),
                **self.values.get("files", {}), **self.values.get("pieces", {}), **self.probe,
                **self.quotient.get("files", {})}

    @classmethod
    def load_if_exists(cls, place: str | os.PathLike | Location, table: str,
                       tagged: bool = False) -> "Manifest | None":
        """``load``, or None if the table has no manifest."""
        location = located(place)
        name = f"{table_dir('', table)}/{FILE_NAME}"
        if isinstance(location, Folder):
            if not (location.root / name).exists():
                return None
            if first_outside(location.root, [table]) is not None:  # a symlink out of the tablebase's folder
                raise refused_outside(location.url, table, table)
        try:
            found = location.read_tagged(name) if tagged or isinstance(location, Folder) else \
                location.read_if_there(name)
        except OSError as e:
            raise StoreError(f"damaged manifest {location.where(name)}: {e}") from None
        if found is None:
            return None
        text = found if isinstance(found, bytes) else found.data
        manifest = cls.parse(text, location.url, table, location.where(name))
        if isinstance(location, Folder):  # nor do its names, symlinks followed
            outside = first_outside(location.root / table, manifest.records())
        else:
            outside = next((n for n in manifest.records() if escapes(n)), None)
        if outside is not None:
            raise refused_outside(location.url, table, outside)
        manifest.tag = None if isinstance(found, bytes) else found.tag
        return manifest


def list_tables(place: str | os.PathLike | Location) -> list[str]:
    """Names of the tables at a place that have a manifest (none where there is no such folder or prefix)."""
    location = located(place)
    if isinstance(location, Folder):
        root = Path(location.root)
        if not root.is_dir():
            return []
        return sorted(p.parent.name for p in root.glob(f"*/{FILE_NAME}"))
    return sorted(name for name in location.folders() if location.exists(f"{name}/{FILE_NAME}"))


_BULKY = ("levels_done", "plan")
# The type of each field as saved (a manifest is read from a folder anyone may have written).
_TYPES: dict[str, tuple[str, type]] = {f.name: (f.type, JSON_TYPES[f.type]) for f in MANIFEST}


def refused_outside(root: object, table: str, path: object) -> StoreError:
    """The error of a table whose manifest names a path outside its folder."""
    return StoreError(f"table {table} in {root} is refused: the path {path!r} leads outside its folder")


def _check_fields(data: dict[str, Any], table: str) -> None:
    """ValueError unless the saved fields have their types, the file records theirs, and the table is its folder's."""
    for name, value in data.items():
        if name in _TYPES and not isinstance(value, _TYPES[name][1]):
            raise ValueError(f"{name!r} is not a JSON {_TYPES[name][0]}")
    if data.get("table") != table:
        raise ValueError(f"it names the table {data.get('table')!r}, in the folder of {table!r}")
    if not data.get("game", "x").isprintable() or not all(
            isinstance(v, str) and v.isprintable() for v in data.get("source", {}).values()):
        raise ValueError("the game's name or source holds characters that cannot be shown")
    records = [data.get("files", {}), data.get("listing", {}).get("files", {}), data.get("listing", {}).get("work", {}),
               data.get("values", {}).get("files", {}), data.get("values", {}).get("pieces", {}),
               data.get("probe", {}), data.get("quotient", {}).get("files", {})]
    for held in records:
        if not isinstance(held, dict):
            raise ValueError("a record of files is not a mapping")
        for name, record in held.items():
            if not _file_record(record):
                raise ValueError(f"the record of {name!r} is not rows, bytes and sha256")


def _file_record(record: object) -> bool:
    """Whether a file's record is rows, bytes and sha256. Spelt out: a table records thousands, and a
    generator per record would cost a good share of reading a large manifest."""
    if type(record) is not dict:
        return False
    rows, size = record.get("rows"), record.get("bytes")
    return type(record.get("sha256")) is str and type(rows) is int and type(size) is int and rows >= 0 and size >= 0


def _ranges(levels: list[int]) -> list[list[int]]:
    """Ascending levels as [first, last] ranges of consecutive ones."""
    if not levels:
        return []
    marks = np.asarray(levels, dtype=np.int64)
    breaks = np.flatnonzero(np.diff(marks) != 1)
    firsts = np.concatenate([marks[:1], marks[breaks + 1]]).tolist()
    lasts = np.concatenate([marks[breaks], marks[-1:]]).tolist()
    return [list(pair) for pair in zip(firsts, lasts)]


