"""Job specs: several tables built by one command, from a TOML file.

    partition_rows = 100000        # optional
    compact = true                 # optional, for every table: no position text in the files
    [[table]]
    game = "chomp"
    rows = 8
    cols = 8
    name = "chomp_small"           # optional table name
    compact = false                # optional, for this table
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from tablebase.build.driver import TableSpec
from tablebase.errors import TablebaseError
from tablebase.games import make_game


def spec_for(game_name: str, params: dict, name: str | None = None, compact: bool = False) -> TableSpec:
    game = make_game(game_name, params)
    if compact and game.kind == "partizan":
        raise TablebaseError(f"{game_name}: --compact is for impartial and loopy tables (partizan rows are read by position)")
    return TableSpec(game, name or game.table, position_text=not compact)


def read_job(path: str | Path) -> tuple[list[TableSpec], dict]:
    """The tables of a job file and its top-level settings (partition_rows, compact)."""
    try:
        data = tomllib.loads(Path(path).read_text())
    except FileNotFoundError:
        raise TablebaseError(f"no job file {path}") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise TablebaseError(f"cannot read job file {path}: {e}") from None
    settings = {k: v for k, v in data.items() if k != "table"}
    unknown = set(settings) - {"partition_rows", "compact"}
    if unknown:
        raise TablebaseError(
            f"{path}: unknown setting {sorted(unknown)[0]!r} (settings: partition_rows, compact, [[table]])"
        )
    tables = data.get("table")
    if not isinstance(tables, list) or not tables:
        raise TablebaseError(f"{path}: no [[table]] entries")
    specs = []
    for i, entry in enumerate(tables, 1):
        entry = dict(entry)
        if "game" not in entry:
            raise TablebaseError(f"{path}: table {i} has no 'game'")
        game = entry.pop("game")
        name = entry.pop("name", None)
        compact = entry.pop("compact", settings.get("compact", False))
        if not isinstance(compact, bool):
            raise TablebaseError(f"{path}: table {i}: 'compact' must be true or false")
        try:
            specs.append(spec_for(str(game), entry, name, compact))
        except TablebaseError as e:
            raise TablebaseError(f"{path}: table {i}: {e}") from None
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise TablebaseError(f"{path}: two tables are named alike; give one a 'name'")
    return specs, settings
