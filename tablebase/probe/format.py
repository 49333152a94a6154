"""The probe index's bytes: the header's structs, the section kinds, and how a bit field is read.

``docs/format.md`` is the contract, byte for byte; this module spells it for
the Python writer (``tablebase.store.probe_index``) and reader
(``tablebase.probe.reader``), with the standard library only, so that a
probe imports neither numpy nor pyarrow. The C reader (``readers/c``)
spells it again on its own.
"""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any, NamedTuple

from tablebase.errors import StoreError

FILE_NAME = "probe.tbi"  # in the table's folder, beside _manifest.json
MAGIC = b"\x89TBP\r\n\x1a\n"
VERSION = 1
BYTE_ORDER_MARK = 0xFEFF  # written little-endian: the bytes FF FE
ALIGN = 64  # every section starts at a multiple of this
TAIL = 8  # bytes the file holds at least past a section's end rounded up to 8: 64-bit loads never leave it
NONE = 2**64 - 1  # "no such code" in the header's u64 fields
NO_SECTION = 0xFFFF
NAME_BYTES = 32  # a figure's name, NUL-padded: at most 31 bytes

DENSE, SPARSE = 1, 2  # layouts
FIELDS, DICTIONARY = 1, 2  # how a slot holds its figures: side by side, or as a code of a whole tuple
INTEGER, FLOAT, TEXT, BOOLEAN = 1, 2, 3, 4  # figure types
OFFSET, LISTED, RAW = 1, 2, 3  # figure encodings: base + code, an entry of a dictionary, a float's bits
HAS_NULLS, UNSIGNED = 1, 2  # figure flags
KEYS, RECORDS, RECORD_DICTIONARY, INTEGERS, FLOATS, TEXTS = 1, 2, 3, 4, 5, 6  # section kinds

FIXED = struct.Struct("<8sHHIBBBBBBHQQQQII")  # 64 bytes
FIGURE = struct.Struct("<32sBBBBHHII8sQ")  # 64 bytes
SECTION = struct.Struct("<IIQQ")  # 24 bytes
CRC = struct.Struct("<I")
COUNT = struct.Struct("<Q")  # every section begins with its number of items


class Figure(NamedTuple):
    """One figure of the records: its name, type, encoding, field width and place, base, null code."""

    name: str
    type: int
    encoding: int
    width: int
    flags: int
    dictionary: int  # the index of its dictionary section, or NO_SECTION
    offset: int  # bit offset of its field in a record (FIELDS) or a record-dictionary entry (DICTIONARY)
    base: int  # value = base + code (encoding OFFSET)
    null: int  # the code of a null, or NONE

    def pack(self) -> bytes:
        name = self.name.encode()
        if len(name) >= NAME_BYTES:
            raise StoreError(f"column {self.name!r}: a probe index names figures in at most {NAME_BYTES - 1} bytes")
        base = self.base.to_bytes(8, "little", signed=not self.flags & UNSIGNED)
        return FIGURE.pack(name, self.type, self.encoding, self.width, self.flags, self.dictionary, 0,
                           self.offset, 0, base, self.null)

    @classmethod
    def unpack(cls, data: bytes) -> Figure:
        name, kind, encoding, width, flags, dictionary, _, offset, _, base, null = FIGURE.unpack(data)
        return cls(name.rstrip(b"\0").decode(errors="replace"), kind, encoding, width, flags, dictionary, offset,
                   int.from_bytes(base, "little", signed=not flags & UNSIGNED), null)


class Section(NamedTuple):
    kind: int
    crc: int
    offset: int
    length: int


class Header(NamedTuple):
    """What the header says: the layout, the sizes, what the table holds, its figures and sections."""

    layout: int
    records: int  # FIELDS or DICTIONARY
    key_bytes: int  # sparse: the width of a key; dense: 0
    record_bits: int  # bits per slot of the records section
    entry_bits: int  # bits of all figures' fields side by side
    positions: int
    slots: int  # dense: keys 0..slots-1; sparse: the number of keys
    absent: int  # the first code of a slot that is no position, or NONE
    entries: int  # entries of the record dictionary (DICTIONARY), else 0
    about: dict[str, Any]  # table, game, kind, params
    figures: tuple[Figure, ...]
    sections: tuple[Section, ...]
    size: int  # bytes of the header, its CRC included

    def pack(self) -> bytes:
        """The header's bytes, its CRC last."""
        about = json.dumps(self.about, sort_keys=True, separators=(",", ":")).encode()
        start = FIXED.size + len(about)
        start += -start % 8
        size = start + FIGURE.size * len(self.figures) + SECTION.size * len(self.sections) + CRC.size
        data = bytearray(FIXED.pack(
            MAGIC, VERSION, BYTE_ORDER_MARK, size, self.layout, self.records, self.key_bytes, len(self.figures),
            self.record_bits, self.entry_bits, len(self.sections), self.positions, self.slots, self.absent,
            self.entries, len(about), 0))
        data += about + bytes(start - len(data) - len(about))
        for figure in self.figures:
            data += figure.pack()
        for s in self.sections:
            data += SECTION.pack(s.kind, s.crc, s.offset, s.length)
        data += CRC.pack(zlib.crc32(data))
        return bytes(data)

    def section(self, kind: int) -> Section | None:
        return next((s for s in self.sections if s.kind == kind), None)


