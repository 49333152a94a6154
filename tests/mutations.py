"""Mutations of a probe index's files where docs/format.md puts its numbers, every CRC-32 made right after.

The directory is taken apart into its parts (fixed part, about, figures, file names, first keys, entries),
so that a mutation may change a part and have every count and size follow (a figure more, a segment less, an
about text nested too deep), or set one number of the bytes to anything. A segment's numbers are set in place
(its fixed part, a field's descriptor) and then, at times, the segment is resized to the length its new
numbers say, so that the change passes the length check and reaches a probe; or the contents of its
sections are changed (keys, marks, counts, codes, dictionaries, text offsets). Each mutation says what it did.
"""

from __future__ import annotations

import random
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

FIXED = 64
FIGURE = 48
NAME = 48
ENTRY = 32
FIELD = 32
WIDE = [0, 1, 2, 7, 8, 63, 64, 255, 511, 512, 2**16, 2**31, 2**32 - 1, 2**32, 2**40, 2**62, 2**63 - 1, 2**63,
        2**64 - 8, 2**64 - 2, 2**64 - 1]
RESIZE_LIMIT = 4 << 20  # a segment resized to what its numbers say, where that is at most this many bytes

DIRECTORY_FIELDS = [(8, 2, "version"), (10, 2, "byte order"), (12, 4, "H"), (16, 2, "F"), (18, 2, "S"), (20, 4, "A"),
                    (24, 8, "N"), (32, 8, "positions"), (40, 4, "M"), (44, 4, "reserved"), (56, 8, "reserved")]
FIGURE_FIELDS = [(0, 1, "name[0]"), (30, 1, "name[30]"), (31, 1, "name[31]"), (32, 1, "type"), (33, 1, "source"),
                 (34, 1, "rule"), (35, 1, "flags"), (36, 2, "field"), (38, 2, "reads"), (40, 8, "reserved")]
ENTRY_FIELDS = [(0, 8, "last"), (8, 8, "offset"), (16, 8, "length"), (24, 4, "file")]
SEGMENT_FIELDS = [(0, 4, "magic"), (4, 1, "layout"), (5, 1, "coding"), (6, 1, "S"), (7, 1, "K"), (8, 8, "first"),
                  (16, 8, "slots"), (24, 8, "absent"), (32, 8, "entries"), (40, 1, "E"), (41, 1, "L"), (42, 1, "s"),
                  (43, 1, "reserved"), (48, 8, "longs"), (56, 8, "reserved")]
FIELD_FIELDS = [(0, 1, "encoding"), (1, 1, "width"), (2, 1, "flags"), (3, 1, "reserved"), (4, 4, "offset"),
                (8, 8, "base"), (16, 8, "null"), (24, 8, "items")]

SEGMENT_COUNTS = [f for f in SEGMENT_FIELDS if f[2] in ("K", "slots", "absent", "entries", "E", "L", "s", "longs")]
FIELD_COUNTS = [f for f in FIELD_FIELDS if f[2] in ("width", "offset", "null", "items")]


def pad8(n: int) -> int:
    return n + (-n % 8)


