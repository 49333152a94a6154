"""Many probes at once with numpy: keys in an array, figures in columns.

Every key's segment is found by one search over the first keys; each
segment a batch touches is read and checked once (``ProbeIndex.segment``)
and its numbers tabled, so that the rest is gathers: each key's code from
its segment's records (or, in coding *two widths*, its mark, its group's
count and the marks before it), its tuple from the record dictionary, each
field from the tuple. Texts stay codes into a dictionary until asked for.
Records wider than 64 bits, rare, are read one by one.
"""

from __future__ import annotations

from typing import Any

from tablebase.jit import array_list, compile_if_installed, njit
from tablebase.lazy import np
from tablebase.probe.format import (
    BOOLEAN,
    DENSE,
    DERIVED,
    FLOAT,
    HALVED,
    LISTED,
    OFFSET,
    RAW,
    TEXT,
    damaged,
)
from tablebase.threads import in_parts

COMPILED_FROM = 10_000  # keys of a batch from which its loop is compiled (where numba is)
# Bytes of segments a batch touches from which its keys are decoded in segment order: past the caches, a key
# reads three places of a large file, which its neighbours in its segment then find cached.
GROUPED_FROM = 64 << 20
_EMPTY = np.zeros(1, dtype=np.uint64)  # the words of a segment file a batch does not touch
_EMPTY.setflags(write=False)  # of the type of a mapped file's words, as a compiled list of them must be
_ENTRY = np.dtype([("last", "<u8"), ("offset", "<u8"), ("length", "<u8"), ("file", "<u4"), ("crc", "<u4")])
_PARAMS = ["file", "first", "coding", "slots", "absent", "entries", "entry_bits", "long_bits", "short_bits",
           "records", "marks", "counts", "codes", "dictionary", "codes_bits", "dense", "wide"]


class Columns:
    """What ``probe_many`` gives: ``found`` (a bool array) and each figure as a masked array (``[name]``)."""

    def __init__(self, found: np.ndarray, values: dict[str, np.ma.MaskedArray],
                 texts: dict[str, tuple[np.ma.MaskedArray, list[str]]]) -> None:
        self.found, self._values, self._texts = found, values, texts

    def __getitem__(self, name: str) -> np.ma.MaskedArray:
        if name == "found":
            return self.found
        if name in self._texts:
            codes, dictionary = self._texts[name]
            table = np.array(dictionary + [None], dtype=object)
            return np.ma.array(table[codes.filled(len(dictionary))], mask=np.ma.getmaskarray(codes))
        return self._values[name]

    def codes(self, name: str) -> np.ma.MaskedArray:
        """A text figure's codes into ``dictionary(name)`` (masked where null or not found)."""
        return self._texts[name][0]

    def dictionary(self, name: str) -> list[str]:
        return self._texts[name][1]

    def __contains__(self, name: str) -> bool:
        return name in self._values or name in self._texts


