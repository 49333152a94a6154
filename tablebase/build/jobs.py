"""What to build: a table spec, and job files that list several (``read_job`` gives their form)."""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablebase.build.plan import level_sizes
from tablebase.builders import Builder, builder_of
from tablebase.errors import TablebaseError, UsageError
from tablebase.games import Game, GameSource, find_game, load_game
from tablebase.games.base import MISERE, table_name


@dataclass(frozen=True)
class TableSpec:
    """One table to build: a game with its parameters, where the game comes from, and the table's name."""

    game: Game
    source: GameSource
    name: str
    #: leave the position text out of the files; views and lookups spell it from the key
    compact: bool = False
    #: keep one position of each orbit under the game's symmetry (its ``canonical``)
    symmetry: bool = False

    def __post_init__(self) -> None:
        if self.compact:
            why = self.builder.compact_refusal()
            if why:
                raise UsageError(f"{self.game.name}: --compact is refused for this game: {why}")
        if self.symmetry:
            why = self.builder.symmetry_refusal()
            if why:
                raise UsageError(f"{self.game.name}: --symmetry is refused for this game: {why}")

    @property
    def builder(self) -> Builder:
        """What building the table asks of its kind, bound to its game as written."""
        return builder_of(self.game, self.symmetry)

    def with_compact(self, compact: bool) -> "TableSpec":
        return dataclasses.replace(self, compact=compact)

    def with_symmetry(self, named: bool) -> "TableSpec":
        """The spec of the table reduced by the game's symmetry; ``named``: its name was given, and is kept."""
        return dataclasses.replace(self, symmetry=True, name=self.name if named else reduced_name(self.game.table))

    def with_misere(self) -> "TableSpec":
        """The spec of the same table with misère figures kept (``--misere``): its name does not change (a
        game that cannot keep them refuses the option in one line)."""
        return dataclasses.replace(self, game=type(self.game)(**{**self.game.params, MISERE: True}))


SYMMETRY_SUFFIX = "_symmetry"


def reduced_name(name: str) -> str:
    """The default name of a table that keeps one position of each orbit: never the full table's."""
    return name + SYMMETRY_SUFFIX


SMALL_JOB = 2**21  # positions: less work than starting worker processes costs


def is_small(specs: list[TableSpec], say: Callable[[str, str], None] | None = None) -> bool:
    """Whether a job is small enough for workers in threads: positions known before listing, and few.

    Games the engine lists, plain Python ones among them, spend their time in
    Python and need processes to run side by side. ``say(table, text)`` hears
    of a count that takes long.
    """
    total = 0
    for spec in specs:
        if spec.builder.needs_listing:
            return False
        tell = None if say is None else (lambda text, name=spec.name: say(name, text))
        total += sum(level_sizes(spec.game, tell, enough=SMALL_JOB - total))
        if total > SMALL_JOB:
            return False
    return True


def spec_for(ref: str, params: dict[str, Any], name: str | None = None, compact: bool = False,
             symmetry: bool = False) -> TableSpec:
    """The spec of a table of the game ``ref`` with these options."""
    game, source = load_game(ref, params)
    return TableSpec(game, source, name or (reduced_name(game.table) if symmetry else game.table), compact, symmetry)


