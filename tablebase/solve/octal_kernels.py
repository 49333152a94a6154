"""Compiled loops for the Grundy values of take-and-break heaps (see ``octal.py`` for the rules).

Each loop fills ``g[n0:n1]`` in order of heap size and returns early where the
caller must act: when a value no longer fits the arrays it was given (a power
of two above the largest value, so that every XOR of two values has a slot)
or, in the sparse loop, when the list of rare heaps is full; the caller
enlarges what is needed and calls again from where the loop stopped.
``seen`` is stamped with the heap being solved instead of cleared (``seen[v]
== n``: v is an option of heap n), one store per option and no sweep a heap.
"""

from __future__ import annotations

import numba
from numba.cpython.unsafe.numbers import trailing_zeros

from tablebase.jit import compile_all
from tablebase.lazy import np

compile_all()  # the games' functions these loops call are compiled ones from here on


@numba.njit(cache=True, inline="always")
def _mark_single(g, n, whole, take, seen):
    """Options that leave no heap (value 0) or one heap (its value)."""
    for i in range(whole.size):
        if whole[i] == n:
            seen[0] = n
    for i in range(take.size):
        k = take[i]
        if k < n:
            seen[g[n - k]] = n


@numba.njit(cache=True, inline="always")
def mark_split(g, m, distinct, seen, stamp):
    """seen[G(a) xor G(m - a)] = stamp for every split of m into two nonempty heaps."""
    for a in range(1, m // 2 + 1):
        b = m - a
        if distinct and a == b:
            continue
        seen[g[a] ^ g[b]] = stamp


@numba.njit(cache=True, inline="always")
def _mark_pairs(g, n, split2, distinct, seen):
    """Every split into two nonempty heaps, in full (the quadratic part of the plain loop)."""
    for i in range(split2.size):
        mark_split(g, n - split2[i], distinct, seen, n)


@numba.njit(cache=True)
def pair_bits(g, s, out):
    """The set {G(b) xor G(s - b) : 1 <= b < s} as a bitset in ``out`` (words of 64 values)."""
    out[:] = 0
    for b in range(1, s // 2 + 1):
        x = g[b] ^ g[s - b]
        out[x >> 6] |= np.uint64(1) << np.uint64(x & 63)


@numba.njit(cache=True)
def _mark_triples(g, n, split3, pairs, by_value, seen):
    """Every split into three nonempty heaps a + b + c. The options are G(a) xor x for x in the
    pair set of b + c; heaps a of equal value share one union of pair sets, so the cost is a
    union per heap a and one sweep per distinct value, not a sweep per (a, b)."""
    words = pairs.shape[1]
    top = seen.size // 2  # every value is below this
    for i in range(split3.size):
        m = n - split3[i]
        if m < 3:
            continue
        by_value[:, :] = 0
        for a in range(1, m - 1):
            row = by_value[g[a]]
            other = pairs[m - a]
            for w in range(words):
                row[w] |= other[w]
        for y in range(top):
            row = by_value[y]
            for w in range(words):
                bits = row[w]
                while bits:
                    seen[y ^ (w * 64 + int(trailing_zeros(bits)))] = n
                    bits &= bits - np.uint64(1)


@numba.njit(cache=True)
def plain_sweep(g, n0, n1, whole, take, split2, split3, distinct, seen, pairs, by_value, limit):
    """G(n) for n0 <= n < n1 by the definition: every option marked, then the mex.

    Returns the first heap not solved: n1, or earlier when a value reached half of
    ``seen`` (the arrays must grow) or would exceed ``limit`` (the dtype of ``g``)."""
    half = seen.size // 2
    for n in range(n0, n1):
        _mark_single(g, n, whole, take, seen)
        _mark_pairs(g, n, split2, distinct, seen)
        if split3.size:
            _mark_triples(g, n, split3, pairs, by_value, seen)
        v = 0
        while seen[v] == n:
            v += 1
        if v > limit:
            return n
        g[n] = v
        if split3.size and n < pairs.shape[0]:
            pair_bits(g, n, pairs[n])  # the pair set of n, for the triples of larger heaps
        if v >= half:
            return n + 1
    return n1


WINDOW = 4096  # recent heaps whose values are counted, to guess which values a partner heap has
FIRST = 32  # heaps remembered per value (the first ones)
TRIED = 24  # commonest recent values tried as partners of each missing rare value
SMALL = 16  # heaps tried as partners in order before the value index is asked
RANDOM_COST = 16  # a partner tried by value reads a heap out of order and tests it: counted as so many marks in order
SCAN_BLOCK = 128  # splits marked between counts of the missing values
TRIAL = 1 << 10  # heaps of a trial of searching by value against not, every TRIAL * 16 heaps


@numba.njit(cache=True)
def index_values(g, n, first, count, recent, order):
    """The value index of the sparse loop for heaps below n: ``first[w]``, the first heaps of value
    w (``count[w]`` of them); ``recent[w]``, how often w occurs among the last WINDOW heaps;
    ``order``, the values by that count, commonest first."""
    count[:] = 0
    recent[:] = 0
    for a in range(1, n):
        w = g[a]
        if count[w] < first.shape[1]:
            first[w, count[w]] = a
            count[w] += 1
    for a in range(max(1, n - WINDOW), n):
        recent[g[a]] += 1
    order[:] = np.argsort(-recent)


@numba.njit(cache=True, inline="always")
def _note_value(g, n, first, count, recent, order):
    """Heap n is solved: the index learns its value (heap 0 is never a part of a split)."""
    w = g[n]
    if n > 0 and count[w] < first.shape[1]:
        first[w, count[w]] = n
        count[w] += 1
    recent[w] += 1
    if n > WINDOW:
        recent[g[n - WINDOW]] -= 1
    if n & 1023 == 0:
        order[:] = np.argsort(-recent)


@numba.njit(cache=True, inline="always")
def _try_pair(g, n, k, a, w, distinct, seen, par, q, c):
    """Mark the option of splitting heap n - k into a (of value w) and the rest; 1 if it was a
    rare value below c not marked before."""
    m = n - k
    if a < 1 or a >= m or (distinct and 2 * a == m):
        return 0
    x = w ^ g[m - a]
    if x < c and seen[x] != n:
        seen[x] = n
        if par[x] == q:
            return 1
    return 0


@numba.njit(cache=True, inline="always")
def _unmarked(n, seen, want, k):
    """Drop from want[:k] the values now marked for heap n; returns how many stay."""
    j = 0
    while j < k:
        if seen[want[j]] == n:
            k -= 1
            want[j] = want[k]
        else:
            j += 1
    return k


@numba.njit(cache=True)
def _scan_pairs(g, n, split2, distinct, seen, want, k, low, high):
    """Mark the splits a + b with low <= a <= min(high, b) of every split size, until none of the
    values want[:k] is missing. Returns (how many stay missing, splits looked at).

    The splits are marked a block at a time without a test per split (a mark of any value is a
    true option of n), and the values still missing are looked at after each block: a branch
    per split cost more than the marks it spared."""
    steps = 0
    for s in range(split2.size):
        m = n - split2[s]
        top = min(high, (m - 1) // 2 if distinct else m // 2)
        a = low
        while a <= top:
            end = min(top, a + SCAN_BLOCK - 1)
            for x in range(a, end + 1):
                seen[g[x] ^ g[m - x]] = n
            steps += end - a + 1
            a = end + 1
            k = _unmarked(n, seen, want, k)
            if k == 0:
                return 0, steps
    return k, steps


@numba.njit(cache=True)
def _scan_partners(g, n, split2, distinct, seen, want, k, partners):
    """Mark the splits off the heaps ``partners`` (common heaps of many values, see
    ``RareSplit.partners``), a block at a time, until none of want[:k] is missing. Used only
    where every partner is a legal part of every split, so the loop tests nothing per split.
    Returns (how many stay missing, splits looked at)."""
    heaps, values, largest = partners
    steps = 0
    for s in range(split2.size):
        m = n - split2[s]
        if largest > ((m - 1) // 2 if distinct else m // 2):
            continue
        i = 0
        while i < heaps.size:
            end = min(heaps.size, i + SCAN_BLOCK)
            for t in range(i, end):
                seen[values[t] ^ g[m - heaps[t]]] = n
            steps += end - i
            i = end
            k = _unmarked(n, seen, want, k)
            if k == 0:
                return 0, steps
    return k, steps


@numba.njit(cache=True)
def _by_value(g, n, split2, distinct, seen, par, q, c, missing, rares, index):
    """Partners by value: a rare value v comes from two common heaps a and b with G(a) xor G(b)
    = v; b near n has one of the values commonest lately, u, so the first heaps a of value
    u xor v are tried. Any a is a legal split of n - k, so a miss costs only time. Returns
    (how many stay missing, partners tried)."""
    first, count, recent, order = index
    tried = 0
    for j in range(rares.size):
        v = rares[j]
        if v >= c:
            break
        for t in range(min(TRIED, order.size)):
            if seen[v] == n or recent[order[t]] == 0:
                break
            w = order[t] ^ v
            for i in range(count[w]):
                for s in range(split2.size):
                    missing -= _try_pair(g, n, split2[s], first[w, i], w, distinct, seen, par, q, c)
                tried += split2.size
                if seen[v] == n:
                    break
        if missing == 0:
            break
    return missing, tried


@numba.njit(cache=True)
def _search_rare(g, n, split2, distinct, seen, par, q, c, missing, rares, index, partners, by_value):
    """Look for the rare values below the common mex ``c`` that no rare heap produced: among
    the splits off the SMALL smallest heaps, where values are small and often suffice; then
    off the ``partners`` (``_scan_partners``); then, if ``by_value``, by value (``_by_value``);
    then among all splits in order. Returns (how many stay missing, work done): when some stay
    missing, the mex is rare, which happens only at rare heaps, so the full scan is paid rarely."""
    want = np.empty(missing, dtype=np.int64)
    k = 0
    for j in range(rares.size):
        if rares[j] >= c:
            break
        if seen[rares[j]] != n:
            want[k] = rares[j]
            k += 1
    k, work = _scan_pairs(g, n, split2, distinct, seen, want, k, 1, SMALL)
    if k:
        k, steps = _scan_partners(g, n, split2, distinct, seen, want, k, partners)
        work += steps
    if k and by_value:
        _, tried = _by_value(g, n, split2, distinct, seen, par, q, c, k, rares, index)
        work += RANDOM_COST * tried
        k = _unmarked(n, seen, want, k)
    if k:
        k, steps = _scan_pairs(g, n, split2, distinct, seen, want, k, SMALL + 1, n)
        work += steps
    return k, work


@numba.njit(cache=True, inline="always")
def _by_value_now(n, trial):
    """Whether to search partners by value at heap n. The search pays in some games (Grundy's
    game, .376: values of far-apart heaps) and not in others (.16: small values, found in
    order at once), so it is tried: in the first TRIAL heaps of every 16 TRIAL, half the heaps
    (drawn by a hash of n, since odd and even heaps often differ) search by value and the
    others do not, the work of each is added up (``trial[1]`` without,
    ``trial[2]`` with), and the cheaper way (``trial[0]``) holds until the next trial."""
    phase = n & (16 * TRIAL - 1)
    if phase == TRIAL:
        trial[0] = 1 if trial[2] < trial[1] else 0
        trial[1] = trial[2] = 0
    if phase < TRIAL:
        return ((n * 2654435761) >> 16) & 1
    return trial[0]


@numba.njit(cache=True)
def sparse_sweep(g, n0, n1, whole, take, split2, distinct, split, rare, n_rare, seen, index, partners, trial, limit):
    """G(n) for n0 <= n < n1 by the sparse-space method (Winning Ways ch. 4, "Sparse space
    spells speed"; Gangolli and Plambeck 1989; Flammenkamp).

    ``split`` is (par, values0, values1, by_position, parity_heap): ``par[v]`` is the parity of
    v AND the mask, and a heap x is rare when par[G(x)], XORed with the parity of x -
    parity_heap if by_position, is 0. For heap n the same test on a value v says whether v would
    make n rare ("rare for n") or common. A split a + b gives a value common for n only if
    exactly one of a, b is rare (parity is linear in XOR, and all split sizes have the parity of
    parity_heap when by_position), so pairing each rare heap in ``rare[:n_rare]`` (ascending)
    with its partner marks every common option: the least common value not marked, c, is exact.
    G(n) is c unless a rare value below c is missing, which ``_search_rare`` settles. values0
    and values1 are the values with par 0 and 1 in ascending order, each reaching past every
    possible option. ``index`` is the value index of ``index_values``; ``partners`` (heaps,
    their values, the largest heap) those of ``_scan_partners``; ``trial`` the state of
    ``_by_value_now``.

    Returns (first heap not solved, rare heaps now listed): n1, or earlier when ``rare`` is full,
    a value reached half of ``seen`` or would exceed ``limit``.
    """
    par, values0, values1, by_position, parity_heap = split
    first, count, recent, order = index
    half = seen.size // 2
    for n in range(n0, n1):
        if n_rare == rare.size:
            return n, n_rare
        q = by_position & ((n - parity_heap) & 1)
        _mark_single(g, n, whole, take, seen)
        for i in range(split2.size):
            m = n - split2[i]
            for j in range(n_rare):
                r = rare[j]
                if r >= m:
                    break
                b = m - r
                if distinct and b == r:
                    continue
                seen[g[r] ^ g[b]] = n
        common = values1 if q == 0 else values0
        rares = values0 if q == 0 else values1
        j = 0
        while seen[common[j]] == n:
            j += 1
        c = common[j]
        missing = 0
        for j in range(rares.size):
            if rares[j] >= c:
                break
            if seen[rares[j]] != n:
                missing += 1
        by_value = _by_value_now(n, trial)
        if missing:
            missing, work = _search_rare(g, n, split2, distinct, seen, par, q, c, missing, rares, index, partners,
                                         by_value)
            if n & (16 * TRIAL - 1) < TRIAL:
                trial[1 + by_value] += work
        if missing:
            for j in range(rares.size):
                if seen[rares[j]] != n:
                    c = rares[j]
                    break
        if c > limit:
            return n, n_rare
        g[n] = c
        _note_value(g, n, first, count, recent, order)
        if par[c] == q and n > 0:  # heap 0 is never a part of a split
            rare[n_rare] = n
            n_rare += 1
        if c >= half:
            return n + 1, n_rare
    return n1, n_rare
