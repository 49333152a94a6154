"""The public face is what the README's "The public names" says, and nothing public hands out an internal type.

The README's list is read as text and held against the package, so that a name added to one and not the
other fails here.
"""

from __future__ import annotations

import inspect
import re
import typing
from pathlib import Path

import tablebase
from tablebase.query.database import Tablebase

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()
SECTION = README.split("### The public names", 1)[1].split("\n## ", 1)[0]
FACE = SECTION.split("- `tablebase.games`", 1)[0]
TABLEBASE = FACE.replace("\n", " ").split("`Tablebase` (", 1)[1].split("), the results", 1)[0]


def _named(text: str) -> set[str]:
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)(?:\(\))?`", text))


def test_the_package_face_is_the_readme_list():
    listed = _named(FACE.replace("\n", " ").replace(TABLEBASE, "")) - {"tablebase", "with"}
    assert set(tablebase.__all__) == listed


def test_the_public_methods_of_tablebase_are_the_readme_list():
    public = {name for name, _ in inspect.getmembers(Tablebase) if not name.startswith("_")}
    assert public | {"root"} == _named(TABLEBASE) - {"with"}


def test_nothing_public_returns_an_internal_type():
    """A public method returns builtins, an Arrow table or a result type of ``tablebase.results``."""
    allowed = {"None", "bool", "int", "str", "float", "list", "dict", "Any", "pa.Table", "Tablebase",
               *tablebase.results.__dict__}
    for name, method in inspect.getmembers(Tablebase, inspect.isfunction):
        if name.startswith("_"):
            continue
        returned = inspect.signature(method).return_annotation
        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", str(returned)))
        assert words <= allowed, f"Tablebase.{name} returns {returned}"
    unreadable = typing.get_type_hints(Tablebase.unreadable.fget)["return"]
    assert unreadable == dict[str, str]


def test_the_checks_can_fail():
    """An internal method made public again is caught."""
    Tablebase.stored = Tablebase._stored_table
    try:
        public = {name for name, _ in inspect.getmembers(Tablebase) if not name.startswith("_")}
        assert public | {"root"} != _named(TABLEBASE) - {"with"}
    finally:
        del Tablebase.stored
