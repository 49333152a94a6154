"""The figures of a table's rows as codes: what each figure holds, surveyed, and how its values become codes.

A first pass over the table's files (``survey_file`` on each file, the
files' surveys merged) finds, for each figure, its type, whether it has
nulls, its least and greatest value and its distinct values (counted up
to a bound). ``Coding`` then turns a figure's
values into the smallest codes that tell them apart: an integer as
(value - least) in just enough bits, or an entry of the dictionary of its
distinct values where that is narrower; a float or a text as an entry of
its dictionary (a float as its own 64 bits if it has too many values);
one more code for null where there are nulls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tablebase.errors import StoreError
from tablebase.lazy import np, pa, pc
from tablebase.probe.format import (
    BOOLEAN,
    FLOAT,
    HAS_NULLS,
    INTEGER,
    LISTED,
    NONE,
    OFFSET,
    RAW,
    TEXT,
    UNSIGNED,
    bits_for,
)
from tablebase.store.probe.order import Source

NOT_FIGURES = ("key", "position", "level")  # the key; what the game spells or counts from it
INTEGERS_LISTED = 1 << 16  # distinct integers counted up to this: past it, an integer is stored by offset
FLOATS_LISTED = 1 << 20  # distinct floats listed up to this: past it, a float is stored as its 64 bits


def kind_of_column(name: str, kind: pa.DataType) -> int:
    """The figure type of a column's Arrow type; a StoreError for a type the index cannot hold."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if pa.types.is_boolean(kind):
        return BOOLEAN
    if pa.types.is_integer(kind):
        return INTEGER
    if pa.types.is_floating(kind):
        return FLOAT
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return TEXT
    raise StoreError(f"column {name!r} is of type {kind}, which a probe index cannot hold")


@dataclass
class Survey:
    """What one figure holds, over every row."""

    name: str
    type: int
    unsigned: bool = False
    nulls: bool = False
    least: int | None = None
    most: int | None = None
    #: distinct values (texts: strings; integers: ints; floats: their bits as uint64), None once too many
    distinct: set | np.ndarray | None = field(default=None)

    def add(self, values: pa.Array) -> None:
        self.nulls = self.nulls or values.null_count > 0
        if values.null_count == len(values):
            return
        if self.type == TEXT:
            seen = pc.unique(values)
            if pa.types.is_dictionary(seen.type):  # the values used, not the whole dictionary
                seen = seen.dictionary_decode()
            self.distinct = (self.distinct or set()) | {v for v in seen.to_pylist() if v is not None}
            return
        if self.type == FLOAT:
            self._take(0, 0, _float_bits(values.drop_null()))
            return
        low, high = pc.min_max(values).values()
        low, high = int(low.as_py()), int(high.as_py())
        counted = self.distinct is not None or self.least is None  # past the bound once, past it for good
        numbers = _integers(values.drop_null() if values.null_count else values, self.unsigned) if counted else None
        self._take(low, high, None if numbers is None else _distinct(numbers, low, high))

    def merge(self, other: Survey) -> None:
        """Take in another's survey of the same figure over other rows."""
        self.nulls = self.nulls or other.nulls
        if other.least is None and other.distinct is None:  # it saw no values
            return
        if self.type == TEXT:
            self.distinct = (self.distinct or set()) | (other.distinct or set())
            return
        self._take(other.least, other.most, other.distinct)

    def _take(self, low: int, high: int, distinct: np.ndarray | None) -> None:
        """Take in values from ``low`` to ``high`` (a float's: 0 and 0), these distinct ones (None: too many)."""
        seen = self.least is not None
        self.least = low if not seen else min(self.least, low)
        self.most = high if not seen else max(self.most, high)
        bound = FLOATS_LISTED if self.type == FLOAT else INTEGERS_LISTED
        self.distinct = None if distinct is None else _union(self.distinct, distinct, bound, not seen)


def _union(known: np.ndarray | None, more: np.ndarray, bound: int, first: bool) -> np.ndarray | None:
    """The distinct values so far and these, or None once past ``bound`` (and for good)."""
    if known is None and not first:
        return None
    merged = np.unique(more) if known is None else np.union1d(known, more)
    return merged if len(merged) <= bound else None


def _distinct(numbers: np.ndarray, low: int, high: int) -> np.ndarray:
    """The distinct values of integers from ``low`` to ``high``, ascending: marked in a count where their
    range is small (Grundy values, remoteness), which is many times quicker than sorting them."""
    if high - low >= 1 << 20:
        return np.unique(numbers)
    base = np.asarray(low).astype(numbers.dtype)
    return (np.flatnonzero(np.bincount((numbers - base).astype(np.intp))).astype(numbers.dtype) + base)


def _integers(values: pa.Array, unsigned: bool) -> np.ndarray:
    if pa.types.is_boolean(values.type):
        values = values.cast(pa.uint8())
    return values.to_numpy(zero_copy_only=False).astype(np.uint64 if unsigned else np.int64, copy=False)


def _float_bits(values: pa.Array) -> np.ndarray:
    return values.cast(pa.float64()).to_numpy(zero_copy_only=False).astype(np.float64).view(np.uint64)


def blank_surveys(sources: list[Source], schema: pa.Schema) -> list[Survey]:
    """Each figure's survey before any row is read: the table's figures, its keys checked."""
    names = [f.name for f in schema if f.name not in NOT_FIGURES]
    if "key" not in schema.names:
        raise StoreError("the table's files have no key column")
    if not names:
        raise StoreError("the table's rows have no figures to index")
    least = min((s.least for s in sources if s.rows), default=0)
    if least < 0:
        raise StoreError(f"keys must not be negative for a probe index (found {least})")
    return [Survey(f.name, kind_of_column(f.name, f.type), unsigned=pa.types.is_unsigned_integer(f.type))
            for f in schema if f.name in names]