class Arrays:
    """A probe index read for batches: its segments' numbers tabled as they are first touched."""

    def __init__(self, index: Any) -> None:
        self.index = index
        d = index.directory
        self.firsts = np.frombuffer(index.data, "<u8", d.segments, d.firsts)
        entries = np.frombuffer(index.data, _ENTRY, d.segments, d.entries)
        self.lasts, self.files = entries["last"], entries["file"].astype(np.int64)
        self.lengths = entries["length"]
        n = max(d.segments, 1)  # an index of no segments keeps one row of zeros, which no key reaches
        self.known = np.zeros(n, dtype=bool)
        self.params = {p: np.zeros(n, dtype=np.uint64) for p in _PARAMS}
        self.stored = d.stored
        count = len(d.stored)
        #: each field's numbers by segment, a row a field (the compiled loop reads them by segment)
        names = ("encoding", "width", "offset", "null", "items", "dictionary", "nulls", "base")
        self.fields = {p: np.zeros((count, n), dtype=np.uint64) for p in names}
        self.buffers: dict[int, np.ndarray] = {}
        self.shift: int | None = None  # the keys of a segment: 2**shift each, from 0 (else -1), once known

    def _table(self, segments: np.ndarray) -> None:
        """Read and check the segments not yet tabled, and table their numbers."""
        for i in segments[~self.known[segments]].tolist():
            s = self.index.segment(i).s
            p = self.params
            values = dict(file=self.files[i], first=s.first, coding=s.coding, slots=s.slots, absent=s.absent,
                          entries=s.entries, entry_bits=s.entry_bits, long_bits=s.long_bits,
                          short_bits=s.short_bits, records=s.records, marks=s.marks, counts=s.counts, codes=s.codes,
                          dictionary=s.dictionary, dense=s.layout == DENSE, wide=s.entry_bits > 64,
                          codes_bits=(s.slots - s.longs) * s.short_bits + s.longs * s.long_bits)
            for name, value in values.items():
                p[name][i] = value
            table = self.fields
            for j, (f, at) in enumerate(zip(s.fields, s.dictionaries)):
                table["encoding"][j, i], table["width"][j, i], table["offset"][j, i] = f.encoding, f.width, f.offset
                table["null"][j, i], table["items"][j, i], table["dictionary"][j, i] = f.null, f.items, at
                table["nulls"][j, i], table["base"][j, i] = f.nulls, f.base % 2**64
            self.known[i] = True

    def buffer(self, file: int) -> np.ndarray:
        """A segment file's bytes (a whole number of 64-bit words: every segment's length is)."""
        found = self.buffers.get(file)
        if found is None:
            data = self.index.file(file)
            if len(data) % 8:
                raise damaged(self.index.path, f"segment file {self.index.directory.names[file]} of {len(data)} bytes")
            found = self.buffers[file] = np.frombuffer(data, dtype=np.uint8)
        return found

    def probe(self, keys: Any) -> Columns:
        keys = np.asarray(keys)
        if len(keys) >= COMPILED_FROM:
            compile_if_installed()
        signed = np.ascontiguousarray(keys, dtype=np.int64)
        n = len(keys)
        seg = self._segments_of(signed)
        ok = seg >= 0
        if len(self.lasts):
            ok &= signed.view(np.uint64) <= self.lasts[np.maximum(seg, 0)]
        seg[~ok] = 0
        touched = np.flatnonzero(np.bincount(seg[ok], minlength=len(self.firsts)))
        self._table(touched)
        p = self.params
        slot = np.full(n, -1, dtype=np.int64)  # -1: the compiled loop counts it from the key (dense)
        for i in touched[p["dense"][touched] == 0].tolist():  # sparse: a search in each segment's keys
            mine = np.flatnonzero(ok & (seg == i))
            segment = self.index.segment(i)
            listed = np.asarray(segment.keys, dtype=np.uint64)
            rest = (signed[mine] - segment.first).astype(np.uint64)
            place = np.searchsorted(listed, rest)
            hit = place < len(listed)
            hit[hit] = listed[place[hit]] == rest[hit]
            ok[mine[~hit]] = False
            slot[mine] = np.where(hit, place, 0)
        wide = ok & (p["wide"][seg] == 1) if p["wide"][touched].any() else np.zeros(n, dtype=bool)
        used = set(self.files[touched].tolist())
        buffers = array_list()
        for file in range(len(self.index.directory.names)):
            buffers.append(self.buffer(file).view("<u8") if file in used else _EMPTY)
        count = len(self.stored)
        # A row a key (a part of the batch is then rows apart): base + code where a field is an offset, else its code.
        values = np.zeros((n, count), dtype=np.uint64)
        nulls = np.zeros((n, count), dtype=np.bool_)
        present = np.zeros(n, dtype=np.bool_)
        taken = ok & ~wide
        order = None
        if n >= COMPILED_FROM and int(self.lengths[touched].sum()) >= GROUPED_FROM:
            order = np.argsort(seg.astype(np.uint16) if len(self.firsts) <= 1 << 16 else seg, kind="stable")
        if order is None:
            failed = self._decode(buffers, signed, seg, slot, taken, values, nulls, present)
        else:
            grouped = [np.zeros_like(a) for a in (values, nulls, present)]
            failed = self._decode(buffers, signed[order], seg[order], slot[order], taken[order], *grouped)
            failed = int(order[failed]) if failed >= 0 else -1
            values[order], nulls[order], present[order] = grouped
        if failed >= 0:
            raise damaged(self.index.path, f"a record of segment {int(seg[failed])} outside its sections")
        ok &= present | wide
        return self._figures(signed, seg, ok, values, nulls, wide, touched)

    def _decode(self, buffers: Any, signed: np.ndarray, seg: np.ndarray, slot: np.ndarray, taken: np.ndarray,
                values: np.ndarray, nulls: np.ndarray, present: np.ndarray) -> int:
        """Every taken key's fields into ``values``, ``nulls`` and ``present`` (``_decode``, a large batch in parts
        on threads: compiled, the loop lets go of the interpreter's lock); the place of the first key outside
        its segment's sections, or -1."""
        p, f = self.params, self.fields

        def part(a: int, b: int) -> int:
            with np.errstate(over="ignore"):  # run as Python, the loop's sums wrap as compiled they do
                failed = _decode(buffers, self.files, signed[a:b], seg[a:b], slot[a:b], taken[a:b], p["first"],
                                 p["coding"], p["long_bits"], p["short_bits"], p["records"], p["marks"], p["counts"],
                                 p["codes"], p["codes_bits"], p["absent"], p["entries"], p["entry_bits"],
                                 p["dictionary"], f["encoding"], f["width"], f["offset"], f["null"], f["nulls"],
                                 f["base"], values[a:b], nulls[a:b], present[a:b])
            return failed + a if failed >= 0 else -1

        n = len(seg)
        return max(in_parts(n, part) if n >= COMPILED_FROM else [part(0, n)])

    def _segments_of(self, keys: np.ndarray) -> np.ndarray:
        """Each key's segment: the last whose first key is at most the key (-1 for none). Segments of a
        dense table's values, every one ``2**b`` keys from 0, are found by a shift."""
        if self.shift is None:
            firsts = self.firsts
            step = int(firsts[1]) if len(firsts) > 1 else 0
            b = step.bit_length() - 1 if step and step & (step - 1) == 0 else -1
            uniform = b > 0 and int(firsts[0]) == 0 and \
                np.array_equal(firsts, np.arange(len(firsts), dtype=np.uint64) << np.uint64(b))
            self.shift = b if uniform else -1
        if self.shift > 0:
            seg = keys >> self.shift
            seg[(keys < 0) | (seg >= len(self.firsts))] = -1
            return seg
        seg = np.searchsorted(self.firsts, keys.view(np.uint64), side="right").astype(np.int64) - 1
        seg[keys < 0] = -1
        return seg

    def _figures(self, keys: np.ndarray, seg: np.ndarray, ok: np.ndarray, values: np.ndarray, nulls: np.ndarray,
                 wide: np.ndarray, touched: np.ndarray) -> Columns:
        """Each figure's column from its field's values (records wider than 64 bits read one by one)."""
        n = len(seg)
        stored: list[np.ma.MaskedArray | None] = []
        texts: dict[str, tuple[np.ma.MaskedArray, list[str]]] = {}
        wide_rows = {}
        for i in np.flatnonzero(wide & ok).tolist():
            wide_rows[i] = self.index.row(int(keys[i]))
            ok[i] = wide_rows[i] is not None
        absent = ~ok  # every figure's mask where its field has no nulls in the segments touched (most)
        for j, f in enumerate(self.stored):
            table = {name: column[j] for name, column in self.fields.items()}
            code = np.ascontiguousarray(values[:, j])
            null = ok & nulls[:, j] if table["nulls"][touched].any() else np.zeros(n, dtype=bool)
            encodings = np.unique(table["encoding"][touched])
            if f.type == TEXT:
                codes, dictionary = self._texts(f, seg, code, ok & ~null & ~wide)
                for i, row in wide_rows.items():
                    text = row[f.name] if row is not None else None
                    if text is not None:
                        if text not in dictionary:
                            dictionary.append(text)
                        codes[i] = dictionary.index(text)
                    else:
                        codes[i] = np.ma.masked
                texts[f.name] = (codes, dictionary)
                stored.append(None)
                continue
            kind = np.float64 if f.type == FLOAT else np.uint64 if f.unsigned else np.int64
            if f.type != FLOAT and len(encodings) <= 1 and (not len(encodings) or encodings[0] == OFFSET):
                column_values = code.view(kind)  # every value an offset from its segment's base: as it is
            else:
                encoding = table["encoding"][seg]
                column_values = np.zeros(n, dtype=kind)
                offset = ok & (encoding == OFFSET)
                if f.type != FLOAT:
                    column_values[offset] = code[offset].view(kind)
                listed = ok & (encoding == LISTED) & ~null
                if listed.any():
                    if (code[listed] >= table["items"][seg[listed]]).any():
                        raise damaged(self.index.path, f"field {f.name}: a code beyond its dictionary")
                    raw = self._words_of(seg[listed], table["dictionary"][seg[listed]] + 8 * code[listed])
                    column_values[listed] = raw.view(kind)
                raw_float = ok & (encoding == RAW) & ~null
                if raw_float.any():
                    column_values[raw_float] = code[raw_float].view(np.float64)
            if f.type == BOOLEAN:
                column_values = column_values == 1
            column = np.ma.array(column_values, mask=absent | null if null.any() else absent)
            for i, row in wide_rows.items():
                if row is not None:
                    value = row[f.name]
                    if type(value) is int:  # a base + code past 64 bits (a damaged index) wraps, as in the others
                        value = value % 2**64 if f.unsigned else (value + 2**63) % 2**64 - 2**63
                    column[i] = np.ma.masked if value is None else value
            stored.append(column)
        out: dict[str, np.ma.MaskedArray] = {}
        won: dict[int, np.ndarray] = {}  # by the field read: whether each position is won (its value not 0)

        def won_by(field: int) -> np.ndarray:
            if field not in won:
                won[field] = np.ma.getdata(stored[field]) != 0
            return won[field]

        for f in self.index.figures:
            if f.source == DERIVED:  # the outcome from the Grundy value
                field = self.index.directory.figures[f.reads].field
                # Not found, a value's data is 0: no need to fill the masked ones first.
                codes = np.ma.array(won_by(field).view(np.int8), mask=np.ma.getmaskarray(stored[field]))
                texts[f.name] = (codes, ["P", "N"])
            elif f.type != TEXT:
                column = stored[f.field]
                if f.rule == HALVED:  # on the data: a masked array's arithmetic with a scalar gives floats
                    data = np.ma.getdata(column)
                    whole = np.add(data, data)
                    whole += won_by(self.index.directory.figures[f.reads].field)
                    column = np.ma.array(whole, mask=np.ma.getmaskarray(column))
                out[f.name] = column
        return Columns(ok, out, texts)

    def _texts(self, f: Any, seg: np.ndarray, code: np.ndarray, ok: np.ndarray) -> tuple[np.ma.MaskedArray,
                                                                                      list[str]]:
        """A text field's codes into one dictionary of the texts the batch holds."""
        pairs = np.stack([seg[ok], code[ok].astype(np.int64)], axis=1) if ok.any() else np.zeros((0, 2), np.int64)
        unique, inverse = np.unique(pairs, axis=0, return_inverse=True)
        texts, numbers = [], []
        for i, c in unique.tolist():
            segment = self.index.segment(i)
            texts.append(segment.decoders[f.field](c))
        dictionary = sorted(set(texts))
        place = {t: j for j, t in enumerate(dictionary)}
        numbers = np.array([place[t] for t in texts], dtype=np.int32)
        out = np.zeros(len(seg), dtype=np.int32)
        out[ok] = numbers[inverse.reshape(-1)] if len(numbers) else 0
        return np.ma.array(out, mask=~ok), dictionary

    def _words_of(self, seg: np.ndarray, at: np.ndarray) -> np.ndarray:
        out = np.zeros(len(seg), dtype=np.uint64)
        files = self.files[seg]
        for file in np.unique(files).tolist():
            mine = files == file
            out[mine] = _words(self.buffer(file), at[mine])
        return out


