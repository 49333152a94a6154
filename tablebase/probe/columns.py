"""Many probes at once with numpy: keys in an array, figures in columns.

A record of up to 33 bits is read for every key with one gather of 64-bit
words that start every 4 bytes (so the record never straddles two); a
wider one from two aligned words. A figure's values are tabled by code once
(for a table of records by whole tuple, by the tuple's code), so a batch
costs one gather in the records and one small gather per figure. Texts stay
codes into their dictionary until asked for: a column of ten million
Python strings costs more than everything before it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tablebase.lazy import np
from tablebase.probe.format import (
    BOOLEAN,
    COUNT,
    DENSE,
    DICTIONARY,
    FLOAT,
    HAS_NULLS,
    KEYS,
    LISTED,
    NONE,
    RAW,
    RECORD_DICTIONARY,
    RECORDS,
    TEXT,
    UNSIGNED,
    Figure,
    Section,
)
from tablebase.threads import in_parts

ONE_GATHER = 33  # records of at most this many bits are read with one gather (a shift of up to 31 bits)


class Bits:
    """A section's bit string, read as fields for many bit offsets at once."""

    def __init__(self, data: Any, section: Section) -> None:
        start = section.offset + COUNT.size
        available = section.length - COUNT.size + (-section.length % 8) + 8  # the file's tail included
        # Words starting every 4 bytes: a field of at most 33 bits at any bit lies in the word of its
        # bit // 32. The constructor checks that they stay inside the mapping.
        self.quarter = np.ndarray(shape=((available - 8) // 4 + 1,), dtype="<u8", buffer=data, offset=start,
                                  strides=(4,))
        self.words = np.ndarray(shape=(available // 8,), dtype="<u8", buffer=data, offset=start)
        self._data, self._start, self._available = data, start, available
        self._whole: dict[int, np.ndarray] = {}

    def records(self, slots: np.ndarray, width: int) -> np.ndarray:
        """The ``width``-bit records in ``slots`` (int64 slots; unsigned values, uint64 or narrower): of a
        whole number of bytes (8, 16 or 32 bits), one gather from the section seen as an array of that
        type, in that type, a third of the time of the shifts and masks of any other width."""
        if width not in (8, 16, 32):
            return self.fields(slots * width, width)
        if width not in self._whole:
            self._whole[width] = np.ndarray(shape=(self._available * 8 // width,), dtype=f"<u{width // 8}",
                                            buffer=self._data, offset=self._start)
        return self._whole[width][slots]

    def fields(self, bits: np.ndarray, width: int) -> np.ndarray:
        """The ``width``-bit fields starting at bit ``bits`` (int64), least significant bit first."""
        mask = np.uint64((1 << width) - 1)
        if width <= ONE_GATHER:
            # Indexing, not np.take: take copies an array that is not contiguous first, and these
            # overlapping words are the whole records section (Chomp 17x17's: 11.6 GB, 13 s a batch).
            # In place after the gather: a batch of millions spends as much making arrays as reading.
            at = bits >> 5
            value = self.quarter[at]
            np.bitwise_and(bits, 31, out=at)
            value >>= at.view(np.uint64)
            value &= mask
            return value
        at = bits >> 6
        shift = (bits & 63).astype(np.uint64)
        value = np.take(self.words, at) >> shift
        over = np.flatnonzero(shift > np.uint64(64 - width))  # the field goes on in the next word
        if len(over):
            value[over] |= (np.take(self.words, at[over] + 1) << np.uint64(1)) << (np.uint64(63) - shift[over])
        return value & mask


class Arrays:
    """What a batch needs of one index, made once: its sections as arrays, each figure's values by code."""

    def __init__(self, index: Any) -> None:
        h = self.header = index.header
        self.index = index
        self.records = Bits(index.data, h.section(RECORDS))
        self.keys = None
        if h.layout != DENSE:
            self.keys = np.frombuffer(index.data, dtype=f"<u{h.key_bytes}", count=h.slots,
                                      offset=h.section(KEYS).offset + COUNT.size)
        self.texts = {f.name: np.array(index.dictionary(f) + [None], dtype=object) for f in h.figures
                      if f.type == TEXT}
        self.values = [self._values(f) for f in h.figures]
        self.by_entry: list[tuple[np.ndarray, np.ndarray | None]] = []  # (values, nulls) of each figure
        if h.records == DICTIONARY:
            # Each figure's value and null for each entry of the record dictionary: a probe then reads
            # one record code and gathers each figure by it.
            entries = Bits(index.data, h.section(RECORD_DICTIONARY))
            starts = np.arange(h.entries, dtype=np.int64) * h.entry_bits
            for figure, values in zip(h.figures, self.values):
                codes = entries.fields(starts + figure.offset, figure.width) if h.entries else np.zeros(0, np.uint64)
                self.by_entry.append(self._decoded(figure, values, codes))

    def probe(self, keys: np.ndarray) -> Columns:
        """The figures of ``keys``. A large batch is probed in parts, one a core, on threads
        (``threads.in_parts``): a random key of an index of gigabytes waits on memory, and numpy's gathers
        let go of the interpreter's lock."""
        keys = np.asarray(keys)
        if keys.dtype.kind not in "iu":
            raise TypeError(f"keys must be integers, not {keys.dtype}")
        keys = keys.astype(np.int64, copy=False).ravel()
        parts = in_parts(len(keys), lambda a, b: self._probe_part(keys[a:b]))
        if len(parts) == 1:
            return Columns(*parts[0], self.texts)
        found = np.concatenate([part[0] for part in parts])
        out = {name: _joined([part[1][name] for part in parts]) for name in parts[0][1]}
        return Columns(found, out, self.texts)

    def _probe_part(self, keys: np.ndarray) -> tuple[np.ndarray, dict[str, tuple[np.ndarray, np.ndarray | None]]]:
        """Whether each key is stored, and each figure's values and null marks (None: no nulls)."""
        h = self.header
        slots, found = self._slots(keys)
        out: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
        if h.records == DICTIONARY:
            codes = self.records.records(slots, h.record_bits)
            if h.absent != NONE:
                found &= codes != np.uint64(h.absent)
            found &= codes < np.uint64(h.entries)  # a damaged code reads as no position
            if not found.all():
                codes = np.where(found, codes, np.zeros(1, codes.dtype))
            if codes.dtype == np.uint64:  # every code is now below ``entries``: the same bits as an index
                codes = codes.view(np.intp)
            for figure, (values, nulls) in zip(h.figures, self.by_entry):
                out[figure.name] = (values[codes] if len(values) else np.zeros(len(codes), values.dtype),
                                    None if nulls is None else nulls[codes])
            return found, out
        if h.record_bits <= 64:
            record = self.records.records(slots, h.record_bits)
            fields = [record >> np.uint64(f.offset) & np.uint64((1 << f.width) - 1) for f in h.figures]
        else:
            bits = slots * h.record_bits
            fields = [self.records.fields(bits + f.offset, f.width) for f in h.figures]
        if h.absent != NONE and fields:
            found &= fields[0] != np.uint64(h.absent)
        everywhere = bool(found.all())
        for figure, values, codes in zip(h.figures, self.values, fields):
            out[figure.name] = self._decoded(figure, values, codes if everywhere else np.where(found, codes, 0))
        return found, out

    def _slots(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each key's slot (0 where it has none) and whether it has one."""
        h = self.header
        if self.keys is None:
            found = (keys >= 0) & (keys < h.slots)
            return (keys if found.all() else np.where(found, keys, 0)), found
        if not h.slots:
            return np.zeros(len(keys), dtype=np.int64), np.zeros(len(keys), dtype=bool)
        top = np.iinfo(self.keys.dtype).max
        inside = (keys >= 0) & (keys <= top)
        wanted = np.where(inside, keys, 0).astype(self.keys.dtype)
        at = np.minimum(np.searchsorted(self.keys, wanted), h.slots - 1)
        found = inside & (self.keys[at] == wanted)
        return np.where(found, at, 0), found

    def _values(self, figure: Figure) -> tuple[np.ndarray, np.ndarray | None] | None:
        """A figure's values and null marks by code, tabled for every code its width allows where that is
        small (a code past its dictionary, which only damage makes, is null there); else None, and they
        are computed from codes. A text's values are its codes into ``texts`` (None last)."""
        if figure.width > 16 and figure.encoding != LISTED:
            return None
        size = 1 << figure.width if figure.width <= 16 else None
        if figure.type == TEXT:
            count = len(self.texts[figure.name]) - 1
            values = np.arange(count, dtype=np.int32)
        elif figure.encoding == LISTED:
            kind = np.float64 if figure.type == FLOAT else bool if figure.type == BOOLEAN else \
                np.uint64 if figure.flags & UNSIGNED else np.int64
            values = narrow(np.array(self.index.dictionary(figure), dtype=kind))
        else:
            values = narrow(self._offsets(figure, np.arange(size, dtype=np.uint64)))
        if size is None:
            return values, None
        nulls = np.zeros(size, dtype=bool)
        nulls[len(values):] = True
        if figure.flags & HAS_NULLS and figure.null < size:
            nulls[figure.null] = True
        padded = np.zeros(size, dtype=values.dtype)
        padded[: len(values)] = values[:size]
        if figure.type == TEXT:
            padded[nulls] = len(values)  # the dictionary's last entry, None
        return padded, nulls if nulls.any() else None

    def _decoded(self, figure: Figure, tabled: tuple[np.ndarray, np.ndarray | None] | None,
                 codes: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Values and null marks of codes (None: no nulls)."""
        if tabled is not None and len(tabled[0]) == 1 << figure.width:
            values, nulls = tabled
            at = codes.astype(np.intp)
            return values[at], None if nulls is None else nulls[at]
        nulls = codes == np.uint64(figure.null) if figure.flags & HAS_NULLS else None
        if tabled is None:
            decoded = codes.view(np.float64) if figure.encoding == RAW else self._offsets(figure, codes)
            return decoded, nulls
        values = tabled[0]
        bad = codes >= np.uint64(len(values))  # a wide dictionary's code past its end: damage
        if bad.any():
            nulls = bad if nulls is None else nulls | bad
            codes = np.where(bad, 0, codes)
        decoded = values[codes.astype(np.intp)] if len(values) else np.zeros(len(codes), values.dtype)
        if figure.type == TEXT and nulls is not None:
            decoded[nulls] = len(values)
        return decoded, nulls

    @staticmethod
    def _offsets(figure: Figure, codes: np.ndarray) -> np.ndarray:
        """base + code, in the figure's type."""
        if figure.type == BOOLEAN:
            return codes + np.uint64(figure.base) == 1  # a boolean's base is 0 or 1
        if figure.flags & UNSIGNED:
            return codes + np.uint64(figure.base)
        return codes.astype(np.int64) + np.int64(figure.base)


def _joined(parts: list[tuple[np.ndarray, np.ndarray | None]]) -> tuple[np.ndarray, np.ndarray | None]:
    """One figure's values and null marks of consecutive parts, as one."""
    values = np.concatenate([v for v, _ in parts])
    if all(n is None for _, n in parts):
        return values, None
    return values, np.concatenate([np.zeros(len(v), bool) if n is None else n for v, n in parts])


def narrow(values: np.ndarray) -> np.ndarray:
    """Integers in the narrowest type that holds them all (gathers of narrow values are faster)."""
    if values.dtype.kind not in "iu" or not len(values):
        return values
    low, high = int(values.min()), int(values.max())
    for kind in (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32):
        if np.iinfo(kind).min <= low and high <= np.iinfo(kind).max:
            return values.astype(kind)
    return values


class Columns(Mapping):
    """The answer of a batch: ``found`` (a bool array), and each figure's column as a masked array (masked
    where the figure is null or the key not stored). Numbers come in the narrowest type that holds them;
    texts as objects, spelt when first asked for (``codes`` and ``dictionary`` give them as codes)."""

    def __init__(self, found: np.ndarray, columns: dict[str, tuple[np.ndarray, np.ndarray | None]],
                 texts: dict[str, np.ndarray]) -> None:
        self.found = found
        self._columns, self._texts = columns, texts
        self._spelt: dict[str, np.ma.MaskedArray] = {}
        self._missing = ~found if not found.all() else None

    def _mask(self, nulls: np.ndarray | None) -> Any:
        if nulls is None:
            return np.ma.nomask if self._missing is None else self._missing
        return nulls if self._missing is None else nulls | self._missing

    def codes(self, name: str) -> np.ma.MaskedArray:
        """A text figure's codes into ``dictionary(name)``."""
        values, nulls = self._columns[name]
        return np.ma.MaskedArray(values, mask=self._mask(nulls))

    def dictionary(self, name: str) -> np.ndarray:
        """A text figure's values in code order (an object array, None last)."""
        return self._texts[name]

    def __getitem__(self, name: str) -> Any:
        if name == "found":
            return self.found
        if name in self._texts:
            if name not in self._spelt:
                values, nulls = self._columns[name]
                self._spelt[name] = np.ma.MaskedArray(self._texts[name][values], mask=self._mask(nulls))
            return self._spelt[name]
        values, nulls = self._columns[name]
        return np.ma.MaskedArray(values, mask=self._mask(nulls))

    def __iter__(self) -> Iterator[str]:
        yield "found"
        yield from self._columns

    def __len__(self) -> int:
        return len(self._columns) + 1