def survey_file(blank: list[Survey], source: Source, done: Callable[[int], None]) -> list[Survey]:
    """Each figure's survey over one file's rows (``done`` hears the rows as they are read)."""
    figures = [Survey(f.name, f.type, unsigned=f.unsigned) for f in blank]
    texts = [f.name for f in figures if f.type == TEXT]
    for batch in source.batches([f.name for f in figures], texts):
        for figure in figures:
            figure.add(batch.column(figure.name))
        done(batch.num_rows)
    return figures


RAW_NULL = 2**64 - 1  # a raw float's null: a NaN whose bits no arithmetic makes (a value with them is refused)


@dataclass
class Coding:
    """How one figure's values become codes: the figure's header fields, and its dictionary if any."""

    name: str
    type: int
    encoding: int
    codes: int  # how many codes it takes, the null's included
    base: int = 0
    nulls: bool = False  # the last code (a raw float: RAW_NULL) means null
    unsigned: bool = False
    #: the dictionary, in code order: texts (an Arrow array), integers (int64/uint64), floats (their bits)
    dictionary: pa.Array | np.ndarray | None = None
    _last: tuple[pa.Array, np.ndarray] | None = field(default=None, repr=False, compare=False)

    @property
    def null(self) -> int:
        """The code of a null (NONE if the figure has none)."""
        if not self.nulls:
            return NONE
        return RAW_NULL if self.encoding == RAW else self.codes - 1

    @property
    def flags(self) -> int:
        return (HAS_NULLS if self.nulls else 0) | (UNSIGNED if self.unsigned else 0)

    @property
    def width(self) -> int:
        return 64 if self.encoding == RAW else bits_for(self.codes)

    def encode(self, values: pa.Array) -> np.ndarray:
        """The codes of a column of this figure's values (uint64)."""
        nulls = values.is_null().to_numpy(zero_copy_only=False) if values.null_count else None
        if self.type == TEXT:
            codes = self._text_codes(values)
        elif self.type == FLOAT:
            bits = _float_bits(values.fill_null(0.0) if nulls is not None else values)
            if self.encoding == RAW:
                if nulls is not None and (bits == np.uint64(RAW_NULL)).any():
                    raise StoreError(f"column {self.name!r}: a float whose bits are those of the index's null")
                codes = bits.copy()
            else:
                codes = np.searchsorted(self.dictionary, bits).astype(np.uint64)
        else:
            if nulls is not None:
                values = values.fill_null(False if pa.types.is_boolean(values.type) else self.base)
            numbers = _integers(values, self.unsigned)
            if self.encoding == LISTED:
                codes = np.searchsorted(self.dictionary, numbers).astype(np.uint64)
            else:
                codes = numbers.astype(np.uint64) - np.uint64(self.base % 2**64)
        if nulls is not None:
            codes[nulls] = self.null
        return codes

    def _text_codes(self, values: pa.Array) -> np.ndarray:
        """Texts as the places of their values in the (sorted) dictionary; nulls as 0, marked after.

        The texts of a file's row group come as indices into one dictionary, the same for each batch:
        its places are found once (``_mapped``), the batch's are then looked up."""
        if not pa.types.is_dictionary(values.type):
            return pc.index_in(values, value_set=self.dictionary).fill_null(0).to_numpy(
                zero_copy_only=False).astype(np.uint64)
        mapped = self._mapped(values.dictionary)
        indices = values.indices if not values.null_count else values.indices.fill_null(0)
        return mapped[indices.to_numpy(zero_copy_only=False)] if len(mapped) else np.zeros(len(values), np.uint64)

    def _mapped(self, texts: pa.Array) -> np.ndarray:
        """The places of these texts in the dictionary: of the last texts asked about, if they are equal."""
        last = self._last
        if last is not None and last[0].equals(texts):
            return last[1]
        mapped = pc.index_in(texts, value_set=self.dictionary).fill_null(0).to_numpy(
            zero_copy_only=False).astype(np.uint64)
        self._last = (texts, mapped)
        return mapped


def coding(s: Survey, slots: int) -> Coding:
    """The narrowest coding of a surveyed figure, a dictionary's bytes counted against the records'
    (``slots``: records in the index)."""
    null = 1 if s.nulls else 0
    if s.type == TEXT:
        listed = pa.array(sorted(s.distinct or ()), pa.string())  # code point order is UTF-8 byte order
        return Coding(s.name, TEXT, LISTED, len(listed) + null, nulls=s.nulls, dictionary=listed)
    if s.type == FLOAT:
        if s.distinct is None:
            return Coding(s.name, FLOAT, RAW, 0, nulls=s.nulls)
        return Coding(s.name, FLOAT, LISTED, len(s.distinct) + null, nulls=s.nulls, dictionary=s.distinct)
    if s.least is None:  # nothing but nulls
        return Coding(s.name, s.type, OFFSET, null, nulls=s.nulls, unsigned=s.unsigned)
    span = s.most - s.least + 1 + null
    listed = s.distinct is not None and len(s.distinct) + null < span and \
        slots * bits_for(len(s.distinct) + null) + 64 * len(s.distinct) < slots * bits_for(span)
    if listed:
        return Coding(s.name, s.type, LISTED, len(s.distinct) + null, nulls=s.nulls, unsigned=s.unsigned,
                      dictionary=s.distinct)
    return Coding(s.name, s.type, OFFSET, span, base=s.least, nulls=s.nulls, unsigned=s.unsigned)
