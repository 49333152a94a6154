"""Subtraction games on one heap: remove an allowed number of tokens.

Three ways to give the rule: ``--set 1,3,4`` (any listed amount), ``--bash M``
(Bash: 1..M) and ``--take P..Q`` (P..Q, and a heap of fewer than P tokens may be
taken whole). A position is the number of tokens ``n``; it is its own key and
level (``heaps.SingleHeap``); this module gives the rule and the moves.
"""

from __future__ import annotations

from typing import Any

from tablebase.errors import UsageError
from tablebase.games.base import Option
from tablebase.games.capabilities import CompiledMoves
from tablebase.games.heaps import SingleHeap
from tablebase.jit import njit
from tablebase.lazy import np

RULES = ("set", "bash", "take")


@njit(cache=True)
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


class Subtraction(SingleHeap):
    name = "subtraction"
    summary = "subtraction games: remove an allowed number of tokens from one heap"
    options = (
        Option("set", str, "allowed amounts, e.g. 1,3,4", required=False),
        Option("bash", int, "Bash: take 1..M", required=False),
        Option("take", str, "take P..Q; fewer than P tokens may be taken whole", required=False),
        Option("max", int, "largest heap"),
    )
    top_limit = 100_000_000

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> dict[str, Any]:
        """The options, with exactly one rule among them (said before any size is read)."""
        params = super().check_params(params)
        if len([k for k in RULES if k in params]) != 1:
            raise UsageError("subtraction: give exactly one of --set, --bash or --take")
        return params

    def __init__(self, **params):
        super().__init__(**params)
        self.take_all_below = 0
        if "set" in self.params:
            try:
                amounts = sorted({int(t) for t in self.params["set"].replace(" ", "").split(",") if t})
            except ValueError:
                raise UsageError(
                    f"subtraction: --set must list positive whole numbers like 1,3,4, got {self.params['set']!r}"
                ) from None
            if not amounts or amounts[0] < 1:
                raise UsageError("subtraction: --set must list positive whole numbers like 1,3,4")
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
                raise UsageError(f"subtraction: --take must look like P..Q, got {text!r}") from None
            if not 1 <= p <= q:
                raise UsageError(f"subtraction: --take P..Q needs 1 <= P <= Q, got {text!r}")
            self.params["take"] = f"{p}..{q}"
            amounts = list(range(p, q + 1))
            self.take_all_below = p
            self.rule = f"take{p}_{q}"
        if len(amounts) > 100_000:
            raise UsageError("subtraction: at most 100000 allowed amounts")
        self.amounts = np.array(amounts, dtype=np.int64)
        self.max_moves = len(amounts)
        self.compiled_moves = CompiledMoves(_moves, self._kernel_args)

    def child_levels(self, level: int) -> range | list[int]:
        if self.take_all_below and level < self.take_all_below:
            return [0] if level else []
        return [level - t for t in self.amounts if t <= level]

    def _kernel_args(self) -> tuple:
        return (self.amounts, self.take_all_below)
