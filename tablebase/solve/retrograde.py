"""Retrograde analysis inside a level: settling positions whose moves may go round in circles.

Every metric is solved by the same kernel, ``retrograde``: a generalised
Dijkstra over the level's internal moves, each position waiting with a
counter of undecided successors (as chess tablebases do) and settled in order
of a "time" key; moves to lower levels only give starting offers. For plies
the time is the plies and every move costs 1; for score it is ``TOP - |score|``
and moves cost 0, so the biggest wins settle first; for passes the positions
are doubled by who moves, and only the counted player's passes cost 1.
"""

from __future__ import annotations

import numba

from tablebase.jit import compile_all
from tablebase.lazy import np

compile_all()  # the games' functions these loops call are compiled ones from here on

UNKNOWN, LOST, WON, DRAW = -1, 0, 1, 2
INF = np.int32(2**31 - 1)
TOP = 127  # score s is settled at time TOP - s
FREE, UNIT, PASSES = 0, 1, 2  # edge costs of a run: 0, 1, or the pass game's (see retrograde)
SAME = 2  # an edge's mark (beside its pass fee, 1): the same player moves again at its end


@numba.njit(cache=True)
def retrograde(pred_off, pred, fee, costs, offer, wait, blocked, succ, final, final_outcome, final_time, want_via):
    """Settle every node in time order; return (state, time, via).

    The level's moves inside it are ``pred_off``/``pred`` (CSR by child) with
    ``fee`` 1 for passes, plus ``SAME`` where the same player moves again at
    the child (whose state then counts for the parent as it is, not turned round).
    With ``costs`` FREE or UNIT node i is position i and
    every move costs 0 or 1. With PASSES node 2i is position i with the counted
    player to move and node 2i+1 the same position with the other player to
    move; only the counted player's passes cost 1.
    ``offer``: the least time a lower-level lost child gives (INF: none);
    ``wait``: the largest time a lower-level won child gives (-1: none);
    ``blocked``: the node can never lose (a lower-level child it would need won is not);
    ``succ``: its moves inside the level, each an edge in the predecessor lists;
    ``final``: the node has no moves and ``final_outcome`` (WON, LOST or DRAW)
    says how it ended, at ``final_time``; a drawn end is never settled.

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
    n = offer.shape[0]
    state = np.full(n, UNKNOWN, dtype=np.int8)
    best = offer.copy()
    worst = wait.copy()
    count = succ.copy()
    via = np.full(n if want_via else 0, -1, dtype=np.int32)
    due = np.zeros(n, dtype=np.int8)  # 0 not due, 1 due to win at best, 2 due to lose at worst
    for i in range(n):
        if final[i]:
            due[i] = 1 if final_outcome[i] == WON else 2 if final_outcome[i] == LOST else 0
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
                same = (fee[e] & SAME) != 0
                if costs == PASSES:  # the player to move changes along the edge, unless it is the same again
                    p = 2 * pred[e] + ((q & 1) if same else 1 - (q & 1))
                    k = t + ((fee[e] & 1) if (p & 1) == 0 else 0)
                else:
                    p = pred[e]
                    k = t + costs
                if state[p] != UNKNOWN or final[p]:
                    continue
                if (state[q] == LOST) != same:  # q is lost for p's opponent: p wins through it
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


@numba.njit(cache=True)
def predecessors(n, src, dst, cost):
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
