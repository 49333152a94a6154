"""A table's commit where there is no rename: files under names that carry their hash (``placed.stored_name``),
then the manifest, written over only on the version its writer read (``Head``); a reader reads the manifest, then
only what it records (``load``, ``placed.open_file``), and lists nothing (docs/format.md, *On an object store*).
"""

from __future__ import annotations

from tablebase.errors import StoreError
from tablebase.store.location import Location
from tablebase.store.manifest import FILE_NAME, Manifest
from tablebase.store.placed import table_prefix


class Head:
    """A table's manifest as one writer holds it: loaded with its version's tag, and saved only over that
    version (``Conflict``, in one line, if another build committed in between).

    On an object store the first save is a PUT with ``If-None-Match: *`` and
    each next one with ``If-Match`` on the ETag: whole or absent to a reader,
    and refused to a build whose lock's lease ran out while it stalled, so it
    cannot write over its successor's commit.
    """

    def __init__(self, location: Location, table: str) -> None:
        self.location = location
        self.table = table
        self.name = f"{table_prefix(table)}/{FILE_NAME}"
        self.tag: str | None = None  # of the version read or written last; None: there was none

    def load(self) -> Manifest | None:
        """The table's manifest as it is committed, None if there is none."""
        manifest = Manifest.load_if_exists(self.location, self.table, tagged=True)
        self.tag = None if manifest is None else manifest.tag
        return manifest

    def save(self, manifest: Manifest) -> None:
        """Commit: every file the manifest records must be written already (``placed.put_file``)."""
        if manifest.table != self.table:
            raise StoreError(f"the manifest of {manifest.table} is not {self.table}'s")
        manifest.tag = self.tag
        manifest.save(self.location)
        self.tag = manifest.tag


def load(location: Location, table: str) -> Manifest | None:
    """A reader's view of a table: its committed manifest, None if it has none."""
    return Manifest.load_if_exists(location, table)