def read_header(data: Any, where: str) -> Header:
    """The header at the start of ``data`` (bytes or an mmap), checked: magic, version, byte order, CRC, bounds.

    ``where`` names the file in errors. Only the header's checksum is checked
    here; the sections' are checked by ``verify`` (``ProbeIndex.check``).
    """
    if len(data) < FIXED.size + CRC.size or data[:8] != MAGIC:
        raise StoreError(f"{where}: not a probe index (no magic number)")
    (_, version, mark, size, layout, records, key_bytes, figures, record_bits, entry_bits, sections, positions,
     slots, absent, entries, about_bytes, _) = FIXED.unpack_from(data, 0)
    if version != VERSION:
        raise StoreError(f"{where}: probe index format {version}, this reader reads {VERSION}; make it again "
                         "with tablebase index")
    if mark != BYTE_ORDER_MARK:
        raise StoreError(f"{where}: numbers are not little-endian (byte-order mark {mark:#06x})")
    if size > len(data) or size < FIXED.size + CRC.size:
        raise StoreError(f"{where}: damaged probe index (a header of {size} bytes in a file of {len(data)})")
    (stored,) = CRC.unpack_from(data, size - CRC.size)
    if zlib.crc32(data[: size - CRC.size]) != stored:
        raise StoreError(f"{where}: damaged probe index (the header's CRC-32 differs)")
    start = FIXED.size + about_bytes
    start += -start % 8
    if start + FIGURE.size * figures + SECTION.size * sections + CRC.size != size:
        raise StoreError(f"{where}: damaged probe index (the header's parts do not add up to its size)")
    try:
        about = json.loads(bytes(data[FIXED.size : FIXED.size + about_bytes]))
    except ValueError:
        raise StoreError(f"{where}: damaged probe index (what the table holds is not JSON)") from None
    described = tuple(Figure.unpack(data[start + i * FIGURE.size : start + (i + 1) * FIGURE.size])
                      for i in range(figures))
    table = start + FIGURE.size * figures
    listed = tuple(Section(*SECTION.unpack_from(data, table + i * SECTION.size)) for i in range(sections))
    header = Header(layout, records, key_bytes, record_bits, entry_bits, positions, slots, absent, entries, about,
                    described, listed, size)
    _check_bounds(header, len(data), where)
    return header


def _check_bounds(h: Header, length: int, where: str) -> None:
    """Every section inside the file with its tail, every field inside its record: no read can leave the file."""
    def bad(what: str) -> StoreError:
        return StoreError(f"{where}: damaged probe index ({what})")

    if h.layout not in (DENSE, SPARSE) or h.records not in (FIELDS, DICTIONARY):
        raise bad(f"layout {h.layout}, records {h.records}")
    for s in h.sections:
        if s.offset % ALIGN or s.offset < h.size or s.offset + padded(s.length) > length or s.length < COUNT.size:
            raise bad(f"section of kind {s.kind} at {s.offset}, {s.length} bytes")
    for f in h.figures:
        if f.width > 64 or f.offset + f.width > h.entry_bits:
            raise bad(f"figure {f.name}: a field of {f.width} bits at bit {f.offset}")
        if f.encoding == LISTED and f.dictionary >= len(h.sections):
            raise bad(f"figure {f.name}: no dictionary")
    records = h.section(RECORDS)
    if records is None or records.length < COUNT.size + (h.slots * h.record_bits + 7) // 8:
        raise bad("records section too short")
    if h.records == DICTIONARY:
        table = h.section(RECORD_DICTIONARY)
        if h.record_bits > 64 or table is None or table.length < COUNT.size + (h.entries * h.entry_bits + 7) // 8:
            raise bad("record dictionary too short")
    elif h.record_bits != h.entry_bits:
        raise bad("records of another width than their fields")
    if h.layout == SPARSE:
        keys = h.section(KEYS)
        if h.key_bytes not in (1, 2, 4, 8) or keys is None or keys.length < COUNT.size + h.slots * h.key_bytes:
            raise bad("keys section too short")


def field(data: Any, start: int, bit: int, width: int) -> int:
    """The ``width``-bit unsigned field at bit ``bit`` of the bit string at byte ``start`` (least significant
    bit first). Nine bytes hold any field of up to 64 bits whatever its first bit's place in a byte."""
    at = start + (bit >> 3)
    return int.from_bytes(data[at : at + 9], "little") >> (bit & 7) & ((1 << width) - 1)


def padded(length: int) -> int:
    """A section's bytes with what must follow it: up to a multiple of 8, then TAIL more."""
    return length + (-length % 8) + TAIL


def bits_for(codes: int) -> int:
    """The width of a field that takes ``codes`` distinct codes (0 for one code)."""
    return max(codes - 1, 0).bit_length()
