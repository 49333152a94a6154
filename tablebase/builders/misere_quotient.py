"""An octal table's misère quotient, kept beside its rows: made once the table is whole, checked again by verify.

A table of an octal game built with ``--misere`` gets, once every block of
heaps is built, one task that grows the misère quotient of heaps 0..M
(``games.octal.misere_heaps``: the least of the largest heap and
``--misere-heaps``) and writes it as one file of the table
(``store/quotient_file.py``; its bytes ``misere/stored.py``'s). Where the
quotient's bounds refuse a heap, the table keeps the quotient of the heaps
before it and the one line that says why: the build does not fail. The
manifest's ``quotient`` records the file and what it says. Verify grows the
quotient again and compares the file byte for byte. Other tables have none:
every step here does nothing for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablebase.builders.artifact_build import ArtifactBuild, ArtifactCheck, Say
from tablebase.builders.heap_figures import has_figures
from tablebase.errors import TablebaseError
from tablebase.games.octal import misere_heaps
from tablebase.lazy import pa
from tablebase.solve import Solver
from tablebase.store import Manifest, Piece
from tablebase.store.placed import Place, file_there
from tablebase.store.quotient_file import QUOTIENT, put_quotient, quotient_record, read_quotient_file


def asked(manifest: Manifest) -> int | None:
    """The heaps 0..M whose quotient the table keeps, or None where it keeps none."""
    return misere_heaps(manifest.params) if has_figures(manifest) else None


def grown(manifest: Manifest) -> tuple[bytes, int, dict[str, Any]]:
    """The quotient of the table's heaps as its file holds it: (bytes, elements, summary)."""
    from tablebase.misere.quotient import grown_quotient
    from tablebase.misere.stored import quotient_bytes, quotient_summary

    heaps = asked(manifest)
    assert heaps is not None
    q, refused = grown_quotient(manifest.params["code"], heaps)
    return quotient_bytes(q, heaps, refused), q.order, quotient_summary(q, heaps, refused)


def table_quotient(root: Place, manifest: Manifest) -> dict[str, Any]:
    """On a worker: grow the quotient, write its file; the manifest's ``quotient``."""
    data, elements, summary = grown(manifest)
    return {"files": {QUOTIENT: put_quotient(root, manifest.table, data, elements)}, **summary}


def describe(quotient: dict[str, Any]) -> str:
    """What the manifest says of the quotient, in one line, as the build says it."""
    said = (f"misère quotient of heaps 0..{quotient['heaps']}: {quotient['order']:,} elements, P-portion of "
            f"{quotient['p_portion_size']:,}, stable from heap {quotient['stable_from']}")
    if quotient["refused"]:
        said += f" (heaps to {quotient['asked']} asked for; {quotient['refused']})"
    return said


class MisereQuotientBuild(ArtifactBuild):
    """The manifest's ``quotient`` and its file: one finishing task."""

    def prepare(self, root: Place, manifest: Manifest) -> None:
        record = quotient_record(manifest)
        if asked(manifest) is None or record is None or not file_there(root, manifest.table, QUOTIENT, record):
            manifest.quotient = {}  # grown again once the table is whole (it depends on the code and M alone)

    def piece(self, solver: Solver, rows: pa.Table, root: Place, table: str, piece: Piece, durable: bool) -> None:
        return None

    def record(self, manifest: Manifest, record: dict | None) -> None:
        pass

    def finishing_tasks(self, root: Place, manifest: Manifest) -> list[tuple[str, Callable, tuple]]:
        if asked(manifest) is None or manifest.quotient or not manifest.files:
            return []
        if not all(piece.name in manifest.files for piece in manifest.layout().pieces):
            return []  # grown once every block is built, as the table's other figures are
        return [("misere-quotient", table_quotient, (root, manifest))]

    def finished(self, root: Place, manifest: Manifest, records: list[dict], say: Say) -> None:
        if records:
            manifest.quotient = records[0]
            say(describe(manifest.quotient))

    def complete(self, manifest: Manifest) -> bool:
        return asked(manifest) is None or bool(manifest.quotient)

    def checker(self, solver: Solver) -> QuotientCheck:
        return QuotientCheck()


class QuotientCheck(ArtifactCheck):
    """The quotient grown again from the code, compared with the file and the manifest's summary."""

    def add(self, derived: pa.Table, stored: pa.Table, level: int) -> None:
        pass

    def problems(self, root: Place, manifest: Manifest) -> list[tuple[str, str]]:
        if asked(manifest) is None:
            return [("quotient", "a misère quotient is recorded, and the table was not built with --misere")
                    ] if manifest.quotient else []
        if not manifest.quotient:
            return [("quotient", "the misère quotient is missing (the same build command makes it)")]
        data, _, summary = grown(manifest)
        recorded = {k: v for k, v in manifest.quotient.items() if k != "files"}
        problems = [("quotient", f"{name} recorded {recorded.get(name)!r}, derived {value!r}")
                    for name, value in summary.items() if recorded.get(name) != value]
        try:
            stored = read_quotient_file(root, manifest)
        except (TablebaseError, OSError) as e:  # damaged, or missing
            return problems + [(QUOTIENT, str(e).splitlines()[0] if str(e) else "the file cannot be read")]
        if stored != data:
            problems.append((QUOTIENT, "the stored quotient differs from the quotient grown again"))
        return problems
