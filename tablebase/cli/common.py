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
