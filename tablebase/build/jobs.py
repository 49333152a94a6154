"""Job specs: several tables built by one command, from a TOML file.

    partition_rows = 100000        # optional
    [[table]]
    game = "chomp"
    rows = 8
    cols = 8
    name = "chomp_small"           # optional table name
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from tablebase.build.driver import TableSpec
from tablebase.errors import TablebaseError
from tablebase.games import make_game


def spec_for(game_name: str, params: dict, name: str | None = None) -> TableSpec:
    game = make_game(game_name, params)
    return TableSpec(game, name or game.table)


def read_job(path: str | Path) -> tuple[list[TableSpec], dict]:
    """The tables of a job file and its top-level settings (partition_rows)."""
    try:
        data = tomllib.loads(Path(path).read_text())
    except FileNotFoundError:
        raise TablebaseError(f"no job file {path}") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise TablebaseError(f"cannot read job file {path}: {e}") from None
    settings = {k: v for k, v in data.items() if k != "table"}
    unknown = set(settings) - {"partition_rows"}
    if unknown:
        raise TablebaseError(f"{path}: unknown setting {sorted(unknown)[0]!r} (settings: partition_rows, [[table]])")
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
        try:
            specs.append(spec_for(str(game), entry, name))
        except TablebaseError as e:
            raise TablebaseError(f"{path}: table {i}: {e}") from None
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise TablebaseError(f"{path}: two tables are named alike; give one a 'name'")
    return specs, settings
