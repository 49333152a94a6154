"""docs/architecture.md holds: every import of the package is one its table of rules allows, no module imports
one that imports it back, and a file name repeats only where the page says why.

The imports are read from the source with ``ast`` (at module level, inside functions and under
``TYPE_CHECKING`` alike), not from what Python happens to have loaded, so an import on a rare path counts.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tablebase"
PAGE = (ROOT / "docs" / "architecture.md").read_text()
FOUNDATION = {"errors", "spelling", "version", "jit", "lazy", "threads", "scoped", "schema"}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


MODULES = _modules()


def room_of(module: str) -> str:
    parts = module.split(".")
    if parts == ["tablebase"]:
        return "face"
    top = parts[1]
    return "foundation" if top in FOUNDATION else top


def imports_of(path: Path) -> set[str]:
    """The tablebase modules a file names in its imports (``from tablebase import jit`` names the module)."""
    named = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            named |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            submodules = {f"{node.module}.{a.name}" for a in node.names} & MODULES.keys()
            named |= submodules
            if len(submodules) < len(node.names):  # names defined in the module itself
                named.add(node.module)
    return {n for n in named if n in MODULES}


def rules() -> dict[str, set[str]]:
    section = PAGE.split("## Which room may import which", 1)[1].split("\n## ", 1)[0]
    rooms = set()
    table = {}
    for line in section.splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[0] in ("room", "---"):
            continue
        table[cells[0]] = cells[1]
        rooms.add(cells[0])
    allowed = {}
    for room, text in table.items():
        if text == "nothing of tablebase":
            allowed[room] = set()
        elif text.startswith("every room but"):
            allowed[room] = rooms - {text.split("but", 1)[1].strip().strip("`")}
        else:
            allowed[room] = {r.strip() for r in text.split(",")}
    return allowed


RULES = rules()


def test_every_room_of_the_package_has_a_rule():
    rooms = {room_of(m) for m in MODULES}
    assert rooms - set(RULES) == set(), "rooms the page does not name"
    assert {r for rule in RULES.values() for r in rule} - set(RULES) == set(), "rules naming no room"


def test_every_import_is_one_the_page_allows():
    broken = []
    for module, path in sorted(MODULES.items()):
        here = room_of(module)
        for named in sorted(imports_of(path)):
            there = room_of(named)
            if there != here and there not in RULES[here]:
                broken.append(f"{path.relative_to(ROOT)} ({here}) imports {named} ({there})")
    assert broken == []


def test_no_module_imports_one_that_imports_it_back():
    graph = {m: {n for n in imports_of(p) if n != m and not m.startswith(n + ".")} for m, p in MODULES.items()}
    # A module that reaches itself through the others is in a circle.
    circles = []
    for start in sorted(graph):
        seen, todo = set(), list(graph[start])
        while todo:
            m = todo.pop()
            if m == start:
                circles.append(start)
                break
            if m not in seen:
                seen.add(m)
                todo.extend(graph.get(m, ()))
    assert circles == []


def test_a_file_name_repeats_only_where_the_page_says_why():
    names = Counter(p.name for p in PACKAGE.rglob("*.py") if p.name != "__init__.py")
    paragraph = PAGE.split("Where two modules share a file name", 1)[1].split("\n\n", 1)[0]
    said = set(re.findall(r"([\w]+\.py)", paragraph))
    assert {n for n, c in names.items() if c > 1} - said == set()


# The rooms a program that only reads tables imports, and what they never import: the building half, and the
# store's modules only a build uses (its lock, a listing's work files).
READING = ("kinds", "listed", "query")
BUILDING = ("build", "builders", "checks", "listing", "probe_writer", "solve")
BUILD_ONLY = ("tablebase.store.lock", "tablebase.store.work")


@pytest.mark.parametrize("room", READING)
def test_the_rooms_a_reader_uses_import_nothing_of_the_building_half(room):
    found = [f"{path.relative_to(ROOT)} imports {named}" for module, path in sorted(MODULES.items())
             if room_of(module) == room for named in sorted(imports_of(path))
             if room_of(named) in BUILDING or named in BUILD_ONLY]
    assert found == []


@pytest.mark.parametrize("module", ["tablebase.probe.reader", "tablebase.probe.format"])
def test_the_probe_reader_needs_only_the_foundation(module):
    """What other programs copy to read an index stands alone: the standard library and errors.py."""
    for named in imports_of(MODULES[module]):
        assert room_of(named) in ("probe", "foundation"), named


def test_the_rules_catch_an_import_they_forbid(tmp_path):
    """The checks above can fail: games/ importing store/ is against the page."""
    assert "store" not in RULES["games"]
    assert "kinds" not in RULES["store"]
    assert "cli" not in RULES["build"]