def value_for(rng: random.Random, size: int, now: int) -> int:
    """A value for a field of ``size`` bytes holding ``now``: an edge, a neighbour of ``now``, or anything."""
    top = (1 << (8 * size)) - 1
    choice = rng.random()
    if size == 1 and choice < 0.35:  # a width, a count of fields or a kind: mostly small where it matters
        value = rng.randrange(72)
    elif choice < 0.45:
        value = rng.choice([0, 1, 2, top, top - 1, 1 << (8 * size - 1), *(v for v in WIDE if v <= top)])
    elif choice < 0.8:
        value = rng.choice([now + 1, now - 1, now * 2, now + 8, now - 8, now ^ (1 << rng.randrange(8 * size)),
                            now + rng.randrange(1, 600), now // 2])
    else:
        value = rng.getrandbits(8 * size)
    return value & top


@dataclass
class Directory:
    """A directory taken apart; ``pack`` puts it together with every count and size following its parts."""

    fixed: bytearray
    about: bytes
    figures: list[bytearray]
    names: list[bytes]
    firsts: list[int]
    entries: list[bytearray]

    @classmethod
    def read(cls, data: bytes) -> Directory:
        figures_count, about_bytes, segments, files = (struct.unpack_from("<H", data, 16)[0],
                                                       struct.unpack_from("<I", data, 20)[0],
                                                       struct.unpack_from("<Q", data, 24)[0],
                                                       struct.unpack_from("<I", data, 40)[0])
        at = FIXED + pad8(about_bytes)
        figures = [bytearray(data[at + FIGURE * i : at + FIGURE * (i + 1)]) for i in range(figures_count)]
        at += FIGURE * figures_count
        names = [data[at + NAME * i : at + NAME * (i + 1)] for i in range(files)]
        at += NAME * files
        firsts = list(struct.unpack_from(f"<{segments}Q", data, at))
        at += 8 * segments
        entries = [bytearray(data[at + ENTRY * i : at + ENTRY * (i + 1)]) for i in range(segments)]
        return cls(bytearray(data[:FIXED]), data[FIXED : FIXED + about_bytes], figures, names, firsts, entries)

    def starts(self) -> tuple[int, int, int, int]:
        """Where the figures, file names, first keys and entries start."""
        figures = FIXED + pad8(len(self.about))
        names = figures + FIGURE * len(self.figures)
        firsts = names + NAME * len(self.names)
        return figures, names, firsts, firsts + 8 * len(self.firsts)

    def pack(self) -> bytearray:
        fixed = bytearray(self.fixed)
        *_, entries = self.starts()
        size = entries + ENTRY * len(self.entries) + 4
        struct.pack_into("<IHHIQ", fixed, 12, size, len(self.figures), fixed[18] | fixed[19] << 8, len(self.about),
                         len(self.firsts))
        struct.pack_into("<I", fixed, 40, len(self.names))
        out = fixed + self.about + bytes(-len(self.about) % 8) + b"".join(self.figures) + b"".join(self.names)
        out += struct.pack(f"<{len(self.firsts)}Q", *self.firsts) + b"".join(self.entries)
        return out + bytes(4)

    def segment(self, i: int) -> tuple[str, int, int]:
        """Segment ``i``'s file name, offset and length, as its entry says."""
        offset, length, file = struct.unpack_from("<QQI", self.entries[i], 8)
        return self.names[file].rstrip(b"\0").decode(), offset, length


def text_fields(directory: Directory) -> list[bool]:
    """Whether each field (in field order) is a text figure's."""
    stored = directory.fixed[18] | directory.fixed[19] << 8
    out = [False] * stored
    for f in directory.figures:
        if f[33] == 1 and f[36] | f[37] << 8 < stored:
            out[f[36] | f[37] << 8] = f[32] == 3
    return out


def sections(data: bytes | bytearray, texts: list[bool], lasts: dict[int, int] | None = None
             ) -> tuple[list[tuple[str, int, int]], int]:
    """A segment's sections as its numbers place them ((name, start, bytes) each) and the length they say. A
    text dictionary's last offset is read from ``data``, or taken from ``lasts`` (by field) where given."""
    layout, coding, count, key_bytes = data[4], data[5], data[6], data[7]
    slots, _, entries = struct.unpack_from("<QQQ", data, 16)
    entry_bits, long_bits, short_bits = data[40], data[41], data[42]
    (longs,) = struct.unpack_from("<Q", data, 48)
    out = []
    end = FIXED + FIELD * count

    def add(name: str, size: int) -> None:
        nonlocal end
        out.append((name, pad8(end), size))
        end = pad8(end) + size

    if layout == 2:
        add("keys", slots * key_bytes)
    if coding == 3:
        add("marks", 8 * -(-slots // 64))
        add("counts", 8 * -(-slots // 512))
        add("codes", -(-(max(slots - longs, 0) * short_bits + longs * long_bits) // 8))
    else:
        add("records", -(-slots * long_bits // 8))
    if coding != 1:
        add("dictionary", -(-entries * entry_bits // 8))
    for i in range(min(count, len(texts))):
        at = FIXED + FIELD * i
        if at + FIELD > len(data) or data[at] != 2:
            continue
        items = struct.unpack_from("<Q", data, at + 24)[0]
        if texts[i]:
            at = pad8(end) + 8 * items
            last = (lasts or {}).get(i, struct.unpack_from("<Q", data, at)[0] if at + 8 <= len(data) else 0)
            add(f"texts {i}", 8 * items + 8 + last)
        else:
            add(f"dictionary {i}", 8 * items)
    return out, pad8(end) + 8


def relaid(old: bytes, new: bytes, texts: list[bool]) -> bytes | None:
    """A segment whose fixed part and fields are those of ``new`` and whose sections are those of ``old``, each
    moved where the new numbers place it, cut or grown with zeros to its new size (a text dictionary keeps its
    last offset, at its new place). None where the new length would pass ``RESIZE_LIMIT``."""
    before, _ = sections(old, texts)
    lasts = {}
    for name, start, _ in before:
        if name.startswith("texts"):
            field = int(name.split()[1])
            items = struct.unpack_from("<Q", old, FIXED + FIELD * field + 24)[0]
            if start + 8 * items + 8 <= len(old):
                lasts[field] = struct.unpack_from("<Q", old, start + 8 * items)[0]
    after, length = sections(new, texts, lasts)
    if length > RESIZE_LIMIT or length < FIXED + 8:
        return None
    out = bytearray(length)
    head = FIXED + FIELD * new[6]
    out[: min(head, len(new))] = new[: min(head, len(new))]
    moved = {name: old[start : start + size] for name, start, size in before}
    for name, start, size in after:
        part = moved.get(name, b"")[:size]
        out[start : start + len(part)] = part
        if name.startswith("texts"):
            field = int(name.split()[1])
            items = struct.unpack_from("<Q", new, FIXED + FIELD * field + 24)[0]
            struct.pack_into("<Q", out, start + 8 * items, lasts.get(field, 0))
    return bytes(out)


class Index:
    """An index's files in memory: the directory apart, and the segment files' bytes by name."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.directory = Directory.read((folder / "probe.tbi").read_bytes())
        self.files = {p.name: bytearray(p.read_bytes()) for p in sorted((folder / "probe").iterdir())}
        self.texts = text_fields(self.directory)

    def place(self, i: int) -> tuple[bytearray, int, int] | None:
        """Segment ``i``'s file bytes, offset and length, if its entry places it inside its file."""
        name, offset, length = self.directory.segment(i)
        data = self.files.get(name)
        return None if data is None or offset + length > len(data) else (data, offset, length)

    def resize(self, i: int, segment: bytes) -> None:
        """Segment ``i`` replaced by ``segment``, the segments after it in its file moved."""
        name, offset, old = self.directory.segment(i)
        data = self.files[name]
        self.files[name] = data[:offset] + segment + data[offset + old :]
        for j, entry in enumerate(self.directory.entries):
            other, at, _ = self.directory.segment(j)
            if other == name and at > offset:
                struct.pack_into("<Q", entry, 8, at + len(segment) - old)
        struct.pack_into("<Q", self.directory.entries[i], 16, len(segment))

    def save(self, data: bytearray, keep_crc: bool) -> None:
        """The files written, the directory's bytes ``data`` (its parts put together, then changed in place):
        each segment's CRC-32 computed again from its entry, unless ``keep_crc``, then the directory's."""
        *_, entries = self.directory.starts()
        for i in range(len(self.directory.entries)) if not keep_crc else ():
            offset, length, file = struct.unpack_from("<QQI", data, entries + ENTRY * i + 8)
            name = self.directory.names[file].rstrip(b"\0").decode(errors="replace") if file < len(
                self.directory.names) else ""
            content = self.files.get(name)
            if content is not None and offset + length <= len(content):
                crc = zlib.crc32(bytes(content[offset : offset + length]))
                struct.pack_into("<I", data, entries + ENTRY * i + 28, crc)
        struct.pack_into("<I", data, len(data) - 4, zlib.crc32(bytes(data[:-4])))
        (self.folder / "probe.tbi").write_bytes(bytes(data))
        for name, content in self.files.items():
            (self.folder / "probe" / name).write_bytes(bytes(content))


def set_number(data: bytearray, at: int, size: int, rng: random.Random) -> str:
    now = int.from_bytes(data[at : at + size], "little")
    value = value_for(rng, size, now)
    data[at : at + size] = value.to_bytes(size, "little")
    return f"{now} -> {value}"


def _segment_number(index: Index, rng: random.Random, resize: bool) -> str:
    i = rng.randrange(len(index.directory.entries))
    placed = index.place(i)
    if placed is None:
        return "no segment in place"
    data, offset, length = placed
    count = data[offset + 6]
    if rng.random() < 0.5 or count == 0:  # mostly the counts and widths, whose change a resize carries through
        at, size, name = rng.choice(SEGMENT_FIELDS if rng.random() < 0.3 else SEGMENT_COUNTS)
    else:
        f = rng.randrange(count)
        at, size, name = rng.choice(FIELD_FIELDS if rng.random() < 0.3 else FIELD_COUNTS)
        at, name = at + FIXED + FIELD * f, f"field {f} {name}"
    if at + size > length:
        return "a segment too short"
    was = bytes(data[offset : offset + length])
    said = f"segment {i} {name} {set_number(data, offset + at, size, rng)}"
    if resize:
        moved = relaid(was, bytes(data[offset : offset + length]), index.texts)
        if moved is not None and len(moved) != length:
            index.resize(i, moved)
            said += f", resized to {len(moved)}"
    return said


def _segment_contents(index: Index, rng: random.Random) -> str:
    i = rng.randrange(len(index.directory.entries))
    placed = index.place(i)
    if placed is None:
        return "no segment in place"
    data, offset, length = placed
    parts = [s for s in sections(data[offset : offset + length], index.texts)[0] if s[2] > 0]
    if not parts:
        return "no section"
    name, start, size = rng.choice(parts)
    width = 8 if name in ("counts", "marks") or name.startswith(("texts", "dictionary ")) else rng.choice([1, 2, 4, 8])
    at = start + width * rng.randrange(max(size // width, 1))
    if at + width > length:
        return "a section past its segment"
    return f"segment {i} {name} at {at}: {set_number(data, offset + at, width, rng)}"


def _directory_part(index: Index, rng: random.Random) -> str:
    d = index.directory
    choice = rng.randrange(9)
    if choice == 0:
        d.about = rng.choice([b"", b"[]", b"{", b'{"a":' * 9 + b"1" + b"}" * 9, b'{"a":' * 8 + b"1" + b"}" * 8,
                              b'{"a":"[[[[[[[[[[["}', b'{"\xff":1}', b'{"a":NaN}', b" " * 70000, b"{}" + b" " * 3,
                              b'{"a":"\\ud800"}', b'{"a":1e999}', b'{"a":-}', b"\x00{}"])
        return f"about {d.about[:20]!r}"
    if choice == 1 and d.figures:
        d.figures.insert(rng.randrange(len(d.figures) + 1), bytearray(rng.choice(d.figures)))
        return "a figure twice"
    if choice == 2 and len(d.figures) > 1:
        d.figures.pop(rng.randrange(len(d.figures)))
        return "a figure less"
    if choice == 3 and d.names:
        j = rng.randrange(len(d.names))
        d.names[j] = rng.choice([b"..", b"a/b", b".hidden", b"x" * 47, b"x" * 48, b"", b"a\0b", b"b.tbs", b"a.tbs",
                                 b"missing.tbs", b"\xc3\xa9"]).ljust(NAME, b"\0")[:NAME]
        return f"file name {j} {d.names[j].rstrip(bytes(1))!r}"
    if choice == 4 and d.names:
        d.names.append(rng.choice(d.names))
        return "a file named twice"
    if choice == 5 and d.entries:
        j = rng.randrange(len(d.entries))
        d.entries.pop(j)
        d.firsts.pop(j)
        return f"segment {j} dropped"
    if choice == 6 and d.entries:
        j = rng.randrange(len(d.entries))
        d.entries.insert(j, bytearray(d.entries[j]))
        d.firsts.insert(j, d.firsts[j])
        return f"segment {j} twice"
    if choice == 7 and d.firsts:
        j = rng.randrange(len(d.firsts))
        d.firsts[j] = value_for(rng, 8, d.firsts[j])
        return f"first key {j} -> {d.firsts[j]}"
    d.figures.append(bytearray(b"extra".ljust(32, b"\0") + bytes([rng.randrange(1, 5), 2, 2, 0, 0xFF, 0xFF, 0xFF,
                                                                     0xFF]) + bytes(8)))
    return "a figure by the children more"


def _files(index: Index, rng: random.Random) -> str:
    name = rng.choice(sorted(index.files))
    choice = rng.randrange(4)
    if choice == 0:
        cut = rng.randrange(len(index.files[name]) + 1)
        index.files[name] = index.files[name][:cut]
        return f"{name} cut to {cut}"
    if choice == 1:
        index.files[name] += bytes(rng.choice([1, 8, 64]))
        return f"{name} grown"
    if choice == 2:
        del index.files[name]
        (index.folder / "probe" / name).unlink()
        return f"{name} deleted"
    other = rng.choice(sorted(index.files))
    index.files[name], index.files[other] = index.files[other], index.files[name]
    return f"{name} and {other} swapped"


def mutate(folder: Path, rng: random.Random) -> str:
    """One to three mutations of the index in ``folder``, its checksums made right: what they were."""
    index = Index(folder)
    done = []
    late = []  # numbers set in the directory's bytes once its parts are put together
    for _ in range(rng.choice([1, 1, 2, 3])):
        kind = rng.random()
        if kind < 0.22:
            late.append(rng.random())
        elif kind < 0.4:
            done.append(_segment_number(index, rng, resize=False))
        elif kind < 0.62:
            done.append(_segment_number(index, rng, resize=True))
        elif kind < 0.82:
            done.append(_segment_contents(index, rng))
        elif kind < 0.95:
            done.append(_directory_part(index, rng))
        else:
            done.append(_files(index, rng))
    data = index.directory.pack()
    for _ in late:
        done.append(_directory_number(index.directory, data, rng))
    keep_crc = rng.random() < 0.03
    index.save(data, keep_crc)
    return "; ".join(done) + ("; CRCs kept" if keep_crc else "")


def _directory_number(d: Directory, data: bytearray, rng: random.Random) -> str:
    figures, names, firsts, entries = d.starts()
    where = rng.random()
    if where < 0.3 or not d.entries:
        at, size, name = rng.choice(DIRECTORY_FIELDS)
    elif where < 0.55 and d.figures:
        i = rng.randrange(len(d.figures))
        at, size, name = rng.choice(FIGURE_FIELDS)
        at, name = at + figures + FIGURE * i, f"figure {i} {name}"
    elif where < 0.65 and d.names:
        i = rng.randrange(len(d.names))
        at, size, name = names + NAME * i + rng.choice([0, 1, 46, 47]), 1, f"file name {i}"
    elif where < 0.75:
        i = rng.randrange(len(d.firsts))
        at, size, name = firsts + 8 * i, 8, f"first key {i}"
    else:
        i = rng.randrange(len(d.entries))
        at, size, name = rng.choice(ENTRY_FIELDS)
        at, name = at + entries + ENTRY * i, f"entry {i} {name}"
    return f"directory {name} {set_number(data, at, size, rng)}"
