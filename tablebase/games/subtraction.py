"""Subtraction games on one heap: remove an allowed number of tokens.

Three ways to give the rule: ``--set 1,3,4`` (any listed amount), ``--bash M``
(Bash: 1..M) and ``--take P..Q`` (P..Q, and a heap of fewer than P tokens may be
taken whole). A position is the number of tokens ``n``; it is its own key and level.
"""

from __future__ import annotations

import numba
import numpy as np

from tablebase.errors import TablebaseError
from tablebase.games.base import Option, Texts
from tablebase.games.drawing import Picture, heaps
from tablebase.games.keyed import CompiledMoves, KeyedImpartialGame
from tablebase.games.notation import split_ints
from tablebase.games.young import format_rows


@numba.njit(cache=True)
def _moves(key, args, out_keys, out_moves):
    amounts, take_all_below = args
    n = 0
    if 0 < key < take_all_below:
        out_keys[0] = 0
        out_moves[0] = key
        return 1
    for t in amounts:
        if t <= key:
            out_keys[n] = key - t
            out_moves[n] = t
            n += 1
    return n


class Subtraction(KeyedImpartialGame):
    name = "subtraction"
    summary = "subtraction games: remove an allowed number of tokens from one heap"
    notation = "the number of tokens, e.g. '17'"
    move_notation = "'-t': take t tokens"
    options = (
        Option("set", str, "allowed amounts, e.g. 1,3,4", required=False),
        Option("bash", int, "Bash: take 1..M", required=False),
        Option("take", str, "take P..Q; fewer than P tokens may be taken whole", required=False),
        Option("max", int, "largest heap"),
    )

    def __init__(self, **params):
        super().__init__(**params)
        given = [k for k in ("set", "bash", "take") if k in self.params]
        if len(given) != 1:
            raise TablebaseError("subtraction: give exactly one of --set, --bash or --take")
        self.top = self.int_param("max", 0, 100_000_000)
        self.take_all_below = 0
        if "set" in self.params:
            try:
                amounts = sorted({int(t) for t in self.params["set"].replace(" ", "").split(",") if t})
            except ValueError:
                raise TablebaseError(
                    f"subtraction: --set must list positive whole numbers like 1,3,4, got {self.params['set']!r}"
                ) from None
            if not amounts or amounts[0] < 1:
                raise TablebaseError("subtraction: --set must list positive whole numbers like 1,3,4")
            self.params["set"] = ",".join(map(str, amounts))
            self.rule = "s" + "_".join(map(str, amounts))
        elif "bash" in self.params:
            m = self.int_param("bash", 1, 1_000_000)
            amounts = list(range(1, m + 1))
            self.rule = f"bash{m}"
        else:
            text = self.params["take"]
            try:
                p, q = (int(t) for t in text.replace("-", "..").split(".."))
            except ValueError:
                raise TablebaseError(f"subtraction: --take must look like P..Q, got {text!r}") from None
            if not 1 <= p <= q:
                raise TablebaseError(f"subtraction: --take P..Q needs 1 <= P <= Q, got {text!r}")
            self.params["take"] = f"{p}..{q}"
            amounts = list(range(p, q + 1))
            self.take_all_below = p
            self.rule = f"take{p}_{q}"
        if len(amounts) > 100_000:
            raise TablebaseError("subtraction: at most 100000 allowed amounts")
        self.amounts = np.array(amounts, dtype=np.int64)
        self.key_space = self.top + 1
        self.max_moves = len(amounts)
        self.compiled_moves = CompiledMoves(_moves, self._kernel_args)

    def draw(self, position: str) -> Picture:
        """The one heap."""
        return heaps(self.parse_ints(position)[:1], f"{self.name} {position}")

    @property
    def table(self) -> str:
        return f"subtraction_{self.rule}_n{self.top}"

    @property
    def bounds(self) -> str:
        return f"heaps of 0..{self.top} tokens"

    @property
    def max_level(self) -> int:
        return self.top

    def level_size(self, level: int) -> int:
        return 1

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        return np.arange(level + start, level + stop, dtype=np.int64)

    def child_levels(self, level: int) -> range | list[int]:
        if self.take_all_below and level < self.take_all_below:
            return [0] if level else []
        return [level - t for t in self.amounts if t <= level]

    def _kernel_args(self) -> tuple:
        return (self.amounts, self.take_all_below)

    def format_positions(self, keys: np.ndarray) -> Texts:
        keys = np.asarray(keys, dtype=np.int64)
        return format_rows(keys.reshape(-1, 1), np.ones(len(keys), dtype=np.int64))

    def parse(self, text: str) -> int:
        values = self.parse_ints(text)
        if len(values) != 1:
            raise self.position_error(text, "expected one number")
        if not 0 <= values[0] <= self.top:
            raise self.position_error(text, "outside the table")
        return values[0]

    def parse_many(self, texts: Texts) -> np.ndarray:
        values, counts, ok = split_ints(texts, 1)
        ok &= (counts == 1) & (values[:, 0] <= self.top)
        return self.parse_rest(texts, np.where(ok, values[:, 0], 0), ok)

    def level_of(self, key: int) -> int:
        return int(key)

    def move_name(self, move: int) -> str:
        return f"-{move}"
