"""Bit strings of a segment: codes packed side by side, least significant bit first (docs/format.md).

The loops are compiled where numba is (a build always has it) and run as
Python otherwise, which is quick enough for the small segments of tests.
"""

from __future__ import annotations

from tablebase.jit import njit
from tablebase.lazy import np
from tablebase.probe.format import GROUP


@njit(cache=True, nogil=True)
def _pack(codes, widths, width, words):
    """Each code in ``widths[i]`` bits (or ``width`` bits each where ``widths`` is empty), one after another."""
    bit = 0
    for i in range(codes.shape[0]):
        w = widths[i] if widths.shape[0] else width
        if w == 0:
            continue
        code = codes[i]
        if w < 64:
            code &= (np.uint64(1) << np.uint64(w)) - np.uint64(1)
        word = bit >> 6
        shift = bit & 63
        words[word] |= code << np.uint64(shift)
        if shift + w > 64:
            words[word + 1] |= code >> np.uint64(64 - shift)
        bit += w
    return bit


def pack(codes: np.ndarray, width: int) -> bytes:
    """``codes`` as one bit string of ``width``-bit fields."""
    total = len(codes) * width
    words = np.zeros(total // 64 + 2, dtype=np.uint64)
    _pack(np.ascontiguousarray(codes, dtype=np.uint64), np.zeros(0, dtype=np.uint8), width, words)
    return words.astype("<u8", copy=False).tobytes()[: -(-total // 8)]


def two_widths(codes: np.ndarray, short: int, long: int, longs: int) -> tuple[bytes, bytes, bytes]:
    """The marks, counts and codes sections of coding *two widths*: a code below 2**short in ``short``
    bits, any other in ``long`` bits (``longs`` of them)."""
    n = len(codes)
    marks = np.zeros(-(-n // 64) + 1, dtype=np.uint64)
    counts = np.zeros(-(-n // GROUP), dtype=np.uint64)
    total = (n - longs) * short + longs * long
    words = np.zeros(total // 64 + 2, dtype=np.uint64)
    _two_widths(np.ascontiguousarray(codes, dtype=np.uint64), short, long, marks, counts, words)
    return (marks.astype("<u8", copy=False).tobytes()[: 8 * -(-n // 64)],
            counts.astype("<u8", copy=False).tobytes(), words.astype("<u8", copy=False).tobytes()[: -(-total // 8)])


@njit(cache=True, nogil=True)
def _two_widths(codes, short, long, marks, counts, words):
    bit = 0
    before = 0
    limit = np.uint64(1) << np.uint64(short)
    for i in range(codes.shape[0]):
        if i % 512 == 0:
            counts[i // 512] = before
        code = codes[i]
        w = short
        if code >= limit:
            w = long
            before += 1
            marks[i >> 6] |= np.uint64(1) << np.uint64(i & 63)
        if w == 0:
            continue
        word = bit >> 6
        shift = bit & 63
        words[word] |= code << np.uint64(shift)
        if shift + w > 64:
            words[word + 1] |= code >> np.uint64(64 - shift)
        bit += w


def side_by_side(columns: list[np.ndarray], widths: list[int]) -> np.ndarray:
    """Each row's fields of these widths in one 64-bit number, the first field lowest (64 bits in all)."""
    out = np.zeros(len(columns[0]) if columns else 0, dtype=np.uint64)
    at = 0
    for column, width in zip(columns, widths):
        if width:
            out |= np.asarray(column, dtype=np.uint64) << np.uint64(at)
        at += width
    return out


def wide_records(columns: list[np.ndarray], widths: list[int]) -> bytes:
    """Records of more than 64 bits (fields of at most 64 each) as one bit string, a record after another."""
    n = len(columns[0])
    total = sum(widths)
    bits = np.zeros((n, total), dtype=np.uint8)
    at = 0
    for column, width in zip(columns, widths):
        if width:
            octets = np.ascontiguousarray(column, dtype="<u8").view(np.uint8).reshape(n, 8)
            bits[:, at : at + width] = np.unpackbits(octets, axis=1, bitorder="little")[:, :width]
        at += width
    return np.packbits(bits.reshape(-1), bitorder="little").tobytes()
