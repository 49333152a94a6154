"""The probe index on synthetic tables: every figure type, nulls, both layouts and the three codings, read
back by the Python reader and compared with the rows as pyarrow reads them; the derived figures against
their definitions; damaged files refused."""

from __future__ import annotations

import struct
import subprocess
import sys
import zlib

import numpy as np
import pyarrow as pa
import pytest
from probe_tables import mixed_rows, plain, same, stored_rows, synthetic_table

from tablebase.errors import PositionError, StoreError
from tablebase.jit import compile_all
from tablebase.probe import FILE_NAME, IndexFolder, ProbeIndex
from tablebase.probe.format import (
    DENSE,
    DICTIONARY,
    FIELDS,
    SEGMENT,
    SPARSE,
    TWO_WIDTHS,
    U64,
    read_directory,
)
from tablebase.probe_writer import (
    figures_of,
    impartial_rules,
    segment_of_rows,
    segment_of_values,
    write_directory,
    write_segments,
)
from tablebase.probe_writer.bits import pack, two_widths


def check_every_key(root, table, keys_absent) -> ProbeIndex:
    """Every stored key probes to its row; keys that are not stored probe to None."""
    rows = stored_rows(root, table)
    index = ProbeIndex(root / table / FILE_NAME)
    for key, row in rows.items():
        assert same(index.probe(key), row), key
        found = index.row(key)  # the key first, then the figures in the table's order
        assert same(found, {"key": key, **row}) and list(found) == ["key", *row], key
    some = next(iter(rows))
    index.probe(some).clear()  # a caller's change to an answer changes no other answer
    assert same(index.probe(some), rows[some])
    for key in keys_absent:
        assert index.probe(key) is None and index.row(key) is None, key
    keys = np.array([*rows, *keys_absent], dtype=np.int64)
    got = index.probe_many(keys)
    assert got.found.tolist() == [True] * len(rows) + [False] * len(keys_absent)
    for name in index.names:
        column = got[name]
        mask = np.ma.getmaskarray(column)
        for i, (key, row) in enumerate(rows.items()):
            value = None if mask[i] else plain(np.ma.getdata(column)[i])
            assert same(value, row[name]), (key, name, value, row[name])
        assert mask[len(rows):].all()
    listed = index.probe_many([*rows][:3] + [keys_absent[0]])  # not an array: a list of probes
    assert all(same(a, rows[k]) for a, k in zip(listed, [*rows][:3])) and listed[3] is None
    return index


def segments(index: ProbeIndex) -> list:
    return [index.segment(i).s for i in range(index.directory.segments)]


@pytest.mark.parametrize("distinct", [0, 2])
@pytest.mark.parametrize("parts, run", [(1, 1), (3, 1), (1, 4)])
def test_a_table_of_every_type_reads_back_as_stored(tmp_path, distinct, parts, run):
    keys = np.arange(1, 3000, dtype=np.int64)
    synthetic_table(tmp_path, "dense", mixed_rows(keys, distinct=distinct), parts=parts, run=run)
    with check_every_key(tmp_path, "dense", [0, 3000, 3001, 10**12, -1]) as index:
        assert {s.layout for s in segments(index)} == {DENSE}


@pytest.mark.parametrize("distinct", [0, 2])
def test_a_sparse_table_is_searched_in_its_listed_keys(tmp_path, distinct):
    keys = np.unique(np.random.default_rng(3).integers(0, 2**62, 2000)).astype(np.int64)
    synthetic_table(tmp_path, "sparse", mixed_rows(keys, distinct=distinct), parts=2)
    with check_every_key(tmp_path, "sparse", [0, int(keys[0]) + 1, int(keys[-1]) + 1]) as index:
        assert {(s.layout, s.key_bytes) for s in segments(index)} == {(SPARSE, 8)}


