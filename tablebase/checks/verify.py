"""Verify a built table: files against the manifest, and every row against its children.

Nothing made by the build is reused: the game is loaded again from a source
this reader trusts (docs/security.md), listed again if the engine lists it,
and each level solved again from the *stored* rows of the lower levels and
compared, column by column, with what is stored, so that a table built under
other rules cannot pass. The kind's artifacts are derived again and compared
too, and the probe index with the stored rows (``verify_index.py``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from functools import partial
from typing import Callable, Iterable

from tablebase.builders import Builder, builder_of
from tablebase.checks.verify_index import IndexCheck
from tablebase.errors import OverLimit, StoreError
from tablebase.games import KeyedForm
from tablebase.jit import compile_all
from tablebase.kinds import Trust
from tablebase.lazy import np, pa, pc
from tablebase.store import Manifest, Piece, with_levels
from tablebase.store.footers import MEMORY_CAP, footer, footer_problem, read_decoded
from tablebase.store.layout import ROWS
from tablebase.store.location import Location, located
from tablebase.store.placed import Place, file_problems, names_under, source

compile_all()  # building compiles the games' functions (a program that only reads runs them as Python)

MAX_PER_FILE = 5  # mismatches reported per file; the count says how many more


@dataclass
class Problem:
    table: str
    file: str
    position: str | None
    what: str

    def __str__(self) -> str:
        where = f"{self.table} {self.file}" + (f" position {self.position!r}" if self.position else "")
        return f"{where}: {self.what}"


def _check_files(root: Place, m: Manifest) -> tuple[list[Problem], set[str]]:
    """Manifest records against the files where the table lies; returns problems and the names of files
    present."""
    problems, present = [], set()
    rows = {name for name in names_under(root, m.table, ROWS) if name.endswith(".parquet")}
    for name in sorted(rows - set(m.files)):
        problems.append(Problem(m.table, name, None, "file is not in the manifest"))
    for name, record in sorted(m.files.items()):
        found = file_problems(root, m.table, name, record)
        problems += [Problem(m.table, name, None, what) for what in found]
        if found != ["file is missing"]:
            present.add(name)
    layout, done = m.layout(), set(m.levels_done)
    for level in m.plan:
        if level in done and not all(piece.name in m.files for piece in layout.of_level(level)):
            problems.append(Problem(m.table, f"level {level}", None, "level marked done but files are missing"))
    return problems, present


def schema_problems(stored: pa.Schema, expected: pa.Schema) -> list[str]:
    """How a file's columns differ from those the table's kind writes (``expected``: its solver's rows with
    their levels): a column missing, one the kind does not write (nested or not), or one of another sort
    of type (text for a figure, say). A width is the build's choice and may differ: integers are
    integers, text is text whether dictionary-encoded or not."""
    problems = [f"column {name!r} is missing" for name in expected.names if name not in stored.names]
    for field in stored:
        if field.name not in expected.names:
            problems.append(f"column {field.name!r} is not one of the table's kind")
            continue
        want = _sort_of(expected.field(field.name).type)
        if _sort_of(field.type) != want:
            problems.append(f"column {field.name!r} holds {field.type}, the table's kind stores {want}")
    if len(set(stored.names)) != len(stored.names):
        problems.append("a column is named twice")
    return problems


def _sort_of(kind: pa.DataType) -> str:
    """The sort of values a column type holds, whatever its width or encoding."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    for sort, test in (("integers", pa.types.is_integer), ("numbers", pa.types.is_floating),
                       ("text", lambda t: pa.types.is_string(t) or pa.types.is_large_string(t)),
                       ("true or false", pa.types.is_boolean)):
        if test(kind):
            return sort
    return str(kind)


