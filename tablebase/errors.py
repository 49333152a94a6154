"""Errors a user can cause. The CLI prints them as one line and exits with status 2."""


class TablebaseError(Exception):
    """Bad input or an unusable store: the message is a complete one-line explanation."""


class PositionError(TablebaseError, ValueError):
    """A position that does not parse, or lies outside what a table holds (a ValueError too)."""


class StoreError(TablebaseError):
    """A table that is missing, locked, damaged or built with other parameters."""


class TableNotFound(StoreError, LookupError):
    """A table name that a folder does not hold (a LookupError too)."""


class GameUnavailable(StoreError):
    """A table whose game cannot be imported (a plugin not installed, a game file moved)."""


class BuildError(TablebaseError):
    """A build that stopped because a task failed on a worker; what it wrote is kept for a resume."""