def _words(buf: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The little-endian 64-bit word at each byte offset."""
    at = at.astype(np.int64)
    return buf[at[:, None] + np.arange(8)].view("<u8").reshape(-1).astype(np.uint64, copy=False)


@njit(cache=True, nogil=True, inline="always")
def _field(words, start, bit, width):
    """The ``width``-bit field (0 to 64) at bit ``bit`` of the bit string at byte ``start`` (a multiple of 8:
    sections start so), read from the file's aligned words; the tail makes the next word always there."""
    at = (start << np.uint64(3)) + bit
    w = at >> np.uint64(6)
    shift = at & np.uint64(63)
    value = words[w] >> shift
    if shift and shift + width > 64:
        value |= words[w + np.uint64(1)] << (np.uint64(64) - shift)
    if width < 64:
        value &= (np.uint64(1) << width) - np.uint64(1)
    return value


@njit(cache=True, nogil=True)
def _decode(buffers, file_of, keys, seg, slot, taken, first, coding, long_bits, short_bits, records_at, marks_at,
            counts_at, codes_at, codes_bits, absent, entries, entry_bits, dictionary_at, encoding, width, offset, null,
            nulls, base, values, missing, present):
    """Each key's fields as docs/format.md reads a record ("Reading a record"): an offset field's value
    (base + code, wrapping past 64 bits), any other field's code, and which are null; whether each key is
    a position. ``taken``: the keys to read (found in a segment); a ``slot`` of -1 is the key's place in
    its dense segment. The place of the first key whose code lies outside its segment's sections, or -1."""
    held = -1
    words = buffers[0]
    for i in range(seg.shape[0]):
        if not taken[i]:
            continue
        s = seg[i]
        if file_of[s] != held:  # a typed list's item costs a call: taken again only for another file
            held = file_of[s]
            words = buffers[held]
        k = np.uint64(slot[i]) if slot[i] >= 0 else np.uint64(keys[i]) - first[s]
        if coding[s] == 3:
            group = k >> np.uint64(9)
            within = k & np.uint64(511)
            before = words[(counts_at[s] >> np.uint64(3)) + group]
            at = (marks_at[s] >> np.uint64(3)) + (group << np.uint64(3))
            whole = within >> np.uint64(6)
            for j in range(np.int64(whole)):
                before += _popcount(words[at + np.uint64(j)])
            own = words[at + whole]
            part = within & np.uint64(63)
            if part:
                before += _popcount(own & ((np.uint64(1) << part) - np.uint64(1)))
            wide = long_bits[s] if (own >> part) & np.uint64(1) else short_bits[s]
            if before > k:
                return i
            bit = (k - before) * short_bits[s] + before * long_bits[s]
            if bit + wide > codes_bits[s]:
                return i
            code = _field(words, codes_at[s], bit, wide)
        else:
            code = _field(words, records_at[s], k * long_bits[s], long_bits[s])
        if code == absent[s] and absent[s] != np.uint64(0xFFFFFFFFFFFFFFFF):  # NONE: no code is absent
            continue
        present[i] = True
        record = code
        if coding[s] != 1:
            if code >= entries[s]:
                return i
            record = _field(words, dictionary_at[s], code * entry_bits[s], entry_bits[s])
        for f in range(encoding.shape[0]):
            w = width[f, s]
            field = record >> offset[f, s] if offset[f, s] < 64 else np.uint64(0)
            if w < 64:
                field &= (np.uint64(1) << w) - np.uint64(1)
            if nulls[f, s] and field == null[f, s]:
                missing[i, f] = True
            elif encoding[f, s] == 1:
                field += base[f, s]
            values[i, f] = field
    return -1


@njit(cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)
