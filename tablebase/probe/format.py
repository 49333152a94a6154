"""The probe index's bytes: the directory and a segment's fixed parts, read and checked as docs/format.md says.

``docs/format.md`` is the contract, byte for byte, and its section "What a
reader must check" is spelt here once for the Python reader and writer, with
the standard library only, so that a probe imports neither numpy nor
pyarrow. The C reader (``readers/c``) spells the same rules on its own.
Every number read from a file is checked before it is used; Python's
integers do not wrap, so a sum or product of fields is compared as it is.
"""

from __future__ import annotations

import json
import operator
import re
import struct
import zlib
from typing import Any, NamedTuple

from tablebase.errors import StoreError

FILE_NAME = "probe.tbi"  # the directory, in the table's folder beside _manifest.json
SEGMENTS_FOLDER = "probe"  # the segment files, beside the directory
MAGIC = b"\x89TBP\r\n\x1a\n"
SEGMENT_MAGIC = b"TBS2"
VERSION = 2
BYTE_ORDER_MARK = 0xFEFF  # written little-endian: the bytes FF FE
NONE = 2**64 - 1  # "no such code" in u64 fields
NO_FIELD = 0xFFFF
TAIL = 8  # zero bytes after a segment's last section: 64-bit loads never leave it
MAX_FIELDS = 64
MAX_ABOUT = 1 << 16
MAX_NESTING = 8

INTEGER, FLOAT, TEXT, BOOLEAN = 1, 2, 3, 4  # figure types
STORED, DERIVED = 1, 2  # where a figure's value comes from
AS_IS, HALVED = 0, 1  # rules of a stored figure
OUTCOME_OF_GRUNDY, BY_CHILDREN = 1, 2  # rules of a derived figure
UNSIGNED = 2  # a figure's flag: its integers are unsigned
DENSE, SPARSE = 1, 2  # a segment's layouts
FIELDS, DICTIONARY, TWO_WIDTHS = 1, 2, 3  # how a segment codes its records
OFFSET, LISTED, RAW = 1, 2, 3  # a field's encodings
HAS_NULLS = 1  # a field's flag
GROUP = 512  # records a count of long codes stands for (coding TWO_WIDTHS)

DIRECTORY = struct.Struct("<8sHHIHHIQQI20s")  # 64 bytes
FIGURE = struct.Struct("<32sBBBBHH8s")  # 48 bytes
NAME = struct.Struct("<48s")
ENTRY = struct.Struct("<QQQII")  # 32 bytes: last key, offset, length, file, crc
SEGMENT = struct.Struct("<4sBBBBQQQQBBB5sQ8s")  # 64 bytes
FIELD = struct.Struct("<BBBBI8sQQ")  # 32 bytes
CRC = struct.Struct("<I")
U64 = struct.Struct("<Q")
NAME_BYTES = 32  # a figure's name, NUL-padded: at most 31 bytes
FILE_NAME_BYTES = 48
_FILE_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,46}")
_TYPES = (INTEGER, FLOAT, TEXT, BOOLEAN)


class Figure(NamedTuple):
    """One figure of the table's rows: its name and type, and whether it is stored or derived (and how)."""

    name: str
    type: int
    source: int  # STORED or DERIVED
    rule: int  # AS_IS or HALVED (stored); OUTCOME_OF_GRUNDY or BY_CHILDREN (derived)
    unsigned: bool
    field: int  # stored: its field among the record's; derived: NO_FIELD
    reads: int  # the figure a rule reads, or NO_FIELD

    def pack(self) -> bytes:
        name = self.name.encode()
        if not 0 < len(name) < NAME_BYTES:
            raise StoreError(f"column {self.name!r}: a probe index names figures in 1 to {NAME_BYTES - 1} bytes")
        return FIGURE.pack(name, self.type, self.source, self.rule, UNSIGNED if self.unsigned else 0, self.field,
                           self.reads, bytes(8))


