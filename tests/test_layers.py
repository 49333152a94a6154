"""The house's rule for its lowest room (docs/architecture.md): games/ imports nothing above it.

Read from the source text with ``ast`` rather than by importing, so that an import made only inside a
function, or only under TYPE_CHECKING, counts as well.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GAMES = Path(__file__).resolve().parent.parent / "tablebase" / "games"
# What games/ may import of the project: itself and the modules the map draws below it.
BELOW = ("tablebase.games", "tablebase.errors", "tablebase.words", "tablebase.version", "tablebase.results",
         "tablebase.jit", "tablebase.lazy", "tablebase.threads")


def project_imports(path: Path) -> list[str]:
    """Every module of the project a file imports, absolute (``from . import x`` resolved)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(["tablebase", "games"][: 3 - node.level] + ([base] if base else []))
            found.append(base)
    return [name for name in found if name == "tablebase" or name.startswith("tablebase.")]


@pytest.mark.parametrize("path", sorted(GAMES.glob("*.py")), ids=lambda p: p.name)
def test_games_import_nothing_above_them(path):
    above = [name for name in project_imports(path) if not name.startswith(BELOW)]
    assert above == [], f"{path.name} imports {above}: games/ is below them"
