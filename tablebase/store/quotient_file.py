"""An octal table's misère quotient, kept in one file beside its rows (``QUOTIENT``; docs/format.md).

The manifest's ``quotient`` records it (``files``: its name with its rows, bytes and sha256) beside what it
says (its order, P-portion, heaps); the file is written whole where its record says it lies, and read back
checked against its record. What the bytes mean is ``tablebase.misere.stored``'s.
"""

from __future__ import annotations

from typing import Any

from tablebase.store.manifest import Manifest
from tablebase.store.placed import Place, open_file, put_file

FOLDER = "misere"
QUOTIENT = f"{FOLDER}/quotient.json"


def put_quotient(root: Place, table: str, data: bytes, elements: int) -> dict[str, Any]:
    """Write the quotient's file whole; its record (``elements`` counted as its rows)."""
    return put_file(root, table, QUOTIENT, data, elements)


def quotient_record(manifest: Manifest) -> dict[str, Any] | None:
    """The record of the table's quotient file, or None where it keeps none."""
    return manifest.quotient.get("files", {}).get(QUOTIENT)


def read_quotient_file(root: Place, manifest: Manifest) -> bytes | None:
    """The quotient file's bytes, checked against its record (``DamagedTable`` if they differ); None where the
    table keeps no quotient."""
    record = quotient_record(manifest)
    return None if record is None else open_file(root, manifest.table, QUOTIENT, record)
