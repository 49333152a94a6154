"""Solving loopy scored games (two-player Tanhinmin) by retrograde analysis inside each level.

Some moves of a loopy game go down a level (Tanhinmin's plays) and are looked
up in the lower level's stored values; others stay in the level (passes) and
can form cycles, so a level is solved whole, never by recursion. The game must
rank keys densely, provide a compiled move generator, name its ``pass_move``
code, and say through ``final_results(keys)`` who has won a position without
moves and by how much (a signed score).

What is computed for each position, all from the mover's view:

* outcome: N (the mover can force a win), P (the opponent can), D (neither:
  an endless cycle of passes; theory says this never happens, and the solver
  counts them in ``draws``);
* score: the cards the loser holds when the winner goes out, the winner
  maximising and the loser minimising, positive when the mover wins;
* plies: moves to the end, the winner hurrying and the loser delaying;
* mover_passes: the passes the mover makes before the game ends when the mover
  keeps them as few as possible and the opponent as many as possible (win or
  loss aside); opponent_passes: the same for the opponent's passes, which the
  opponent minimises and the mover maximises;
* one best move per metric, ties to the smallest move code.

Every metric is solved by the same retrograde kernel, ``_retrograde``: a
generalised Dijkstra over the level's internal moves. Each position waits with
a counter of undecided successors (as chess tablebases do). A position is
settled in order of a "time" key: won at the least time offered by a lost
successor (time + cost of the move), lost when its last successor is settled
won, at the largest such time. Moves to lower levels only contribute starting
offers. For plies the time is the plies and every move costs 1; for score the
time is ``TOP - |score|`` and moves cost 0, so the biggest wins settle first;
for passes the positions are doubled into "the counted player moves" (takes
the least offer) and "the other player moves" (waits for all successors), and
only the counted player's passes cost 1.

Why settling in time order is right: times never decrease along the run (a
settled position offers its predecessors its own time plus a cost >= 0), so
when a position is settled at time t no later offer can beat t, and a position
that loses waits for all of its successors. With costs 0 the score run is the
incremental attractor of the threshold games "win keeping >= s cards from the
loser" for s from high to low: the set settled won by time TOP - s is exactly
the least fixed point of those games, so a winner following the successor that
settled it (``via``) reaches the end in finite time; that successor is the best
score move. In the pass game every cycle holds a pass of the counted player
(passes alternate), so no cycle is free and waiting positions get settled.
Positions never settled are endless: draws.
"""

from __future__ import annotations

import logging

import numba
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from tablebase.errors import TablebaseError
from tablebase.games import Game
from tablebase.solve.rows import text_array

UNKNOWN, LOST, WON, DRAW = -1, 0, 1, 2
OUTCOMES = pa.array(["P", "N", "D"])  # dictionary order follows LOST, WON, DRAW
INF = np.int32(2**31 - 1)
TOP = 127  # score s is settled at time TOP - s
NO_MOVE = -1
# Columns of the table of known values, one row per key (one cache line serves a child).
OUTCOME, SCORE, PLIES, MINE, THEIRS = range(5)
FREE, UNIT, PASSES = 0, 1, 2  # edge costs of a retrograde run: 0, 1, or the pass game's (see _retrograde)
log = logging.getLogger(__name__)


