"""What every verb of the command shares: its parser, and errors as one line."""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import Any, NoReturn

EXIT_USAGE = 2


def one_line(message: object) -> str:
    """An error message as one line: line breaks and other control characters in
    what the user typed are shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message))


class Parser(argparse.ArgumentParser):
    """``partial``: a parser that reads some options of a command line and leaves the others to another."""

    def __init__(self, *args: Any, partial: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)  # a game's option never matches a build option by its prefix
        super().__init__(*args, **kwargs)
        self.partial = partial

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        # An option misspelt is named as such, before argparse says that the option it meant is missing.
        if args is not None and not self.partial and not self._subparsers:
            self._refuse_unknown(list(args))
        return super().parse_known_args(args, namespace)

    def _refuse_unknown(self, args: list[str]) -> None:
        known = [o for action in self._actions for o in action.option_strings if o.startswith("--")]
        for word in args:
            if word == "--":
                return
            name = word.split("=", 1)[0]
            if name.startswith("--") and " " not in name and name not in known:  # with a space: a value (SQL)
                close = difflib.get_close_matches(name, known, n=1, cutoff=0.7)
                self.error(f"unrecognized option {name}" + (f"; did you mean {close[0]}?" if close else ""))

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {one_line(message)}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


# What the "build" extra installs: a read-only install (pip install tablebase) has none of it.
BUILD_EXTRA = frozenset({"numba", "dask", "distributed", "fastapi", "uvicorn", "jinja2", "matplotlib", "starlette",
                         "pydantic", "botocore"})


def missing_extra(error: ModuleNotFoundError) -> str | None:
    """The one line for a verb that needs the build extra where it is not installed; None for another module."""
    module = (error.name or "").split(".")[0]
    if module not in BUILD_EXTRA:
        return None
    return f"this command needs {module}, which a read-only install leaves out: pip install 'tablebase[build]'"
