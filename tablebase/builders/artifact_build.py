"""How a table's files beside its rows are made and checked: what a kind's artifact does when a table is built.

The one artifact with files today is a partizan table's values table
(``values_build.py``); an octal table's period and rare values are one without
files, kept in the manifest (``heap_figures.py``), and so are the misère
P-positions of a table with misère figures (``misere_figures.py``). The build and verify
handle every artifact alike, through these two interfaces, so neither names a
kind; how a reader sees an artifact's files is ``tablebase.kinds.artifacts``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from tablebase.lazy import pa
from tablebase.solve import Solver
from tablebase.store import Manifest, Piece
from tablebase.store.placed import Place

Say = Callable[[str], None]


class ArtifactBuild(ABC):
    """An artifact as the build makes it.

    Each solving task writes a piece for its partition (``piece``); once every
    partition is built the pieces are merged by tasks of their own
    (``finishing_tasks``); verify derives them again (``checker``).
    """

    @abstractmethod
    def prepare(self, root: Place, manifest: Manifest) -> None:
        """Before a build or a resumed one: forget records of damaged files and partitions whose piece is lost."""

    @abstractmethod
    def piece(self, solver: Solver, rows: pa.Table, root: Place, table: str, piece: Piece,
              durable: bool) -> dict | None:
        """On a worker: write the piece made from one solved file of rows (a store ``Piece``); its record."""

    @abstractmethod
    def record(self, manifest: Manifest, record: dict | None) -> None:
        """On the driver: take a piece's record into the manifest."""

    @abstractmethod
    def finishing_tasks(self, root: Place, manifest: Manifest) -> list[tuple[str, Callable, tuple]]:
        """After every partition: (name, function, arguments) of the tasks that finish the artifact."""

    @abstractmethod
    def finished(self, root: Place, manifest: Manifest, records: list[dict], say: Say) -> None:
        """Record what the finishing tasks wrote, and clean up."""

    @abstractmethod
    def complete(self, manifest: Manifest) -> bool:
        """Whether the artifact is whole."""

    @abstractmethod
    def checker(self, solver: Solver) -> ArtifactCheck:
        """For verify: derives the artifact again from re-solved rows and compares."""


class ArtifactCheck(ABC):
    @abstractmethod
    def add(self, derived: pa.Table, stored: pa.Table, level: int) -> None:
        """One level's rows as verify derives them again, and as stored (where the files could be read)."""

    @abstractmethod
    def problems(self, root: Place, manifest: Manifest) -> list[tuple[str, str]]:
        """(file, what) of every difference once all levels are added."""
