"""The algebra's errors: each message is one line, fit to show a person as it is."""

from __future__ import annotations


class CGTError(ValueError):
    """A question the algebra cannot answer: a game that is not atomic, a cooling at -1 or below."""


class CGTSyntaxError(CGTError):
    """A malformed game or expression; the message says at which column."""