def test_keys_that_fill_most_of_their_range_are_dense_with_holes(tmp_path):
    keys = np.setdiff1d(np.arange(5000, dtype=np.int64), np.arange(0, 5000, 7))
    synthetic_table(tmp_path, "holes", mixed_rows(keys, distinct=2))
    with check_every_key(tmp_path, "holes", [0, 7, 4998]) as index:
        assert {s.layout for s in segments(index)} == {DENSE} and all(s.absent != 2**64 - 1 for s in segments(index))


def _index_of(root, table, rows, rules=None):
    """A one-segment index of ``rows`` written by hand (the table's folder made)."""
    figures = figures_of(rows.schema, rules or {})
    (root / table / "probe").mkdir(parents=True)
    files = {"a.tbs": write_segments(root, table, "probe/a.tbs", [segment_of_rows(rows, figures)],
                                     rows.num_rows)}
    write_directory(root, table, {"table": table}, figures, rows.num_rows, files)
    return ProbeIndex(root / table / FILE_NAME)


def test_each_coding_is_chosen_where_it_is_smallest(tmp_path):
    n = 40_000
    rng = np.random.default_rng(5)
    spread = pa.table({"key": np.arange(n), "a": rng.integers(0, 1 << 20, n)})  # every value its own
    pairs = rng.integers(0, 1000, n)  # 1,000 tuples of two fields, each as often: their number is 10 bits
    even = pa.table({"key": np.arange(n), "a": pairs * 977, "b": (pairs * 7919) % 1013})
    skewed = pa.table({"key": np.arange(n), "a": np.where(rng.random(n) < 0.9, rng.integers(0, 4, n) * 977,
                                                         rng.integers(0, 5000, n) * 977)})
    for name, rows, coding in [("spread", spread, FIELDS), ("even", even, DICTIONARY), ("skewed", skewed, TWO_WIDTHS)]:
        with _index_of(tmp_path, name, rows) as index:
            assert segments(index)[0].coding == coding, name
            want = rows.column("a").to_pylist()
            assert [index.probe(k)["a"] for k in range(0, n, 97)] == want[::97]
            got = index.probe_many(np.arange(n))
            assert np.ma.getdata(got["a"]).tolist() == want


def test_records_wider_than_64_bits_and_floats_kept_as_their_bits(tmp_path, monkeypatch):
    from tablebase.probe_writer import fields

    monkeypatch.setattr(fields, "FLOATS_LISTED", 10)
    n = 500
    rng = np.random.default_rng(2)
    rows = pa.table({"key": np.arange(n) * 3, "x": rng.random(n), "y": pa.array(rng.integers(0, 2**63, n), pa.uint64()),
                     "z": pa.array([None if i % 5 else float(i) for i in range(n)])})
    with _index_of(tmp_path, "wide", rows) as index:
        s = segments(index)[0]
        assert s.coding == FIELDS and s.entry_bits > 64 and s.fields[0].encoding == 3  # raw
        for key, want in zip(range(0, 3 * n, 3), rows.to_pylist()):
            assert same(index.row(key), want)
        got = index.probe_many(np.arange(0, 3 * n, 3))
        assert np.ma.getdata(got["y"]).tolist() == rows.column("y").to_pylist()


def _impartial(n, seed=0, misere=False):
    rng = np.random.default_rng(seed)
    g = rng.choice([0, 0, 1, 2, 3, 7], n).astype(np.uint8)
    r = (2 * rng.integers(0, 20, n) + (g != 0)).astype(np.uint8)
    columns = {"key": np.arange(n), "grundy": g, "outcome": np.where(g == 0, "P", "N")}
    if misere:
        columns["misere_outcome"] = rng.choice(["N", "P"], n)
    columns |= {"remoteness": r, "best_move": pa.array([f"m{i % 3}" for i in range(n)])}
    return pa.table(columns)