def read_job(path: str | Path) -> tuple[list[TableSpec], dict]:
    """The tables of a job file and its top-level settings (partition_rows, compact, symmetry, storage).

    A job file:

        partition_rows = 100000        # optional
        compact = true                 # optional, for every table: no position text in the files
        symmetry = true                # optional, for every table: one position of each orbit (the game's canonical)
        misere = true                  # optional, for every table: misère figures too (impartial games)
        [storage]                      # optional: the object store's options, for --out s3://BUCKET/PREFIX
        endpoint_url = "http://127.0.0.1:9000"   # (store.places.OPTIONS; each --storage-option overrides one)
        [[table]]
        game = "chomp"                 # a built-in or plugin name, "module:Class" or "path/to/file.py:Class"
        rows = 8
        cols = 8
        name = "chomp_small"           # optional table name
        compact = false                # optional, for this table
        symmetry = false               # optional, for this table
        misere = false                 # optional, for this table

        [[table]]
        game = "octal"
        codes = "0.[0-7][0-7][0-7]"    # a table per code (a game's ``variants``); "all-3-digit" too
        max = 1048576
        summary = "octal_3_digit"      # optional: one summary table of these tables' figures

    A game file named in a job file is found relative to the job file's folder. A table built with
    ``symmetry`` keeps one position of each orbit under the game's symmetry, and its default name ends in
    ``_symmetry`` (its manifest says ``symmetry: true``). An entry that stands for several tables names none
    of them (``name`` is refused); ``summary`` names a table of one row per table built from the entry
    (``summary.py``).
    """
    try:
        data = tomllib.loads(Path(path).read_text())
    except FileNotFoundError:
        raise UsageError(f"no job file {path}") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise UsageError(f"cannot read job file {path}: {e}") from None
    settings = {k: v for k, v in data.items() if k != "table"}
    unknown = set(settings) - {"partition_rows", "compact", "symmetry", MISERE, "storage"}
    if unknown:
        raise UsageError(
            f"{path}: unknown setting {sorted(unknown)[0]!r} (settings: partition_rows, compact, symmetry, "
            "misere, [storage], [[table]])"
        )
    if not isinstance(settings.get("storage", {}), dict):
        raise UsageError(f"{path}: 'storage' is a table of the object store's options, [storage]")
    tables = data.get("table")
    if not isinstance(tables, list) or not tables:
        raise UsageError(f"{path}: no [[table]] entries")
    specs: list[TableSpec] = []
    summaries: dict[str, list[str]] = {}
    for i, entry in enumerate(tables, 1):
        entry = dict(entry)
        if "game" not in entry:
            raise UsageError(f"{path}: table {i} has no 'game'")
        ref = _relative_to(str(entry.pop("game")), Path(path).parent)
        name = entry.pop("name", None)
        summary = entry.pop("summary", None)
        compact = entry.pop("compact", settings.get("compact", False))
        symmetry = entry.pop("symmetry", settings.get("symmetry", False))
        if MISERE in settings:
            entry.setdefault(MISERE, settings[MISERE])  # a game's option: it travels with the others
        for key, value in (("compact", compact), ("symmetry", symmetry), (MISERE, entry.get(MISERE, False))):
            if not isinstance(value, bool):
                raise UsageError(f"{path}: table {i}: '{key}' must be true or false")
        try:
            made = [spec_for(ref, params, name, compact, symmetry) for params in _variants(ref, entry, name)]
        except TablebaseError as e:
            raise UsageError(f"{path}: table {i}: {e}") from None
        if summary is not None:
            if not isinstance(summary, str) or table_name([summary]) != summary or summary in summaries:
                raise UsageError(f"{path}: table {i}: 'summary' names a new table in lower case letters, "
                                     f"digits and underscores, not {summary!r}")
            summaries[summary] = [s.name for s in made]
        specs += made
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise UsageError(f"{path}: two tables are named alike; give one a 'name'")
    clash = next((s for s in summaries if s in names), None)
    if clash is not None:
        raise UsageError(f"{path}: the summary {clash!r} is named as a table")
    if summaries:
        settings["summaries"] = summaries
    return specs, settings


def _variants(ref: str, entry: dict[str, Any], name: str | None) -> list[dict[str, Any]]:
    """The options of each table a job entry stands for (a game's ``variants``: one but for a set)."""
    cls, _ = find_game(ref)
    found = cls.variants(entry)
    if len(found) > 1 and name is not None:
        raise UsageError(f"'name' names one table and this entry stands for {len(found):,}")
    return found


def _relative_to(ref: str, folder: Path) -> str:
    """A game file's reference, taken relative to the job file's folder."""
    where, colon, name = ref.rpartition(":")
    if colon and where.endswith(".py") and not Path(where).is_absolute():
        return f"{folder / where}:{name}"
    return ref