@numba.njit(cache=True)
def _retrograde(pred_off, pred, fee, costs, offer, wait, blocked, succ, final, final_won, final_time, want_via):
    """Settle every node in time order; return (state, time, via).

    The level's moves inside it are ``pred_off``/``pred`` (CSR by child) with
    ``fee`` 1 for passes. With ``costs`` FREE or UNIT node i is position i and
    every move costs 0 or 1. With PASSES node 2i is position i with the counted
    player to move and node 2i+1 the same position with the other player to
    move; only the counted player's passes cost 1.
    ``offer``: the least time a lower-level lost child gives (INF: none);
    ``wait``: the largest time a lower-level won child gives (-1: none);
    ``blocked``: the node can never lose (a lower-level child it would need won is not);
    ``succ``: its moves inside the level, each an edge in the predecessor lists.
    """
    n = offer.shape[0]
    state = np.full(n, UNKNOWN, dtype=np.int8)
    best = offer.copy()
    worst = wait.copy()
    count = succ.copy()
    via = np.full(n if want_via else 0, -1, dtype=np.int32)
    due = np.zeros(n, dtype=np.int8)  # 0 not due, 1 due to win at best, 2 due to lose at worst
    for i in range(n):
        if final[i]:
            due[i] = 1 if final_won[i] else 2
            best[i] = final_time[i]
            worst[i] = final_time[i]
        elif best[i] < INF:
            due[i] = 1
        elif count[i] == 0 and not blocked[i]:
            due[i] = 2
    stack = np.empty(n, dtype=np.int32)
    t = np.int64(-1)
    while True:
        # Find the next time at which something is due, and gather what is due then.
        t_next = np.int64(INF)
        for i in range(n):
            if state[i] == UNKNOWN and due[i]:
                k = best[i] if due[i] == 1 else worst[i]
                if k < t_next:
                    t_next = k
        if t_next == INF:
            break
        t = t_next
        top = 0
        for i in range(n):
            if state[i] == UNKNOWN and due[i] and (best[i] if due[i] == 1 else worst[i]) == t:
                stack[top] = i
                top += 1
        while top:
            top -= 1
            q = stack[top]
            if state[q] != UNKNOWN or (best[q] if due[q] == 1 else worst[q]) != t:
                continue
            state[q] = WON if due[q] == 1 else LOST
            at = q >> 1 if costs == PASSES else q
            for e in range(pred_off[at], pred_off[at + 1]):
                if costs == PASSES:
                    p = 2 * pred[e] + 1 - (q & 1)
                    k = t + (fee[e] if q & 1 else 0)
                else:
                    p = pred[e]
                    k = t + costs
                if state[p] != UNKNOWN or final[p]:
                    continue
                if state[q] == LOST:
                    if k < best[p]:  # strictly: a lower-level witness keeps priority
                        best[p] = k
                        due[p] = 1
                        if want_via:
                            via[p] = q
                        if k == t:
                            stack[top] = p
                            top += 1
                else:
                    count[p] -= 1
                    worst[p] = max(worst[p], k)
                    if count[p] == 0 and best[p] == INF and not blocked[p]:
                        due[p] = 2
                        if worst[p] == t:
                            stack[top] = p
                            top += 1
    time = np.full(n, INF, dtype=np.int32)
    for i in range(n):
        if state[i] == WON:
            time[i] = best[i]
        elif state[i] == LOST:
            time[i] = worst[i]
    return state, time, via