def test_an_impartial_index_derives_the_outcome_and_halves_the_remoteness(tmp_path):
    rows = _impartial(3000)
    with _index_of(tmp_path, "imp", rows, impartial_rules(rows.column_names)) as index:
        assert index.names == ["grundy", "outcome", "remoteness"] and index.by_children == ["best_move"]
        assert [f.name for f in index.directory.stored] == ["grundy", "remoteness"]
        want = rows.drop_columns(["best_move"]).to_pylist()
        assert all(same(index.row(k), want[k]) for k in range(3000))
        got = index.probe_many(np.arange(3000))
        assert got["outcome"].tolist() == rows.column("outcome").to_pylist()
        assert np.ma.getdata(got["remoteness"]).tolist() == rows.column("remoteness").to_pylist()


def test_rows_whose_figures_break_a_rule_are_refused(tmp_path):
    rows = _impartial(100)
    bad = rows.set_column(3, "remoteness", pa.array(np.full(100, 4, np.uint8)))  # even where the mover wins
    with pytest.raises(StoreError, match="odd where the position is not won"):
        segment_of_rows(bad, figures_of(bad.schema, impartial_rules(bad.column_names)))
    other = rows.set_column(2, "outcome", pa.array(["N"] * 100))
    with pytest.raises(StoreError, match="not the outcome its Grundy value gives"):
        segment_of_rows(other, figures_of(other.schema, impartial_rules(other.column_names)))


@pytest.mark.parametrize("misere", [False, True])
def test_a_segment_of_values_held_in_key_order_reads_as_the_rows_would(tmp_path, misere):
    compile_all()
    rows = _impartial(5000, 1, misere)
    figures = figures_of(rows.schema, impartial_rules(rows.column_names))
    g, r = rows.column("grundy").to_numpy(), rows.column("remoteness").to_numpy()
    wins = (rows.column("misere_outcome").to_numpy(zero_copy_only=False) == "N") if misere else None
    present = np.ones(5000, dtype=bool)
    present[[0, 17, 4999]] = False
    data = [(a, b - 1, segment_of_values(a, g[a:b], r[a:b], None if wins is None else wins[a:b],
                                         present[a:b], [True] * 3)) for a, b in [(0, 3000), (3000, 5000)]]
    (tmp_path / "v" / "probe").mkdir(parents=True)
    files = {"k.tbs": write_segments(tmp_path, "v", "probe/k.tbs", data, 4997)}
    write_directory(tmp_path, "v", {}, figures, 4997, files)
    want = rows.drop_columns(["best_move"]).to_pylist()
    with ProbeIndex(tmp_path / "v" / FILE_NAME) as index:
        for k in range(5000):
            assert same(index.row(k), want[k] if present[k] else None), k
        got = index.probe_many(np.arange(5000))
        assert got.found.tolist() == present.tolist()
    with pytest.raises(StoreError, match="parity"):
        segment_of_values(0, g, r ^ 1)


def test_one_probe_imports_neither_numpy_nor_pyarrow(tmp_path):
    synthetic_table(tmp_path, "light", mixed_rows(np.arange(1, 300, dtype=np.int64)))
    script = ("import sys; from tablebase.probe import ProbeIndex; "
              f"i = ProbeIndex({str(tmp_path / 'light' / FILE_NAME)!r}); "
              "print(i.probe(5) is not None, i.probe(0) is None, "
              "sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'pyarrow', 'duckdb', 'numba')))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "True True []"


def test_a_folder_keeps_a_bounded_number_of_indexes_open(tmp_path):
    for name in ("t_a", "t_b", "t_c"):
        synthetic_table(tmp_path, name, mixed_rows(np.arange(10, dtype=np.int64)))
    rows = stored_rows(tmp_path, "t_a")
    with IndexFolder(tmp_path, max_open=2) as folder:
        first = folder.index("t_a")
        assert same(folder.probe("t_b", 3), stored_rows(tmp_path, "t_b")[3])
        assert same(folder.probe("t_a", 4), rows[4])  # t_a is the most recently used now
        folder.probe("t_c", 1)
        assert folder.open_tables == ["t_a", "t_c"]
        assert folder.index("t_a") is first
        with pytest.raises(PositionError, match="key 99 is not stored"):
            folder.probe("t_a", 99)
        with pytest.raises(StoreError, match="no probe index"):
            folder.index("missing")
        with pytest.raises(StoreError, match="bad table name"):
            folder.index("../t_a")


@pytest.mark.parametrize("where, what", [(0, "not a probe index"), (8, "format"), (30, "CRC-32"),
                                         (10, "little-endian")])
def test_a_damaged_directory_is_refused_on_open(tmp_path, where, what):
    synthetic_table(tmp_path, "bad", mixed_rows(np.arange(100, dtype=np.int64)))
    path = tmp_path / "bad" / FILE_NAME
    data = bytearray(path.read_bytes())
    data[where] ^= 0x01 if where != 10 else 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=what):
        ProbeIndex(path)


