"""Errors a user can cause. The CLI prints them as one line and exits with status 2.

Each is a ``TablebaseError`` and one of Python's own: a value the caller gave
that a call does not take is a ``ValueError`` (``UsageError``, and
``PositionError`` for a position, ``OverLimit`` for more work than its
bounds allow); a table, folder or game that cannot be had or read is a
``LookupError`` (``StoreError``, ``TableNotFound``, ``DamagedTable``,
``GameUnavailable``). A program may catch either family without knowing
this package's classes.
"""


class TablebaseError(Exception):
    """Bad input or an unusable store: the message is a complete one-line explanation."""


class UsageError(TablebaseError, ValueError):
    """A value the caller gave that the call does not take: an option, a side, a limit, a game's reference."""


class PositionError(UsageError):
    """A position that does not parse, or lies outside what a table holds (a ValueError too)."""


class StoreError(TablebaseError, LookupError):
    """A folder or table that is missing, locked, damaged or built with other parameters (a LookupError too)."""


class TableNotFound(StoreError):
    """A table name that a folder does not hold (a LookupError too)."""


class DamagedTable(StoreError):
    """A table whose files cannot be read as its manifest records them: it refuses itself, not its folder."""


class GameUnavailable(StoreError):
    """A table whose game cannot be imported (a plugin not installed, a game file moved)."""


class OverLimit(UsageError):
    """Work asked for that would pass its bounds (memory, time, size): refused in one line before it starts, or
    stopped (a ValueError too: ask for less, or give larger bounds)."""


class BuildError(TablebaseError):
    """A build that stopped because a task failed on a worker; what it wrote is kept for a resume."""
