"""A plain game's whole build against the game's own moves() called once on every position, in one run.

    python benchmarks/bench_listing.py                    # Kayles 40 and Connect-Four 5x4, two workers
    python benchmarks/bench_listing.py --only kayles --workers 1

Two plugins: Kayles whose start positions are every set of rows of at most
40 pins in all (tests/plugins/kayles_rows.py, 215,308 positions), and
Connect-Four on 5 rows by 4 columns, written here (1,706,255 positions).
For each: every position is found first (not timed), then the game's
``moves()`` is called once on each in this process (timed), then the build
command runs in a child process with a local cluster of ``--workers``
(timed, its memory sampled). Printed side by side: both times, their ratio,
the command's peak memory, the largest worker's, and that worker's growth
per position of its share.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import PeakMemory, report  # noqa: E402

CONNECT_FOUR = '''
from tablebase.games import Outcome, Result, ScoredGame, Option

ROWS, COLS = 5, 4


def _lines():
    cells = [(r, c) for r in range(ROWS) for c in range(COLS)]
    out = []
    for r, c in cells:
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            line = [(r + k * dr, c + k * dc) for k in range(4)]
            if all(0 <= a < ROWS and 0 <= b < COLS for a, b in line):
                out.append(tuple(a * COLS + b for a, b in line))
    return out


LINES = _lines()


class ConnectFour(ScoredGame):
    name = "connect_four"
    summary = "Connect-Four on 5 rows by 4 columns"
    notation = "rows from the top, 'X', 'O' and '.', joined by '|'"
    move_notation = "the column played, from 1"

    def start_positions(self):
        return ["." * (ROWS * COLS)]

    def level(self, board):
        return board.count(".")

    def won(self, board):
        return any(board[a] != "." and board[a] == board[b] == board[c] == board[d] for a, b, c, d in LINES)

    def moves(self, board):
        if self.won(board):
            return
        mark = "X" if board.count("X") == board.count("O") else "O"
        for col in range(COLS):
            for row in range(ROWS - 1, -1, -1):
                cell = row * COLS + col
                if board[cell] == ".":
                    yield col, board[:cell] + mark + board[cell + 1:]
                    break

    def result(self, board):
        return Result(Outcome.LOSS if self.won(board) else Outcome.DRAW)

    def move_name(self, col):
        return str(col + 1)

    def format(self, board):
        return "|".join(board[r * COLS:(r + 1) * COLS] for r in range(ROWS))

    def read(self, text):
        return text.replace("|", "")
'''

KAYLES = Path(__file__).resolve().parent.parent / "tests" / "plugins" / "kayles_rows.py"
GAMES = {"kayles": ("kayles_rows.py", KAYLES.read_text(), "KaylesRows", ["--pins", "40", "--every", "1"],
                    {"pins": 40, "every": 1}),
         "connect_four": ("connect_four.py", CONNECT_FOUR, "ConnectFour", [], {})}


def load(path: Path, name: str, params: dict):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)(**params)


def every_position(game) -> list:
    seen = set(game.start_positions())
    todo = list(seen)
    while todo:
        for _, child in game.moves(todo.pop()):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return list(seen)


def moves_loop(game, positions: list) -> float:
    began = time.perf_counter()
    for p in positions:
        for _ in game.moves(p):
            pass
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", choices=sorted(GAMES))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for key, (file, source, cls, options, params) in GAMES.items():
            if args.only and key != args.only:
                continue
            path = folder / file
            path.write_text(source)
            game = load(path, cls, params)
            positions = every_position(game)
            loop = moves_loop(game, positions)
            del positions
            began = time.perf_counter()
            with PeakMemory() as memory:
                done = subprocess.run([sys.executable, "-m", "tablebase", "build", "--game", f"{path}:{cls}", *options,
                                       "--out", str(folder / "out"), "--workers", str(args.workers), "--quiet"],
                                      capture_output=True, text=True)
            command = time.perf_counter() - began
            if done.returncode:
                sys.exit(done.stderr)
            n = game_positions = int(__import__("json").loads(done.stdout.splitlines()[-1])["positions"])
            worker = memory.by_depth.get(2, 0)
            report(key, positions=game_positions, moves_loop_s=round(loop, 2), command_s=round(command, 2),
                   ratio=round(command / loop, 2), command_mib=round(memory.by_depth.get(1, 0) / 2**20),
                   worker_mib=round(worker / 2**20), worker_bytes_per_share_position=round(worker * args.workers / n))


if __name__ == "__main__":
    main()