class Field(NamedTuple):
    """A stored figure's field in one segment: how its values are coded there."""

    encoding: int
    width: int
    nulls: bool
    offset: int  # bit offset in an entry
    base: int
    null: int  # the code of a null, or NONE
    items: int  # entries of its dictionary (encoding LISTED)

    def pack(self, unsigned: bool) -> bytes:
        base = self.base.to_bytes(8, "little", signed=not unsigned)
        return FIELD.pack(self.encoding, self.width, HAS_NULLS if self.nulls else 0, 0, self.offset, base,
                          self.null, self.items)


class Directory(NamedTuple):
    """What ``probe.tbi`` says: the table, its figures, its segment files and segments (entries unread)."""

    about: dict[str, Any]
    figures: tuple[Figure, ...]
    stored: tuple[Figure, ...]  # the stored figures in field order
    positions: int
    names: tuple[str, ...]
    segments: int
    firsts: int  # where the first keys begin
    entries: int  # where the segment entries begin
    size: int

    def entry(self, data: Any, i: int) -> tuple[int, int, int, int, int]:
        """Segment ``i``'s (last key, offset, length, file, crc)."""
        return ENTRY.unpack_from(data, self.entries + ENTRY.size * i)

    def first(self, data: Any, i: int) -> int:
        return U64.unpack_from(data, self.firsts + 8 * i)[0]


def damaged(where: str, what: str) -> StoreError:
    return StoreError(f"{where}: damaged probe index ({what}); tablebase verify checks it, tablebase index "
                      "writes it again")


def pad8(n: int) -> int:
    return n + (-n % 8)


def read_directory(data: Any, where: str) -> Directory:
    """The directory in ``data`` (bytes or an mmap of the whole file), checked as docs/format.md says
    (all but the segment files' sizes, which are checked when each is mapped)."""
    size = len(data)
    if size < DIRECTORY.size + CRC.size or data[:8] != MAGIC:
        raise StoreError(f"{where}: not a probe index (no magic number)")
    (_, version, mark, total, count, stored, about_bytes, segments, positions, files, reserved) = \
        DIRECTORY.unpack_from(data, 0)
    if version != VERSION:
        raise StoreError(f"{where}: probe index format {version}, this reader reads {VERSION}; write it again "
                         "with tablebase index")
    if mark != BYTE_ORDER_MARK:
        raise StoreError(f"{where}: numbers are not little-endian (byte-order mark {mark:#06x})")
    if total != size:
        raise damaged(where, f"{total:,} bytes said, {size:,} in the file")
    if zlib.crc32(data[: size - CRC.size]) != CRC.unpack_from(data, size - CRC.size)[0]:
        raise damaged(where, "the directory's CRC-32 differs")
    start = DIRECTORY.size + pad8(about_bytes)
    firsts = start + FIGURE.size * count + FILE_NAME_BYTES * files
    entries = firsts + 8 * segments
    if entries + ENTRY.size * segments + CRC.size != size or any(reserved):
        raise damaged(where, "the directory's parts do not add up to its size")
    about = _about(bytes(data[DIRECTORY.size : DIRECTORY.size + about_bytes]), where)
    figures = tuple(_figure(data, start + FIGURE.size * i, where) for i in range(count))
    stored_figures = _check_figures(figures, stored, where)
    at = start + FIGURE.size * count
    names = tuple(_file_name(data, at + FILE_NAME_BYTES * i, where) for i in range(files))
    if len(set(names)) != len(names):
        raise damaged(where, "a segment file named twice")
    directory = Directory(about, figures, stored_figures, positions, names, segments, firsts, entries, size)
    _check_segments(data, directory, where)
    return directory


def _about(text: bytes, where: str) -> dict[str, Any]:
    if len(text) > MAX_ABOUT:
        raise damaged(where, f"an about text of {len(text):,} bytes")
    depth = most = 0
    inside = escaped = False  # in a string, whose brackets are text
    for byte in text:  # before json parses it: a deep nesting would exhaust the parser's stack
        if inside:
            escaped, inside = byte == 0x5C and not escaped, inside and (byte != 0x22 or escaped)
            continue
        inside = byte == 0x22
        depth += (byte in b"[{") - (byte in b"]}")
        most = max(most, depth)
    if most > MAX_NESTING:
        raise damaged(where, "an about text nested too deep")
    try:
        about = json.loads(text, parse_constant=_not_json)
    except ValueError:
        raise damaged(where, "what the table holds is not JSON") from None
    if not isinstance(about, dict):
        raise damaged(where, "what the table holds is not a JSON object")
    return about