# Each edit of a directory's segment entries, with its CRC-32 made right again, as a crafted folder would:
# (segment, field, new value; fields: 0 its last key, 1 offset, 2 length, 3 file) and the segment refused.
ENTRY_EDITS = [(1, "first", 1000, "segment 1"), (1, 0, 200, "segment 1"), (2, 1, 4, "segment 2"),
               (0, 3, 7, "segment 0"), (3, 2, 8, "segment 3 of 8 bytes"), (0, 0, 64, "segment 0")]


@pytest.mark.parametrize("segment, field, value, what", ENTRY_EDITS)
def test_a_directory_whose_segments_disagree_is_refused_on_open(tmp_path, monkeypatch, segment, field, value, what):
    from tablebase.probe_writer import whole
    monkeypatch.setattr(whole, "SEGMENT_KEYS", 64)  # four segments of a small table
    synthetic_table(tmp_path, "crafted", mixed_rows(np.arange(256, dtype=np.int64)))
    path = tmp_path / "crafted" / FILE_NAME
    data = bytearray(path.read_bytes())
    directory = read_directory(bytes(data), "crafted")
    assert directory.segments == 4
    ProbeIndex(path).close()  # whole, it opens
    if field == "first":
        struct.pack_into("<Q", data, directory.firsts + 8 * segment, value)
    else:
        struct.pack_into("<Q", data, directory.entries + 32 * segment + 8 * field, value)
    struct.pack_into("<I", data, len(data) - 4, zlib.crc32(data[: len(data) - 4]))
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=what):
        ProbeIndex(path)


def test_a_truncated_or_empty_directory_is_refused_on_open(tmp_path):
    synthetic_table(tmp_path, "cut", mixed_rows(np.arange(100, dtype=np.int64)))
    path = tmp_path / "cut" / FILE_NAME
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) - 16])
    with pytest.raises(StoreError, match="bytes said"):
        ProbeIndex(path)
    path.write_bytes(b"")
    with pytest.raises(StoreError, match="not a probe index"):
        ProbeIndex(path)


def test_an_index_of_the_first_format_is_refused_in_one_line(tmp_path):
    synthetic_table(tmp_path, "old", mixed_rows(np.arange(100, dtype=np.int64)))
    path = tmp_path / "old" / FILE_NAME
    data = bytearray(path.read_bytes())
    data[8:10] = (1).to_bytes(2, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="format 1, this reader reads 2; write it again with tablebase index"):
        ProbeIndex(path)


def test_a_flipped_byte_in_a_segment_is_refused_when_first_touched(tmp_path):
    synthetic_table(tmp_path, "crc", mixed_rows(np.arange(1000, dtype=np.int64)), parts=2)
    name = sorted((tmp_path / "crc" / "probe").iterdir())[0]
    data = bytearray(name.read_bytes())
    data[SEGMENT.size + 40] ^= 0x40
    name.write_bytes(bytes(data))
    with ProbeIndex(tmp_path / "crc" / FILE_NAME) as index:
        problems = index.check()
        assert len(problems) == 1 and "CRC-32 differs" in problems[0]
        with pytest.raises(StoreError, match="CRC-32 differs"):
            index.probe(0)
        with pytest.raises(StoreError, match="CRC-32 differs"):
            index.probe_many(np.arange(10))