@numba.njit
def _scan(keys, moves_fn, args, max_moves, pass_move, known):
    """What the lower level offers each position, and the moves that stay in the level."""
    n = keys.shape[0]
    # Buckets of the key space, about one per key of the level, find a child's
    # place among the level's keys in a step or two instead of a binary search.
    shift = 0
    while (known.shape[0] >> shift) > n:
        shift += 1
    first = np.zeros((known.shape[0] >> shift) + 2, dtype=np.int64)
    for i in range(n):
        first[(keys[i] >> shift) + 1] += 1
    for b in range(first.shape[0] - 1):
        first[b + 1] += first[b]
    child = np.empty(max_moves + 1, dtype=np.int64)
    moves = np.empty(max_moves + 1, dtype=np.int64)
    final = np.zeros(n, dtype=np.bool_)
    blocked = np.zeros(n, dtype=np.bool_)
    succ = np.zeros(n, dtype=np.int32)
    score_offer = np.full(n, INF, dtype=np.int32)
    score_wait = np.full(n, -1, dtype=np.int32)
    score_code = np.full(n, NO_MOVE, dtype=np.int32)  # the lower-level move giving score_offer
    plies_offer = np.full(n, INF, dtype=np.int32)
    plies_wait = np.full(n, -1, dtype=np.int32)
    mine_offer = np.full(n, INF, dtype=np.int32)
    theirs_wait = np.full(n, -1, dtype=np.int32)
    src = np.empty(n, dtype=np.int32)
    dst = np.empty(n, dtype=np.int32)
    paid = np.empty(n, dtype=np.int8)
    edges = 0
    whole = True  # every child is in this level or a loaded one
    for t in range(n):
        m = moves_fn(keys[t], args, child, moves)
        final[t] = m == 0
        for j in range(m):
            c = child[j]
            fee = 1 if moves[j] == pass_move else 0
            value = known[c]
            o = value[OUTCOME]
            if o == UNKNOWN:
                lo, hi = first[c >> shift], first[(c >> shift) + 1]
                s = lo + np.searchsorted(keys[lo:hi], c)
                if s >= hi or keys[s] != c:
                    whole = False
                    continue
                if edges == src.shape[0]:  # grow the edge buffers
                    src = np.concatenate((src, np.empty_like(src)))
                    dst = np.concatenate((dst, np.empty_like(dst)))
                    paid = np.concatenate((paid, np.empty_like(paid)))
                src[edges], dst[edges], paid[edges] = t, s, fee
                edges += 1
                succ[t] += 1
                continue
            if o == LOST:
                k = TOP + value[SCORE]  # the child's mover keeps -score cards
                if k < score_offer[t] or (k == score_offer[t] and moves[j] < score_code[t]):
                    score_offer[t], score_code[t] = k, moves[j]
                plies_offer[t] = min(plies_offer[t], value[PLIES] + 1)
                blocked[t] = True
            elif o == WON:
                score_wait[t] = max(score_wait[t], TOP - value[SCORE])
                plies_wait[t] = max(plies_wait[t], value[PLIES] + 1)
            else:
                blocked[t] = True
            mine_offer[t] = min(mine_offer[t], fee + value[THEIRS])
            theirs_wait[t] = max(theirs_wait[t], value[MINE])
    return (whole, final, blocked, succ, score_offer, score_wait, score_code, plies_offer, plies_wait,
            mine_offer, theirs_wait, src[:edges], dst[:edges], paid[:edges])


@numba.njit(cache=True)
def _predecessors(n, src, dst, cost):
    """The edges src -> dst grouped by dst (CSR), with their costs."""
    off = np.zeros(n + 1, dtype=np.int64)
    for e in range(dst.shape[0]):
        off[dst[e] + 1] += 1
    for i in range(n):
        off[i + 1] += off[i]
    fill = off[:-1].copy()
    pred = np.empty(dst.shape[0], dtype=np.int32)
    pcost = np.empty(dst.shape[0], dtype=np.int8)
    for e in range(dst.shape[0]):
        pred[fill[dst[e]]] = src[e]
        pcost[fill[dst[e]]] = cost[e]
        fill[dst[e]] += 1
    return off, pred, pcost


@numba.njit
def _best_moves(keys, moves_fn, args, max_moves, pass_move, known, via_key, score_code):
    """One best move per metric (codes; -1 for none), ties to the smallest code."""
    n = keys.shape[0]
    child = np.empty(max_moves + 1, dtype=np.int64)
    moves = np.empty(max_moves + 1, dtype=np.int64)
    best = np.full((4, n), NO_MOVE, dtype=np.int32)
    for t in range(n):
        k = keys[t]
        m = moves_fn(k, args, child, moves)
        o = known[k, OUTCOME]
        b_plies = b_score = b_mine = b_theirs = NO_MOVE
        v_plies = v_score = v_mine = v_theirs = 0
        for j in range(m):
            c, code = child[j], moves[j]
            value = known[c]
            oc = value[OUTCOME]
            # win: a lost child, fewest plies; loss: the longest defence; draw: stay drawn
            if (o == WON and oc == LOST) or o == LOST or (o == DRAW and oc == DRAW):
                v = -value[PLIES] if o == WON else value[PLIES]
                if b_plies == NO_MOVE or v > v_plies or (v == v_plies and code < b_plies):
                    b_plies, v_plies = code, v
            if (o == WON and c == via_key[t]) or (o == LOST) or (o == DRAW and oc == DRAW):
                v = -value[SCORE]
                if b_score == NO_MOVE or v > v_score or (v == v_score and code < b_score):
                    b_score, v_score = code, v
            v = (1 if code == pass_move else 0) + value[THEIRS]
            if b_mine == NO_MOVE or v < v_mine or (v == v_mine and code < b_mine):
                b_mine, v_mine = code, v
            v = value[MINE]
            if b_theirs == NO_MOVE or v > v_theirs or (v == v_theirs and code < b_theirs):
                b_theirs, v_theirs = code, v
        if o == WON and via_key[t] < 0:
            b_score = score_code[t]  # settled by a lower-level child
        best[0, t], best[1, t], best[2, t], best[3, t] = b_plies, b_score, b_mine, b_theirs
    return best


