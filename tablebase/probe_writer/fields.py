"""A stored figure's values in one segment as codes: the narrowest coding of what the segment holds.

An integer or boolean becomes (value - least) in just enough bits, or the
number of its value in a dictionary of the segment's distinct values where
that is smaller; a text the number of its value among the segment's
distinct texts (sorted by their UTF-8 bytes); a float likewise, or its own
64 bits where it has too many values. Nulls take one more code, the last.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablebase.errors import StoreError
from tablebase.lazy import np, pa, pc
from tablebase.probe.format import (
    BOOLEAN,
    FLOAT,
    INTEGER,
    LISTED,
    NONE,
    OFFSET,
    RAW,
    TEXT,
    U64,
    bits_for,
)

FLOATS_LISTED = 1 << 20  # distinct floats a segment lists at most: past it, a float is its own 64 bits
RAW_NULL = 2**64 - 1  # a raw float's null: a NaN no arithmetic makes (a value with these bits is refused)


@dataclass
class Coded:
    """One field of a segment: every slot's code, and how codes become values."""

    codes: np.ndarray  # uint64, one a slot
    encoding: int
    width: int
    nulls: bool = False
    null: int = NONE
    base: int = 0
    dictionary: bytes = b""  # the field's dictionary section (encoding LISTED)
    items: int = 0


def figure_type(arrow: pa.DataType, name: str) -> int:
    """The figure type of a column's Arrow type; a StoreError for one a probe index cannot hold."""
    if pa.types.is_dictionary(arrow):
        arrow = arrow.value_type
    if pa.types.is_boolean(arrow):
        return BOOLEAN
    if pa.types.is_integer(arrow):
        return INTEGER
    if pa.types.is_floating(arrow):
        return FLOAT
    if pa.types.is_string(arrow) or pa.types.is_large_string(arrow):
        return TEXT
    raise StoreError(f"column {name!r} is of type {arrow}, which a probe index cannot hold")


def code_values(values: pa.Array | pa.ChunkedArray, of_type: int, unsigned: bool) -> Coded:
    """The codes of a column's values in one segment (``of_type``: the figure's type)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    nulls = values.null_count > 0
    mask = values.is_null().to_numpy(zero_copy_only=False) if nulls else None
    if of_type == TEXT:
        coded = _texts(values)
    elif of_type == FLOAT:
        bits = values.cast(pa.float64()).fill_null(0.0).to_numpy(zero_copy_only=False).astype(np.float64).view(
            np.uint64)
        coded = _floats(bits, mask)
    else:
        if pa.types.is_boolean(values.type):
            values = values.cast(pa.uint8())
        numbers = values.fill_null(0).to_numpy(zero_copy_only=False).astype(np.uint64 if unsigned else np.int64,
                                                                             copy=False)
        coded = code_integers(numbers, unsigned, mask)
        return coded
    return _with_nulls(coded, mask)


def code_integers(numbers: np.ndarray, unsigned: bool, mask: np.ndarray | None = None) -> Coded:
    """Integers (signed or not) as offsets from the least, or as a dictionary where that is smaller."""
    present = numbers if mask is None else numbers[~mask]
    if not len(present):
        return _with_nulls(Coded(np.zeros(len(numbers), np.uint64), OFFSET, 0), mask)
    low, high = int(present.min()), int(present.max())
    nulls = mask is not None
    span = high - low + 1
    offset_width = bits_for(span + nulls)
    distinct = _distinct(present, low, high)
    listed_width = bits_for(len(distinct) + nulls)
    n = len(numbers)
    if len(distinct) + nulls < span and n * listed_width + 64 * len(distinct) < n * offset_width:
        codes = np.searchsorted(distinct, numbers).astype(np.uint64)
        dictionary = distinct.astype("<u8" if unsigned else "<i8").tobytes()
        coded = Coded(codes, LISTED, listed_width, dictionary=dictionary, items=len(distinct))
    else:
        base = np.asarray(low).astype(numbers.dtype)
        codes = (numbers - base).astype(np.uint64)
        coded = Coded(codes, OFFSET, offset_width, base=low)
    return _with_nulls(coded, mask)


def _distinct(numbers: np.ndarray, low: int, high: int) -> np.ndarray:
    """The distinct values, ascending: marked in a count where their range is small, which beats sorting."""
    if high - low >= 1 << 20:
        return np.unique(numbers)
    base = np.asarray(low).astype(numbers.dtype)
    return np.flatnonzero(np.bincount((numbers - base).astype(np.intp))).astype(numbers.dtype) + base


def _texts(values: pa.Array) -> Coded:
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    present = values.drop_null()
    listed = pc.unique(present).to_pylist()
    texts = sorted(listed, key=lambda t: t.encode())  # UTF-8 byte order
    if not texts:
        texts = [""]
    codes = pc.index_in(values, value_set=pa.array(texts, pa.string())).fill_null(0).to_numpy(
        zero_copy_only=False).astype(np.uint64)
    encoded = [t.encode() for t in texts]
    ends = np.cumsum([0] + [len(t) for t in encoded], dtype=np.uint64)
    section = ends.astype("<u8").tobytes() + b"".join(encoded)
    return Coded(codes, LISTED, bits_for(len(texts)), dictionary=section, items=len(texts))


def _floats(bits: np.ndarray, mask: np.ndarray | None) -> Coded:
    present = bits if mask is None else bits[~mask]
    distinct = np.unique(present)
    if len(distinct) > FLOATS_LISTED:
        if mask is not None and (present == np.uint64(RAW_NULL)).any():
            raise StoreError("a float whose bits are those of the probe index's null")
        codes = bits.copy()
        if mask is not None:
            codes[mask] = RAW_NULL
        return Coded(codes, RAW, 64, nulls=mask is not None, null=RAW_NULL if mask is not None else NONE)
    if not len(distinct):
        distinct = np.zeros(1, dtype=np.uint64)
    codes = np.searchsorted(distinct, bits).astype(np.uint64)
    return Coded(codes, LISTED, bits_for(len(distinct)), dictionary=distinct.astype("<u8").tobytes(),
                 items=len(distinct))


def _with_nulls(coded: Coded, mask: np.ndarray | None) -> Coded:
    """Nulls, where there are any, as one more code: the last."""
    if mask is None or coded.encoding == RAW:
        return coded
    if coded.encoding == LISTED:
        codes_taken = coded.items
    else:
        codes_taken = int(coded.codes[~mask].max()) + 1 if (~mask).any() else 0
    coded.null = codes_taken
    coded.width = bits_for(codes_taken + 1)
    coded.codes = coded.codes.copy()
    coded.codes[mask] = coded.null
    coded.nulls = True
    return coded


def text_items(section: bytes, items: int) -> list[str]:
    """The texts of a text dictionary section (for tests and verify)."""
    offsets = [U64.unpack_from(section, 8 * i)[0] for i in range(items + 1)]
    start = 8 * (items + 1)
    return [section[start + a : start + b].decode() for a, b in zip(offsets, offsets[1:])]