@pytest.mark.parametrize("width", [0, 1, 3, 7, 8, 13, 31, 33, 57, 63, 64])
def test_codes_packed_are_the_bits_of_one_big_number(width):
    values = np.random.default_rng(width).integers(0, 2**63, 300, dtype=np.int64).astype(np.uint64) * 2 + 1
    big = sum((int(v) & ((1 << width) - 1)) << (i * width) for i, v in enumerate(values.tolist()))
    assert pack(values, width) == big.to_bytes(-(-300 * width // 8), "little")


def test_two_widths_sections_follow_their_definition():
    codes = np.random.default_rng(4).choice([0, 1, 2, 3, 100, 900], 2000).astype(np.uint64)
    marks, counts, packed = two_widths(codes, 2, 10, int((codes >= 4).sum()))
    long = [int(c) >= 4 for c in codes.tolist()]
    assert int.from_bytes(marks, "little") == sum(1 << i for i, x in enumerate(long) if x)
    assert [U64.unpack_from(counts, 8 * g)[0] for g in range(len(counts) // 8)] == \
        [sum(long[: 512 * g]) for g in range(-(-2000 // 512))]
    big, at = 0, 0
    for c, x in zip(codes.tolist(), long):
        big |= c << at
        at += 10 if x else 2
    assert packed == big.to_bytes(-(-at // 8), "little")


def _reread(data: bytearray, at: int, length: int) -> None:
    """The directory's CRC of a file's bytes made right again after a change."""
    struct.pack_into("<I", data, length - 4, zlib.crc32(bytes(data[: length - 4])))


@pytest.mark.parametrize("seed", range(40))
def test_fields_set_to_anything_with_checksums_made_right_are_refused_not_trusted(tmp_path, seed):
    """A structure-aware mutation of the directory or a segment's fixed part and fields, the CRCs computed
    again (as an attacker would): every read ends in an answer or a StoreError, never another exception,
    a hang or an allocation the file does not hold."""
    rng = np.random.default_rng(seed)
    rows = mixed_rows(np.arange(1, 400, dtype=np.int64), distinct=2 if seed % 2 else 0)
    synthetic_table(tmp_path, "t", rows, parts=2)
    directory = tmp_path / "t" / FILE_NAME
    segment_file = sorted((tmp_path / "t" / "probe").iterdir())[0]
    data = bytearray(segment_file.read_bytes())
    if seed % 3:
        fields = 64 + 32 * 8
        for _ in range(rng.integers(1, 4)):
            at = int(rng.integers(4, fields))
            value = int(rng.choice([0, 1, 0xFF, 0x80, int(rng.integers(0, 256))]))
            data[at] = value
        segment_file.write_bytes(bytes(data))
        table = bytearray(directory.read_bytes())
        segments_at = len(table) - 4 - 32 * 2
        for i in range(2):  # the segments' CRCs made right
            file = struct.unpack_from("<I", table, segments_at + 32 * i + 24)[0]
            if file == 0:
                offset, length = struct.unpack_from("<QQ", table, segments_at + 32 * i + 8)
                struct.pack_into("<I", table, segments_at + 32 * i + 28,
                                 zlib.crc32(bytes(data[offset : offset + length])))
        _reread(table, 0, len(table))
        directory.write_bytes(bytes(table))
    else:
        table = bytearray(directory.read_bytes())
        for _ in range(rng.integers(1, 4)):
            at = int(rng.integers(12, len(table) - 4))
            table[at] = int(rng.integers(0, 256))
        _reread(table, 0, len(table))
        directory.write_bytes(bytes(table))
    try:
        index = ProbeIndex(directory)
    except StoreError:
        return
    with index:
        for call in (lambda: [index.probe(k) for k in range(0, 402, 7)],
                     lambda: index.probe_many(np.arange(0, 402, dtype=np.int64)),
                     index.check):
            try:
                call()
            except StoreError:
                pass
