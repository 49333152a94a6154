"""A segment of the probe index made from rows or values in memory: what a build's workers hold.

``segment_of_rows``: a part's solved rows (sorted by key, or put so), each
figure coded by what the part holds; ``segment_of_values``: a range of a
dense impartial table's keys from the values held in key order, its two or
three fields coded in one compiled pass. Both check what the index's rules
derive (an outcome from the Grundy value, a remoteness's parity) before they
leave it out.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from tablebase.errors import StoreError
from tablebase.jit import njit
from tablebase.lazy import np, pa, pc
from tablebase.probe.format import (
    DERIVED,
    HALVED,
    LISTED,
    OFFSET,
    OUTCOME_OF_GRUNDY,
    STORED,
    Figure,
    bits_for,
)
from tablebase.probe_writer.fields import Coded, code_values
from tablebase.probe_writer.segment_bytes import encode_segment
from tablebase.probe_writer.stored_figures import DENSE_SHARE


def segment_of_rows(rows: pa.Table, figures: Sequence[Figure]) -> tuple[int, int, bytes]:
    """The segment of a part's rows (sorted by key): (first key, last key, its bytes). Dense where the
    keys fill most of their range, else sparse."""
    keys = rows.column("key").to_numpy()
    if not len(keys):
        raise StoreError("a segment needs rows")
    if len(keys) > 1 and not (np.diff(keys) > 0).all():  # a span of levels is sorted by level, then key
        rows = rows.sort_by("key")
        keys = rows.column("key").to_numpy()
    first, last = int(keys[0]), int(keys[-1])
    if first < 0 or (len(keys) > 1 and not (np.diff(keys) > 0).all()):
        raise StoreError("a segment's keys must be ascending and not negative")
    dense = len(keys) >= DENSE_SHARE * (last - first + 1)
    stored = [f for f in figures if f.source == STORED]
    _check_derived(rows, figures)
    fields = []
    for f in sorted(stored, key=lambda f: f.field):
        values = rows.column(f.name)
        if f.rule == HALVED:
            values = pc.shift_right(values.cast(pa.int64()), 1)
        coded = code_values(values, f.type, f.unsigned)
        if dense:
            coded.codes = _spread(coded.codes, keys, first, last)
        fields.append(coded)
    present = None
    if dense and len(keys) != last - first + 1:
        present = np.zeros(last - first + 1, dtype=bool)
        present[keys - first] = True
    data = encode_segment(first, last, fields, [f.unsigned for f in sorted(stored, key=lambda f: f.field)],
                          keys=None if dense else keys, present=present)
    return first, last, data


def _spread(codes: np.ndarray, keys: np.ndarray, first: int, last: int) -> np.ndarray:
    """Codes of the keys given, placed at their slots of a dense range (the others 0)."""
    if len(keys) == last - first + 1:
        return codes
    out = np.zeros(last - first + 1, dtype=np.uint64)
    out[keys - first] = codes
    return out


def _check_derived(rows: pa.Table, figures: Sequence[Figure]) -> None:
    """The rows hold what the rules derive: an outcome from the Grundy value, a remoteness's parity."""
    names = [f.name for f in figures]
    for f in figures:
        if f.rule == OUTCOME_OF_GRUNDY and f.source == DERIVED:
            grundy = rows.column(names[f.reads])
            said = pc.if_else(pc.equal(grundy, 0), "P", "N")
            if not pc.all(pc.equal(rows.column(f.name).cast(pa.string()), said)).as_py():
                raise StoreError(f"column {f.name}: not the outcome its Grundy value gives")
        if f.rule == HALVED and f.source == STORED:
            odd = pc.equal(pc.bit_wise_and(rows.column(f.name).cast(pa.int64()), 1), 1)
            won = pc.not_equal(rows.column(names[f.reads]), 0)
            if not pc.all(pc.equal(odd, won)).as_py():
                raise StoreError(f"column {f.name}: odd where the position is not won")


def segment_of_values(first: int, grundy: np.ndarray, remoteness: np.ndarray, misere: np.ndarray | None = None,
                      present: np.ndarray | None = None, unsigned: Sequence[bool] = (True, True, True)) -> bytes:
    """The dense segment of an impartial table's keys ``first`` on, from the values held in key order: the
    fields ``impartial_rules`` leaves stored, in the rows' order (the Grundy value, the misère outcome where
    the game has one, from ``misere``: True where the mover wins, and the remoteness halved). ``present``
    marks the keys that are positions (None: all); ``unsigned``: each field's figure's flag."""
    last = first + len(grundy) - 1
    bounds = np.zeros(4, dtype=np.int64)
    if not _bounds(grundy, remoteness, np.ones(0, np.bool_) if present is None else present, bounds):
        raise StoreError(f"keys {first} to {last}: a remoteness whose parity is not the outcome's")
    g_low, g_high, r_low, r_high = bounds.tolist()
    fields = [Coded(np.zeros(0, np.uint64), OFFSET, bits_for(g_high - g_low + 1), base=g_low)]
    if misere is not None:  # the texts N (the mover wins) and P, by their bytes
        fields.append(Coded(np.zeros(0, np.uint64), LISTED, 1, dictionary=MISERE_TEXTS, items=2))
    fields.append(Coded(np.zeros(0, np.uint64), OFFSET, bits_for(r_high - r_low + 1), base=r_low))
    records = np.empty(len(grundy), dtype=np.uint64)
    _side_by_side(grundy, remoteness, g_low, r_low, fields[0].width + len(fields) - 2, records)
    if misere is not None:
        records |= (~misere.astype(bool)).astype(np.uint64) << np.uint64(fields[0].width)
    return encode_segment(first, last, fields, list(unsigned)[: len(fields)], present=present, records=records)


MISERE_TEXTS = struct.pack("<3Q", 0, 1, 2) + b"NP"  # a text dictionary of N and P


@njit(cache=True, nogil=True)
def _bounds(grundy, remoteness, present, out):
    """The least and greatest Grundy value and halved remoteness of the positions; False if a remoteness's
    parity is not its outcome's (odd where the position is won)."""
    g_low, g_high, r_low, r_high = 1 << 62, -1, 1 << 62, -1
    for i in range(grundy.shape[0]):
        if present.shape[0] and not present[i]:
            continue
        g = np.int64(grundy[i])
        r = np.int64(remoteness[i])
        if (r & 1) != (g != 0):
            return False
        g_low, g_high = min(g_low, g), max(g_high, g)
        r_low, r_high = min(r_low, r >> 1), max(r_high, r >> 1)
    if g_high < 0:
        g_low = g_high = r_low = r_high = 0
    out[0], out[1], out[2], out[3] = g_low, g_high, r_low, r_high
    return True


@njit(cache=True, nogil=True)
def _side_by_side(grundy, remoteness, g_low, r_low, r_at, out):
    """Each key's Grundy code at bit 0 and halved remoteness's at ``r_at``; a key that is no position (below
    the least) as 0."""
    for i in range(grundy.shape[0]):
        g = max(np.int64(grundy[i]) - g_low, 0)
        r = max((np.int64(remoteness[i]) >> 1) - r_low, 0)
        out[i] = np.uint64(g) | (np.uint64(r) << np.uint64(r_at))


