"""What every verb of the command shares: its parser, and errors as one line."""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

EXIT_USAGE = 2


def one_line(message: object) -> str:
    """An error message as one line: line breaks and other control characters in
    what the user typed are shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message))


class Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)  # a game's option never matches a build option by its prefix
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {one_line(message)}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


# What the "build" extra installs: a read-only install (pip install tablebase) has none of it.
BUILD_EXTRA = frozenset({"numba", "dask", "distributed", "fastapi", "uvicorn", "jinja2", "matplotlib", "starlette",
                         "pydantic"})


def missing_extra(error: ModuleNotFoundError) -> str | None:
    """The one line for a verb that needs the build extra where it is not installed; None for another module."""
    module = (error.name or "").split(".")[0]
    if module not in BUILD_EXTRA:
        return None
    return f"this command needs {module}, which a read-only install leaves out: pip install 'tablebase[build]'"