def _not_json(word: str) -> None:
    raise ValueError(f"{word} is not JSON")  # json takes NaN and Infinity, which JSON has not


def _figure(data: Any, at: int, where: str) -> Figure:
    name, kind, source, rule, flags, field, reads, reserved = FIGURE.unpack_from(data, at)
    try:
        text = name.rstrip(b"\0").decode()
    except UnicodeDecodeError:
        raise damaged(where, "a figure's name is not UTF-8") from None
    if not text or name[-1] or b"\0" in name.rstrip(b"\0") or any(reserved) or flags & ~UNSIGNED:  # 1 to 31 bytes
        raise damaged(where, f"figure {text!r}")
    return Figure(text, kind, source, rule, bool(flags & UNSIGNED), field, reads)


def _check_figures(figures: tuple[Figure, ...], stored: int, where: str) -> tuple[Figure, ...]:
    """The figures' rules against their types, the fields named once each; the stored ones in field order."""
    if not 1 <= stored <= min(len(figures), MAX_FIELDS) or len({f.name for f in figures}) != len(figures):
        raise damaged(where, f"{stored} stored of {len(figures)} figures")
    by_field: dict[int, Figure] = {}
    for f in figures:
        if f.type not in _TYPES:
            raise damaged(where, f"figure {f.name}: type {f.type}")
        if f.source == STORED:
            ok = f.field < stored and f.field not in by_field and (
                (f.rule == AS_IS and f.reads == NO_FIELD) or
                (f.rule == HALVED and f.type == INTEGER and f.reads != NO_FIELD))
            by_field[f.field] = f
        elif f.source == DERIVED:
            ok = f.field == NO_FIELD and ((f.rule == OUTCOME_OF_GRUNDY and f.type == TEXT and f.reads != NO_FIELD)
                                          or (f.rule == BY_CHILDREN and f.reads == NO_FIELD))
        else:
            ok = False
        if ok and f.reads != NO_FIELD:
            read = figures[f.reads] if f.reads < len(figures) else None
            ok = read is not None and read is not f and read.source == STORED and read.type == INTEGER \
                and read.rule == AS_IS
        if not ok:
            raise damaged(where, f"figure {f.name}: source {f.source}, rule {f.rule}, field {f.field}")
    if len(by_field) != stored:
        raise damaged(where, "a field no figure names")
    return tuple(by_field[i] for i in range(stored))


def _file_name(data: Any, at: int, where: str) -> str:
    (raw,) = NAME.unpack_from(data, at)
    name = raw.rstrip(b"\0")
    text = name.decode("ascii", errors="replace")
    if not _FILE_NAME.fullmatch(text) or b"\0" in name:
        raise damaged(where, f"a segment file named {text!r}")
    return text


def _check_segments(data: Any, d: Directory, where: str) -> None:
    """First keys ascending, each segment's keys below the next's, its file named, its offset aligned: all at
    once by loops in C (opening comes before a first probe), then, if one fails, one by one to name it."""
    keys = struct.unpack_from(f"<{d.segments}Q", data, d.firsts) if d.segments else ()
    fields = struct.unpack_from(f"<{4 * d.segments}Q", data, d.entries) if d.segments else ()
    lasts, offsets, lengths, files = fields[0::4], fields[1::4], fields[2::4], fields[3::4]
    if not d.segments or (
            not any(map(operator.lt, lasts, keys)) and not any(map(operator.ge, lasts, keys[1:]))
            and max(map((0xFFFFFFFF).__and__, files)) < len(d.names) and not any(map((7).__and__, offsets))
            and min(lengths) >= SEGMENT.size + TAIL):
        return
    entries = struct.iter_unpack("<QQQII", data[d.entries : d.entries + ENTRY.size * d.segments])
    for i, (last, offset, length, file, _) in enumerate(entries):
        first = keys[i]
        if last < first or (i + 1 < d.segments and last >= keys[i + 1]) or file >= len(d.names) or offset % 8:
            raise damaged(where, f"segment {i} (keys {first} to {last}, file {file}, at {offset})")
        if length < SEGMENT.size + TAIL:
            raise damaged(where, f"segment {i} of {length} bytes")


