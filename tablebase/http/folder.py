"""The folder a server serves, as the API and the pages share it: its tables, a lock per table, and what may
be said of where it is.

Each table is loaded once, by the first request that needs it, under that
table's own lock, so that no request waits for another table's loading; SQL
runs on a cursor of its own, so that two tables' statistics are read side by
side. Nothing the server sends names a path of the machine it runs on.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from tablebase.query.database import Tablebase
from tablebase.store.location import Folder, Location

# An absolute path of two parts or more: a slash not inside a word, a number ("1/2"), a URL or another path.
_ABSOLUTE = re.compile(r"(?<![\w.~/:-])/(?:[^\s/'\"(),;:]+/)+[^\s/'\"(),;:]*")


class ServedFolder:
    """A tablebase folder opened for serving, shared by every request's thread.

    A table is loaded with its index, its game and its statistics. SQL runs on a cursor of its own because
    DuckDB refuses two calls at once on one connection. The folder is named by its name, and any other
    absolute path in a message by its last part (a game's file, a file beside the folder).
    """

    def __init__(self, root: str | os.PathLike | Location, games: list[str] | tuple[str, ...] = ()) -> None:
        self.db = Tablebase(root, games)
        self.stopping = threading.Event()  # set when the server stops: searches under way stop
        self._locks = {name: threading.Lock() for name in self.db._every_manifest}
        self._connecting = threading.Lock()
        if not isinstance(self.db._location, Folder):  # an object store: its URL names no path of this machine
            self.name = self.db._location.url.rstrip("/").rpartition("/")[2]
            self._spellings = [self.db._location.url.rstrip("/")]
            return
        where = Path(self.db._location.root)
        self.name = where.resolve().name or "/"
        # The folder's absolute spellings, longest first: the one given (symbolic links kept) and the real one.
        self._spellings = sorted({str(where.absolute()), str(where.resolve())} - {"/"}, key=len, reverse=True)

    @contextmanager
    def loading(self, table: str) -> Iterator[None]:
        """Hold ``table``'s lock while its index or statistics are loaded; a name that is no table has none
        (the call made under it says that there is no such table)."""
        lock = self._locks.get(table)
        if lock is None:
            yield
            return
        with lock:
            yield

    def loaded(self, table: str) -> None:
        """``table``'s rows for lookups (its probe index opened, or a table without one loaded into memory): by
        the first request that needs them, under the table's lock; the lookups themselves then read without one."""
        with self.loading(table):
            self.db._rows(table)

    def connected(self) -> None:
        """The folder's DuckDB session made, once, before a thread runs SQL on a cursor of it."""
        with self._connecting:
            self.db._sql_session  # noqa: B018 (made on first use; two threads must not make two)

    def public(self, text: str) -> str:
        """``text`` as the server may send it: the folder by its name, any other absolute path by its last part."""
        for spelling in self._spellings:
            text = text.replace(spelling, self.name)
        return _ABSOLUTE.sub(lambda m: PurePosixPath(m.group()).name, text)
