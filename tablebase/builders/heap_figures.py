"""What an octal table's values say of the game as a whole, kept in its manifest: period and rare values.

Once every block of heaps is built, a task reads the table's Grundy values
back, in order of heaps, and finds the period they prove (Guy-Smith, as
``solve/octal_period.py`` checks it), the largest value and the rare values
(``solve/octal_table.heap_figures``). The manifest keeps them as ``figures``:
``tablebase tables --json`` shows the period (null while unproven) and
``tablebase stats`` the rare values. Verify finds them again from the
values it derives and compares. Tables of other games have no figures: every
step here does nothing for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablebase.builders.artifact_build import ArtifactBuild, ArtifactCheck, Say
from tablebase.lazy import np, pa
from tablebase.solve import Solver
from tablebase.store import Manifest, Piece, read_files
from tablebase.store.placed import Place

GAME = "octal"


def has_figures(manifest: Manifest) -> bool:
    """Whether the table is one of heap values by a code (the built-in octal game)."""
    return manifest.game == GAME and isinstance(manifest.params.get("code"), str)


def table_figures(root: Place, manifest: Manifest) -> dict[str, Any]:
    """On a worker: the figures of a built table, from its stored values in order of heaps (``manifest``: the
    driver's, which records every file, committed or not yet)."""
    from tablebase.games.octal_code import parse_code
    from tablebase.solve.octal_table import (
        heap_figures,  # compiled code: only where a table is built
    )

    return heap_figures(stored_values(root, manifest), parse_code(manifest.params["code"]))


def stored_values(root: Place, manifest: Manifest) -> np.ndarray:
    """The table's Grundy values in order of heaps, read a file at a time into one array, 16 bits a heap
    until a value needs more. A worker then holds the values alone: the rows read whole, their keys
    beside them, held 15 GB at 450 million heaps."""
    heaps = manifest.params["max"] + 1
    values, filled = np.empty(heaps, dtype=np.uint16), 0
    for piece in manifest.layout().pieces:
        rows = read_files(root, manifest.table, {piece.name: manifest.files[piece.name]}, ["key", "grundy"])
        keys, grundy = rows["key"].to_numpy(), rows["grundy"].to_numpy()
        if filled + len(keys) > heaps or not np.array_equal(keys, np.arange(filled, filled + len(keys))):
            raise RuntimeError(f"{manifest.table}: the stored heaps are not 0..{heaps - 1} in order")
        if len(grundy) and grundy.max() > np.iinfo(values.dtype).max:
            values = values.astype(np.uint32)
        values[filled: filled + len(keys)] = grundy
        filled += len(keys)
    if filled != heaps:
        raise RuntimeError(f"{manifest.table}: {filled:,} heaps stored of {heaps:,}")
    return values


def _rows_whole(manifest: Manifest) -> bool:
    """Whether every file of rows the plan has is recorded."""
    return all(piece.name in manifest.files for piece in manifest.layout().pieces)


class HeapFigures(ArtifactBuild):
    """The manifest's ``figures`` of an octal table: no files, one finishing task."""

    def prepare(self, root: Place, manifest: Manifest) -> None:
        manifest.figures = {}  # found again once the table is whole

    def piece(self, solver: Solver, rows: pa.Table, root: Place, table: str, piece: Piece, durable: bool) -> None:
        return None

    def record(self, manifest: Manifest, record: dict | None) -> None:
        pass

    def finishing_tasks(self, root: Place, manifest: Manifest) -> list[tuple[str, Callable, tuple]]:
        if not has_figures(manifest) or manifest.figures or not _rows_whole(manifest):
            return []  # found once every block is built (a run that built nothing has nothing to read)
        return [("heap-figures", table_figures, (root, manifest))]

    def finished(self, root: Place, manifest: Manifest, records: list[dict], say: Say) -> None:
        if not records:
            return
        manifest.figures = records[0]
        say(describe(manifest.figures))

    def complete(self, manifest: Manifest) -> bool:
        return not has_figures(manifest) or bool(manifest.figures)

    def checker(self, solver: Solver) -> FiguresCheck:
        from tablebase.solve.octal_table import OctalSolver

        return FiguresCheck(isinstance(solver, OctalSolver))


def describe(figures: dict[str, Any]) -> str:
    """The figures in one line, as the build says them."""
    period = figures.get("period")
    said = (f"period {period['period']:,} from heap {period['preperiod']:,}, proven at heap {period['proven_at']:,}"
            if period else f"no period proven by {figures['heaps']:,} heaps")
    rare = figures.get("rare")
    if rare:
        said += f"; {rare['count']:,} rare heaps (mask {rare['mask']})"
    return said + f"; largest value {figures['largest']} (heap {figures['largest_heap']:,})"


class FiguresCheck(ArtifactCheck):
    """The figures found again from the values verify derives, compared with the manifest's."""

    def __init__(self, heaps: bool) -> None:
        self.heaps = heaps  # a table of heaps in order: other tables' values are not kept
        self.values: list[np.ndarray] = []

    def add(self, derived: pa.Table, stored: pa.Table, level: int) -> None:
        if self.heaps:
            self.values.append(derived.column("grundy").to_numpy())

    def problems(self, root: Place, manifest: Manifest) -> list[tuple[str, str]]:
        if not (self.heaps and has_figures(manifest)):
            return []
        values = np.concatenate(self.values) if self.values else np.zeros(0, dtype=np.uint32)
        from tablebase.games.octal_code import parse_code
        from tablebase.solve.octal_table import heap_figures

        found = heap_figures(values, parse_code(manifest.params["code"]))
        return [("figures", f"{name} recorded {manifest.figures.get(name)!r}, derived {value!r}")
                for name, value in found.items() if manifest.figures.get(name) != value]