class Segment(NamedTuple):
    """A segment's fixed part and where its sections are (offsets from the file's start), checked."""

    layout: int
    coding: int
    key_bytes: int
    first: int
    slots: int
    absent: int  # NONE if every slot is a position
    entries: int
    entry_bits: int
    long_bits: int
    short_bits: int
    longs: int
    fields: tuple[Field, ...]
    keys: int  # where each section begins (0 where the coding has none)
    records: int
    marks: int
    counts: int
    codes: int
    dictionary: int
    dictionaries: tuple[int, ...]  # each field's dictionary, or 0
    end: int  # where the segment's tail ends


def read_segment(data: Any, at: int, length: int, first: int, last: int, stored: tuple[Figure, ...],
                 where: str) -> Segment:
    """The segment of ``length`` bytes at ``at`` in ``data``, checked (its CRC is the caller's)."""
    count = len(stored)
    if length < SEGMENT.size + FIELD.size * count + TAIL:
        raise damaged(where, f"a segment of {length} bytes")
    (magic, layout, coding, fields_said, key_bytes, said_first, slots, absent, entries, entry_bits, long_bits,
     short_bits, reserved, longs, reserved2) = SEGMENT.unpack_from(data, at)
    if magic != SEGMENT_MAGIC or said_first != first or fields_said != count or any(reserved) or any(reserved2):
        raise damaged(where, f"segment of key {first}: its fixed part")
    if layout == DENSE:
        ok = key_bytes == 0 and slots == last - first + 1
    elif layout == SPARSE:
        ok = key_bytes in (1, 2, 4, 8) and 1 <= slots and last - first < 1 << (8 * key_bytes)
    else:
        ok = False
    if not ok or coding not in (FIELDS, DICTIONARY, TWO_WIDTHS):
        raise damaged(where, f"segment of key {first}: layout {layout}, coding {coding}, {slots} slots")
    fields = tuple(_field(data, at + SEGMENT.size + FIELD.size * i, f, first, where) for i, f in enumerate(stored))
    bits = 0
    for f in fields:
        if f.offset != bits:
            raise damaged(where, f"segment of key {first}: fields out of place")
        bits += f.width
    if bits != entry_bits:
        raise damaged(where, f"segment of key {first}: {entry_bits} bits an entry, the fields take {bits}")
    _check_coding(coding, slots, absent, entries, entry_bits, long_bits, short_bits, longs, first, where)
    end = SEGMENT.size + FIELD.size * count
    keys = records = marks = counts = codes = dictionary = 0
    if layout == SPARSE:
        keys, end = at + pad8(end), pad8(end) + slots * key_bytes
    if coding == TWO_WIDTHS:
        marks, end = at + pad8(end), pad8(end) + 8 * -(-slots // 64)
        counts, end = at + pad8(end), pad8(end) + 8 * -(-slots // GROUP)
        codes, end = at + pad8(end), pad8(end) + -(-((slots - longs) * short_bits + longs * long_bits) // 8)
    else:
        records, end = at + pad8(end), pad8(end) + -(-slots * long_bits // 8)
    if coding != FIELDS:
        dictionary, end = at + pad8(end), pad8(end) + -(-entries * entry_bits // 8)
    dictionaries = []
    for figure, f in zip(stored, fields):
        if f.encoding != LISTED:
            dictionaries.append(0)
            continue
        dictionaries.append(at + pad8(end))
        end = pad8(end) + 8 * f.items
        if figure.type == TEXT:  # the offsets, then as many bytes of text as the last offset says
            if end + 8 + TAIL > length:
                raise damaged(where, f"segment of key {first}: the texts of {figure.name} leave it")
            end += 8 + U64.unpack_from(data, at + end)[0]
    if pad8(end) + TAIL != length:
        raise damaged(where, f"segment of key {first}: {length:,} bytes, its sections take {pad8(end) + TAIL:,}")
    return Segment(layout, coding, key_bytes, first, slots, absent, entries, entry_bits, long_bits, short_bits,
                   longs, fields, keys, records, marks, counts, codes, dictionary, tuple(dictionaries), at + length)


def _field(data: Any, at: int, figure: Figure, first: int, where: str) -> Field:
    encoding, width, flags, reserved, offset, base, null, items = FIELD.unpack_from(data, at)
    nulls = bool(flags & HAS_NULLS)
    allowed = {INTEGER: (OFFSET, LISTED), BOOLEAN: (OFFSET, LISTED), FLOAT: (LISTED, RAW), TEXT: (LISTED,)}
    ok = (encoding in allowed[figure.type] and width <= 64 and not reserved and not flags & ~HAS_NULLS
          and (width == 64 if encoding == RAW else True)
          and ((1 <= items if encoding == LISTED else items == 0))
          and ((null < 1 << width) if nulls else null == NONE))
    if not ok:
        raise damaged(where, f"segment of key {first}: field {figure.name}")
    return Field(encoding, width, nulls, offset, int.from_bytes(base, "little", signed=not figure.unsigned), null,
                 items)


def _check_coding(coding: int, slots: int, absent: int, entries: int, entry_bits: int, long_bits: int,
                  short_bits: int, longs: int, first: int, where: str) -> None:
    if coding == FIELDS:
        ok = long_bits == entry_bits and entries == 0 and short_bits == 0 and longs == 0
        ok = ok and (absent == NONE or absent < 1 << long_bits)
    else:
        needed = entries + (absent != NONE)
        ok = 1 <= entries and entry_bits <= 64 and long_bits <= 64 and needed <= 1 << long_bits
        ok = ok and absent in (NONE, entries)
        if coding == DICTIONARY:
            ok = ok and short_bits == 0 and longs == 0
        else:
            ok = ok and short_bits < long_bits and longs <= slots
    if not ok:
        raise damaged(where, f"segment of key {first}: coding {coding} ({entries:,} entries of {entry_bits} bits, "
                             f"codes of {short_bits} and {long_bits} bits)")


def field(data: Any, start: int, bit: int, width: int) -> int:
    """The ``width``-bit unsigned field at bit ``bit`` of the bit string at byte ``start`` (least significant
    bit first). Nine bytes hold any field of up to 64 bits whatever its first bit's place in a byte."""
    at = start + (bit >> 3)
    return int.from_bytes(data[at : at + 9], "little") >> (bit & 7) & ((1 << width) - 1)


def bits_for(codes: int) -> int:
    """The width of a field that takes ``codes`` distinct codes (0 for one code)."""
    return max(codes - 1, 0).bit_length()


def pack_directory(about: dict[str, Any], figures: list[Figure], positions: int, names: list[str],
                   segments: list[tuple[int, int, int, int, int, int]]) -> bytes:
    """The directory's bytes; ``segments``: (first key, last key, offset, length, file, crc) in key order."""
    text = json.dumps(about, sort_keys=True, separators=(",", ":")).encode()
    stored = sum(f.source == STORED for f in figures)
    size = DIRECTORY.size + pad8(len(text)) + FIGURE.size * len(figures) + FILE_NAME_BYTES * len(names) + \
        (8 + ENTRY.size) * len(segments) + CRC.size
    out = bytearray(DIRECTORY.pack(MAGIC, VERSION, BYTE_ORDER_MARK, size, len(figures), stored, len(text),
                                   len(segments), positions, len(names), bytes(20)))
    out += text + bytes(-len(text) % 8)
    for f in figures:
        out += f.pack()
    for name in names:
        if not _FILE_NAME.fullmatch(name):
            raise StoreError(f"segment file name {name!r} is not one a probe index may hold")
        out += NAME.pack(name.encode())
    out += struct.pack(f"<{len(segments)}Q", *(s[0] for s in segments))
    for _, last, offset, length, file, crc in segments:
        out += ENTRY.pack(last, offset, length, file, crc)
    out += CRC.pack(zlib.crc32(out))
    return bytes(out)
