"""A build's game on a worker: imported and bound to its builder once per worker per build.

Every task of a build names its game by reference and options (``ref``,
``params``), which travel cheaply; the game itself is made once per worker
process and build run (``run``), and kept for the run's later tasks. A worker
works for one build at a time, so a new run replaces the last.
"""

from __future__ import annotations

import threading
from typing import Any

from tablebase.build.jobs import spec_for
from tablebase.builders import Builder

_games: dict[tuple[str, str, str, bool], Builder] = {}
# A small job's workers are threads of one process: one of them makes the game, the others wait.
_making = threading.Lock()


def builder_of_run(run: str, ref: str, params: dict[str, Any], symmetry: bool = False) -> Builder:
    """The run's game, bound to its builder (as written: a listed game's keyed form comes from the store);
    ``symmetry``: the table keeps one position of each orbit."""
    named = (run, ref, repr(sorted(params.items())), symmetry)
    with _making:
        builder = _games.get(named)
        if builder is None:
            _games.clear()
            builder = _games[named] = spec_for(ref, params, symmetry=symmetry).builder
        return builder