def _interleave(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a[0], b[0], a[1], b[1], ...: the two pass-game nodes of each position side by side."""
    return np.stack([a, b], axis=1).ravel()


def _outcome_array(codes: np.ndarray) -> pa.Array:
    return pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int8)), OUTCOMES)


def _move_array(game: Game, codes: np.ndarray) -> pa.Array:
    """Move names, dictionary-encoded with the codes themselves as indices (loopy games' codes are small)."""
    names = [game.move_name(c) for c in range(int(codes.max(initial=0)) + 1)]
    return pa.DictionaryArray.from_arrays(pa.array(codes, mask=codes < 0), pa.array(names, pa.string()))


class LoopySolver:
    """Solves a loopy scored game's levels whole, keeping every solved value in arrays indexed by key."""

    columns = ["key", "outcome", "score", "plies", "mover_passes", "opponent_passes"]

    def __init__(self, game: Game) -> None:
        if game.key_space is None or game.moves_kernel is None:
            raise TablebaseError(f"{game.name}: the loopy solver needs dense keys and a compiled move generator")
        self.game = game
        size = game.key_space
        # outcome, score, plies, mover_passes, opponent_passes of every key solved so far
        self.known = np.zeros((size, 5), dtype=np.int16)
        self.known[:, OUTCOME] = UNKNOWN
        self.draws: dict[int, int] = {}  # level -> positions no one can win
        self._levels: set[int] = set()

    shared = None  # keeps its values in this process

    @property
    def levels(self) -> set[int]:
        return self._levels

    def remember(self, level: int, rows: pa.Table | None, whole: bool = True) -> None:
        """Take in stored rows of a level (None: none); ``whole``: the level is now complete."""
        if rows is not None and rows.num_rows:
            keys = rows["key"].to_numpy()
            values = np.empty((len(keys), 5), dtype=np.int16)
            values[:, OUTCOME] = pc.index_in(rows["outcome"].cast(pa.string()), OUTCOMES).to_numpy(zero_copy_only=False)
            for column, name in zip((SCORE, PLIES, MINE, THEIRS), self.columns[2:]):
                values[:, column] = rows[name].fill_null(0).to_numpy()
            self.known[keys] = values
        if whole:
            self._levels.add(level)

    def _check_whole(self, keys: np.ndarray) -> int:
        game = self.game
        level = game.level_of(int(keys[0]))
        size = game.level_size(level)
        ends = game.level_keys(level, 0, 1)[0], game.level_keys(level, size - 1, size)[0]
        if len(keys) != size or (keys[0], keys[-1]) != ends:
            raise TablebaseError(
                f"{game.name}: level {level} has {size} positions and must be solved whole "
                f"(passes stay in the level), got a slice of {len(keys)}"
            )
        return level

    def solve(self, keys: np.ndarray, with_positions: bool = True) -> pa.Table:
        """The rows of one whole level, in key order."""
        game = self.game
        keys = np.ascontiguousarray(keys, dtype=np.int64)
        if len(keys) == 0:
            raise TablebaseError(f"{game.name}: no positions to solve")
        level = self._check_whole(keys)
        self.known[keys, OUTCOME] = UNKNOWN  # solving a level again starts afresh
        n = len(keys)
        kernel = (game.moves_kernel, game.kernel_args(), game.max_moves, game.pass_move)
        (whole, final, blocked, succ, score_offer, score_wait, score_code, plies_offer, plies_wait,
         mine_offer, theirs_wait, src, dst, paid) = _scan(keys, *kernel, self.known)
        if not whole:
            raise RuntimeError("a move leads to a position of a level that is not loaded")
        final_won = np.zeros(n, dtype=bool)  # only positions without moves are over
        final_score = np.zeros(n, dtype=np.int64)
        final_won[final], final_score[final] = game.final_results(keys[final])

        graph = _predecessors(n, src, dst, paid)
        del src, dst, paid
        state, time, via = _retrograde(*graph, FREE, score_offer, score_wait, blocked, succ, final,
                                       final_won, (TOP - np.abs(final_score)).astype(np.int32), True)
        plies_state, plies, _ = _retrograde(*graph, UNIT, plies_offer, plies_wait, blocked, succ, final,
                                            final_won, np.zeros(n, dtype=np.int32), False)
        if not np.array_equal(state, plies_state):
            raise RuntimeError(f"{game.name} level {level}: the score and plies runs disagree on outcomes")
        del plies_state, score_offer, score_wait, plies_offer, plies_wait
        # The pass game: the counted player takes the least offer and can always
        # play on, the other player waits for every successor.
        passes_state, passes, _ = _retrograde(
            *graph, PASSES, _interleave(mine_offer, np.full(n, INF, np.int32)),
            _interleave(np.full(n, -1, np.int32), theirs_wait), _interleave(np.ones(n, bool), np.zeros(n, bool)),
            _interleave(succ, succ), _interleave(final, final), _interleave(final, np.zeros(n, bool)),
            np.zeros(2 * n, dtype=np.int32), False)
        del graph

        drawn = state == UNKNOWN
        endless = passes_state.reshape(n, 2) == UNKNOWN
        self.draws[level] = int(drawn.sum())
        if self.draws[level] or endless.any():
            log.warning("%s level %d: %d drawn positions, %d endless pass counts",
                        game.name, level, self.draws[level], int(endless.sum()))
        outcome = np.where(drawn, DRAW, state).astype(np.int8)
        magnitude = np.where(drawn, 0, TOP - time)
        score = np.where(state == WON, magnitude, -magnitude).astype(np.int8)
        passes = np.where(endless, 0, passes.reshape(n, 2))
        plies = np.where(drawn, 0, plies)
        values = np.empty((n, 5), dtype=np.int16)
        values[:, OUTCOME], values[:, SCORE], values[:, PLIES] = outcome, score, plies
        values[:, MINE], values[:, THEIRS] = passes[:, 0], passes[:, 1]
        self.known[keys] = values
        del values

        via_key = np.where(via >= 0, keys[np.maximum(via, 0)], -1)
        best = _best_moves(keys, *kernel, self.known, via_key, score_code)
        rows = pa.table({
            "key": pa.array(keys, type=pa.int64()),
            "position": text_array(game.format_positions(keys)),
            "outcome": _outcome_array(outcome),
            "score": pa.array(score),
            "plies": pa.array(plies.astype(np.int16), mask=drawn),
            "mover_passes": pa.array(passes[:, 0].astype(np.int8), mask=endless[:, 0]),
            "opponent_passes": pa.array(passes[:, 1].astype(np.int8), mask=endless[:, 1]),
            "best_move": _move_array(game, best[0]),
            "best_score_move": _move_array(game, best[1]),
            "best_mover_passes_move": _move_array(game, best[2]),
            "best_opponent_passes_move": _move_array(game, best[3]),
        })
        return rows if with_positions else rows.drop_columns(["position"])
