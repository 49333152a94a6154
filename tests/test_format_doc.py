"""docs/format.md says what ``tablebase.schema`` spells: every column of every sort of file with the same
Arrow type and the same tables holding it, every manifest field with its JSON type, no column or field the code
does not know, the manifest's format and the probe index's version, and the names of a table's files.

The page is read as a reader reads it: its tables of columns (``| column | Arrow type | held in | meaning |``),
each under a heading that names its sort of file in a code span, and its table of manifest fields.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from tablebase import schema as code
from tablebase.probe import format as probe_format
from tablebase.store import layout, listing_files, lock, manifest, quotient_file, values_files

DOC = Path(__file__).resolve().parent.parent / "docs" / "format.md"
COLUMNS_HEADER = ["column", "Arrow type", "held in", "meaning"]
FIELDS_HEADER = ["field", "JSON type", "meaning"]


def _cells(line: str) -> list[str]:
    """A table row's cells, ``\\|`` inside a cell kept as text."""
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def _spans(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _tables(text: str) -> list[tuple[str, list[str], list[list[str]]]]:
    """Every table of the page: (the heading it is under, its header, its rows)."""
    found, heading, lines = [], "", text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            heading = line
        elif line.startswith("|") and i + 1 < len(lines) and re.match(r"^\|(\s*-+\s*\|)+$", lines[i + 1]):
            header, rows, i = _cells(line), [], i + 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            found.append((heading, header, rows))
            continue
        i += 1
    return found


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text()


def _documented_columns(doc: str) -> dict[str, list[list[str]]]:
    """The rows of each table of columns, by the sort of file its heading names."""
    out: dict[str, list[list[str]]] = {}
    for heading, header, rows in _tables(doc):
        if header != COLUMNS_HEADER:
            continue
        named = _spans(heading)
        assert named, f"a table of columns under {heading!r}, whose heading names no sort of file"
        assert named[-1] not in out, f"two tables of the columns of {named[-1]!r}"
        out[named[-1]] = rows
    return out


def test_every_sort_of_file_has_its_columns_documented_and_no_other(doc):
    assert sorted(_documented_columns(doc)) == sorted(code.GROUPS)


@pytest.mark.parametrize("group", sorted(code.GROUPS))
def test_every_column_is_documented_in_order_with_its_type_and_tables(doc, group):
    rows = _documented_columns(doc).get(group, [])
    documented = [_spans(name)[0] if _spans(name) else name for name, *_ in rows]
    assert documented == [c.name for c in code.GROUPS[group].columns], "the columns, in the files' order"
    for (_, types, held, meaning), column in zip(rows, code.GROUPS[group].columns):
        assert tuple(_spans(types)) == column.types, column.name
        assert held == code.HELD[column.held], column.name
        for value in column.values:
            assert f"`{value}`" in meaning, f"{column.name}: the value {value!r} is not documented"


def test_every_condition_a_column_is_held_under_has_words_and_is_used():
    used = {c.held for g in code.GROUPS.values() for c in g.columns}
    assert used == set(code.HELD)


def test_every_manifest_field_is_documented_with_its_json_type_and_no_other(doc):
    tables = [rows for _, header, rows in _tables(doc) if header == FIELDS_HEADER]
    assert len(tables) == 1, "one table of the manifest's fields"
    documented = [(_spans(name)[0], kind) for name, kind, _ in tables[0]]
    assert documented == [(f.name, f.type) for f in code.MANIFEST]


def test_the_manifest_object_has_exactly_the_schemas_fields():
    assert [f.name for f in dataclasses.fields(manifest.Manifest)] == [f.name for f in code.MANIFEST]
    assert {f.type for f in code.MANIFEST} <= set(code.JSON_TYPES)


def test_the_documented_format_is_the_codes(doc):
    said = {int(n) for n in re.findall(r'"format": (\d+)', doc)}
    assert said == {code.FORMAT} == {manifest.FORMAT}


def test_the_documented_probe_index_version_is_the_readers(doc):
    said = {int(n) for n in re.findall(r"This is format version (\d+)", doc)}
    assert said == {probe_format.VERSION}


def test_the_folders_files_are_named_as_the_code_names_them(doc):
    folder = next(rows for heading, header, rows in _tables(doc) if header == ["path", "what", "when"])
    paths = " ".join(path for path, *_ in folder)
    values = values_files.FOLDER
    for name in (manifest.FILE_NAME, f"{layout.ROWS}/", f"{values}/part-", f"{values}/pieces/", probe_format.FILE_NAME,
                 f"{layout.SEGMENTS}/keys-", f"{listing_files.LISTING}/", lock.LOCK_NAME, ".tmp-",
                 quotient_file.QUOTIENT):
        assert name in paths, f"{name!r} is not in the folder's table"