def _plain(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """Dictionary-encoded text as plain text, so stored and derived columns compare."""
    if pa.types.is_dictionary(column.type):
        return column.cast(column.type.value_type)
    return column


def _compare(
    table: str, name: str, stored: pa.Table, derived: pa.Table, spell: Callable[[int], str] | None = None
) -> list[Problem]:
    if not stored.column("key").equals(derived.column("key")):
        return [Problem(table, name, None,
                        f"holds {stored.num_rows} keys, the level's partition has {derived.num_rows} other ones")]
    problems, count = [], 0
    for column in derived.column_names:
        if column not in stored.column_names:
            problems.append(Problem(table, name, None, f"column {column!r} is missing"))
            continue
        a, b = _plain(stored.column(column)), _plain(derived.column(column))
        if a.type == b.type and a.equals(b):
            continue  # the common case, decided without a look at single rows
        a, b = a.cast(pa.string()), b.cast(pa.string())
        differ = pc.or_(pc.fill_null(pc.not_equal(a, b), True), pc.xor(pc.is_null(a), pc.is_null(b)))
        differ = pc.and_(differ, pc.invert(pc.and_(pc.is_null(a), pc.is_null(b))))
        rows = pc.indices_nonzero(differ.combine_chunks()).to_pylist()
        count += len(rows)
        for i in rows[: max(0, MAX_PER_FILE - (count - len(rows)))]:
            key = derived.column("key")[i].as_py()
            position = spell(key) if spell else derived.column("position")[i].as_py()
            problems.append(Problem(table, name, position, f"{column} stored {a[i].as_py()}, derived {b[i].as_py()}"))
    if count > MAX_PER_FILE:
        problems.append(Problem(table, name, None, f"{count - MAX_PER_FILE} more mismatches"))
    return problems


def verify_table(root: str | os.PathLike | Location, table: str, say: Callable[[str], None] = lambda s: None,
                 games: Iterable[str] = ()) -> tuple[int, list[Problem]]:
    """Check one table; return the number of rows checked and the problems found.

    Each file's columns must be the kind's, of the kind's sorts of types (``schema_problems``). A damaged
    or missing file is reported, and its level's recomputed rows stand in for it so that the levels above
    can still be checked.

    The rules come from a game this reader trusts (``kinds.Trust``: built-in,
    an installed plugin, or one of ``games``, named by the user), never from
    where the table's manifest says.
    """
    root = located(root)
    m = Manifest.load(root, table)
    game, changed = Trust(games).load(m)
    if changed:
        say("the game's source has changed since the table was built; "
            "checking the rows against the rules as they are now")
    builder = builder_of(game, m.symmetry)  # a table of one position an orbit is listed again so
    problems, present = _check_files(root, m)
    if builder.needs_listing:
        builder = _listed_again(builder, m, problems, say)
    keyed = builder.keyed
    index = IndexCheck(root, m, say, builder.kind.derive())
    solver = builder.solver(fresh=True)
    checks = [artifact.checker(solver) for artifact in builder.artifacts]
    spell = partial(_spelt, keyed)
    checked = 0
    began = time.perf_counter()
    levels = sorted(m.plan)
    done = 0
    parts: dict[int, tuple[list[pa.Table], list[pa.Table]]] = {}  # a level's parts so far: stored, derived
    levels_done = set(m.levels_done)
    for piece in m.layout().pieces:
        stored = _read(root, table, piece.name, m.files.get(piece.name), present, problems,
                       _rows_by_rules(keyed, m, piece))
        count = piece.parts
        for level, size in m.plan.sizes(piece.first, piece.last):
            if level not in levels_done or level > keyed.max_level or keyed.level_size(level) != size:
                say(f"level {level} is not built, or not what the rules give; stopping there")
                return _finish(checks, index, checked, problems, root, m, table, say, whole=False)
            keys = keyed.level_keys(level, piece.part * size // count, (piece.part + 1) * size // count)
            derived = with_levels(solver.solve(keys, compact=m.compact), np.full(len(keys), level))
            if stored is not None and level == piece.first:  # the file's schema, once: the kind's columns
                wrong = schema_problems(stored.schema, derived.schema)
                problems += [Problem(table, piece.name, None, what) for what in wrong]
                stored = None if wrong else stored  # its level's derived rows stand in for it
                if stored is not None:
                    index.add(stored)
            mine = _of_level(stored, level) if stored is not None else None
            if mine is not None:
                problems += _compare(table, piece.name, mine.select(derived.column_names), derived,
                                     spell if m.compact else None)
                checked += mine.num_rows
            held, fresh = parts.setdefault(level, ([], []))
            held.append(mine if mine is not None and mine.schema == derived.schema else derived)
            fresh.append(derived)
            if len(held) == count:  # the level is whole: what the levels above are checked against
                del parts[level]
                rows = pa.concat_tables(held)
                solver.remember(level, rows)
                for check in checks:
                    check.add(pa.concat_tables(fresh), rows, level)
                done += 1
                if done % 64 == 1 or done == len(levels):  # a table may have a million levels
                    say(f"level {level} ({done}/{len(levels)}): {checked:,} rows checked, "
                        f"{len(problems)} problems, {time.perf_counter() - began:.1f}s")
    return _finish(checks, index, checked, problems, root, m, table, say, whole=True)


def _listed_again(builder: Builder, m: Manifest, problems: list[Problem], say: Callable[[str], None]) -> Builder:
    """The builder over its positions listed again from the rules, and a problem if they are not the table's."""
    say("listing positions again from the start positions")
    listing = builder.list_positions(say)
    planned = [m.plan.get(level, {}).get("positions", 0) for level in range(len(listing.sizes))]
    if listing.sizes.tolist() != planned or max(m.plan, default=-1) >= len(listing.sizes):
        held = sum(p["positions"] for p in m.plan.values())
        problems.append(Problem(m.table, "levels", None, "the rules reach other positions than the table holds "
                                f"({int(listing.sizes.sum()):,} against {held:,})"))
    return builder.over_listing(listing)


def _spelt(keyed: KeyedForm, key: int) -> str:
    return keyed.format_positions(np.array([key], dtype=np.int64)).to_strings()[0]


def _rows_by_rules(keyed: KeyedForm, m: Manifest, piece: Piece) -> int | None:
    """The rows a file must hold: its levels' shares by the plan, where the rules give the plan's sizes;
    None where they do not (the level is not verified, and the file not read)."""
    count = 0
    for level, size in m.plan.sizes(piece.first, piece.last):
        if level > keyed.max_level or keyed.level_size(level) != size:
            return None
        count += (piece.part + 1) * size // piece.parts - piece.part * size // piece.parts
    return count


def _read(root: Place, table: str, name: str, record: dict | None, present: set[str], problems: list[Problem],
          rows: int | None) -> pa.Table | None:
    """A stored file of rows, or None if it is missing or damaged (the problem noted), or if its footer says
    it holds other than the ``rows`` the rules give its levels (None: the file is not read) or more than it
    may: a small file can expand (``store.footers``)."""
    if name not in present or rows is None:
        return None
    try:
        metadata = footer(source(root, table, name, record), name)
        problem = footer_problem(metadata, {"rows": rows})
        if problem is not None:
            problems.append(Problem(table, name, None, problem.replace("its manifest records", "its levels hold")))
            return None
        return read_decoded(source(root, table, name, record), MEMORY_CAP, f"{table} {name}")
    except (StoreError, OverLimit) as e:
        problems.append(Problem(table, name, None, str(e)))
        return None


def _of_level(rows: pa.Table, level: int) -> pa.Table:
    """A level's rows of a file (rows are sorted by level)."""
    marks = rows.column("level").to_numpy()
    a, b = np.searchsorted(marks, [level, level + 1])
    return rows.slice(a, b - a)


def _finish(checks: list, index: IndexCheck, checked: int, problems: list[Problem], root: Place, m: Manifest,
            table: str, say: Callable[[str], None], whole: bool) -> tuple[int, list[Problem]]:
    """The files beside the rows, checked once every level is (a partizan table's values table, the
    probe index)."""
    problems += [Problem(table, name, None, what) for name, what in index.problems()]
    if checks and whole and len(m.levels_done) == len(m.plan):
        for check in checks:
            found = check.problems(root, m)
            problems += [Problem(table, name, None, what) for name, what in found]
            say(f"{len(found)} problems in the files beside the rows")
    return checked, problems
