"""The probe index on synthetic tables: every figure type, nulls, both layouts and both record forms,
read back by the Python reader and compared with the rows as pyarrow reads them."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from probe_tables import mixed_rows, plain, same, stored_rows, synthetic_table

from tablebase.errors import PositionError, StoreError
from tablebase.probe import FILE_NAME, IndexFolder, ProbeIndex
from tablebase.probe.format import (
    DENSE,
    DICTIONARY,
    FIELDS,
    LISTED,
    OFFSET,
    RAW,
    SPARSE,
)
from tablebase.store.probe import PASSES, WEIGHTS, WORK, codes, write_index


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
    index.row(some)["key"] = -1
    assert same(index.row(some), {"key": some, **rows[some]})
    for key in keys_absent:
        assert index.probe(key) is None and index.row(key) is None, key
    keys = np.array([*rows, *keys_absent], dtype=np.int64)
    got = index.probe_many(keys)
    assert got["found"].tolist() == [True] * len(rows) + [False] * len(keys_absent)
    for name in index.names:
        column = got[name]
        mask = np.ma.getmaskarray(column)
        for i, (key, row) in enumerate(rows.items()):
            value = None if mask[i] else plain(column.data[i])
            assert same(value, row[name]), (key, name, value, row[name])
        assert mask[len(rows):].all()
    listed = index.probe_many([*rows][:3] + [keys_absent[0]])  # not an array: a list of probes
    assert all(same(a, rows[k]) for a, k in zip(listed, [*rows][:3])) and listed[3] is None
    return index


@pytest.mark.parametrize("distinct", [0, 2])
def test_a_dense_table_of_every_type_reads_back_as_stored(tmp_path, distinct):
    keys = np.array([k for k in range(1, 3000) if k % 11], dtype=np.int64)  # gaps: keys that are no position
    synthetic_table(tmp_path, "mixed", mixed_rows(keys, distinct=distinct))
    with check_every_key(tmp_path, "mixed", [0, 11, 2992, 3000, 10**12, -1]) as index:
        h = index.header
        assert (h.layout, h.records) == (DENSE, DICTIONARY if distinct else FIELDS)
        assert h.slots == 3000 and h.positions == len(keys)
        encodings = {f.name: f.encoding for f in h.figures}
        assert encodings["small"] == OFFSET and encodings["hashed"] == LISTED and encodings["word"] == LISTED
        assert "level" not in encodings and "position" not in encodings and "key" not in encodings


@pytest.mark.parametrize("distinct", [0, 2])
def test_a_sparse_table_is_searched_in_its_sorted_keys(tmp_path, distinct):
    rng = np.random.default_rng(7)
    keys = np.unique(rng.integers(0, 2**50, 2500))
    synthetic_table(tmp_path, "sparse", mixed_rows(keys, distinct=distinct), parts=2)
    between = [int(k) + 1 for k in keys[:20] if int(k) + 1 not in set(keys.tolist())]
    with check_every_key(tmp_path, "sparse", [*between, 2**50 + 5, 2**63 - 1, -3]) as index:
        assert (index.header.layout, index.header.key_bytes) == (SPARSE, 8)
        assert index.header.records == (DICTIONARY if distinct else FIELDS)


@pytest.mark.parametrize("distinct", [0, 2])
@pytest.mark.parametrize("layout", [DENSE, SPARSE])
def test_a_large_batch_gathered_in_parts_on_threads_reads_as_stored(tmp_path, monkeypatch, distinct, layout):
    """A large batch's records are gathered in parts, one a core, on threads (``threads.in_parts``): a
    random key of an index of gigabytes waits on memory, and two cores wait on two at a time."""
    from tablebase import threads
    from tablebase.probe import columns

    monkeypatch.setattr(threads, "THREAD_SHARE", 100)
    monkeypatch.setattr(threads, "THREADS", 3)
    parts: list[int] = []

    def counted(n, work):
        answer = threads.in_parts(n, work)
        parts.append(len(answer))
        return answer

    monkeypatch.setattr(columns, "in_parts", counted)
    keys = np.array([k for k in range(1, 3000) if k % 11], dtype=np.int64)
    if layout == SPARSE:
        keys = keys * 2**40 + 7
    synthetic_table(tmp_path, "mixed", mixed_rows(keys, distinct=distinct))
    absent = [0, 11, 2992, 10**15, -1]
    with check_every_key(tmp_path, "mixed", absent) as index:
        assert index.header.layout == layout
    assert 3 in parts


def test_a_batch_of_keys_reads_its_records_in_place_without_copying_the_section(tmp_path):
    """probe_many gathers the records of its keys from the mapped file: what it allocates follows the batch,
    not the table (a copy of the records section made a batch of Chomp 17x17 take 13 s and 11 GB)."""
    import tracemalloc

    keys = np.arange(2_000_000, dtype=np.int64)
    rows = pa.table({"key": keys, "value": pa.array(keys % 1000, pa.int64()), "level": pa.array(keys % 3, pa.int32())})
    synthetic_table(tmp_path, "large", rows)
    with ProbeIndex(tmp_path / "large" / FILE_NAME) as index:
        assert index.header.records == FIELDS and index.header.record_bits == 10
        index.probe_many(np.array([0]))  # the batch's tables made once
        asked = np.array([5, 1_999_999, 123_456, 7], dtype=np.int64)
        tracemalloc.start()
        found = index.probe_many(asked)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert found["value"].tolist() == (asked % 1000).tolist()
    assert peak < 100_000  # the records section is 2.5 MB, its words read every 4 bytes 5 MB


def test_tuples_coded_by_rank_in_a_bitmap_or_by_search_give_the_same_bytes(tmp_path, monkeypatch):
    from tablebase.store.probe import write

    rows = mixed_rows(np.arange(0, 30_000, 2, dtype=np.int64), seed=5, distinct=2)
    tabled = synthetic_table(tmp_path / "tabled", "coded", rows)
    with ProbeIndex(tmp_path / "tabled" / "coded" / FILE_NAME) as index:
        assert index.header.records == DICTIONARY and index.header.entry_bits <= write.CODE_TABLE_BITS
    monkeypatch.setattr(write, "CODE_TABLE_BITS", 0)
    searched = synthetic_table(tmp_path / "searched", "coded", rows)
    assert tabled.probe[FILE_NAME]["sha256"] == searched.probe[FILE_NAME]["sha256"]


@pytest.mark.parametrize("bits", [1, 5, 6, 7, 12, 20])
def test_a_tuples_rank_in_the_bitmap_is_its_place_among_the_tuples(bits):
    from tablebase.store.probe.write import TupleRanks

    rng = np.random.default_rng(bits)
    every = np.arange(1 << bits, dtype=np.uint64)
    for share in (1, 0.5, 0.01):
        tuples = np.unique(rng.choice(every, size=max(1, int(len(every) * share)), replace=False))
        asked = tuples[rng.integers(0, len(tuples), size=5000)]
        expected = [int(np.count_nonzero(tuples < t)) for t in asked[:200]]  # the definition: tuples below it
        assert TupleRanks(tuples, bits)(asked)[:200].tolist() == expected
        assert (TupleRanks(tuples, bits)(asked) == np.searchsorted(tuples, asked)).all()


def test_runs_of_levels_and_parts_of_levels_give_the_same_bytes(tmp_path):
    keys = np.arange(5000, dtype=np.int64)
    rows = mixed_rows(keys, seed=3)
    made = [synthetic_table(tmp_path / str(i), "same", rows, parts=parts, run=run)
            for i, (parts, run) in enumerate([(1, 1), (3, 1), (1, 4), (1, 7)])]
    assert len({m.probe[FILE_NAME]["sha256"] for m in made}) == 1
    assert len({tuple(sorted(m.files)) for m in made}) == 4  # four different sets of files


@pytest.mark.parametrize("distinct", [0, 2])
def test_writing_tells_every_row_of_every_pass_as_it_reads_it(tmp_path, distinct):
    """``done`` hears each batch of rows read (weighted by its pass), WORK times the table in all, in the
    order read: what the progress of a build's last step counts (a record dictionary or none, in one file
    or in several)."""
    from tablebase.store import Manifest

    keys = np.arange(0, 300_000, 3, dtype=np.int64)
    synthetic_table(tmp_path, "told", mixed_rows(keys, seed=4, distinct=distinct), run=2)
    heard: list[int] = []
    write_index(tmp_path, Manifest.load(tmp_path, "told"), done=heard.append)
    assert sum(heard) == WORK * len(keys) and len(heard) >= 2 * PASSES and min(heard) > 0
    assert all(h % WEIGHTS[-1] == 0 for h in heard[-2:])  # the records' pass, weighted


def test_floats_with_too_many_values_keep_their_bits_and_records_wider_than_64_bits(tmp_path, monkeypatch):
    monkeypatch.setattr(codes, "FLOATS_LISTED", 8)
    monkeypatch.setattr(codes, "INTEGERS_LISTED", 8)
    rng = np.random.default_rng(5)
    keys = np.arange(2000, dtype=np.int64)
    floats = rng.normal(size=len(keys))
    floats[::9] = np.nan
    rows = pa.table({"key": keys, "x": pa.array(floats, mask=keys % 13 == 0),
                     "a": pa.array(rng.integers(-2**40, 2**40, len(keys))),
                     "b": pa.array(rng.integers(0, 2**40, len(keys)), pa.uint64()),
                     "level": pa.array(np.zeros(len(keys), np.int32))})
    manifest = synthetic_table(tmp_path, "wide", rows)
    heard: list[int] = []  # no pass of distinct tuples for records this wide: its rows are told at once
    write_index(tmp_path, manifest, done=heard.append)
    assert sum(heard) == WORK * len(keys) and len(keys) * WEIGHTS[1] in heard
    with check_every_key(tmp_path, "wide", [2000, 5000]) as index:
        figures = {f.name: f for f in index.header.figures}
        assert figures["x"].encoding == RAW and figures["x"].width == 64
        assert index.header.records == FIELDS and index.header.record_bits > 64


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


@pytest.mark.parametrize("where, what", [(0, "not a probe index"), (9, "format"), (40, "header's CRC-32"),
                                         (10, "little-endian")])
def test_a_damaged_header_is_refused_on_open(tmp_path, where, what):
    synthetic_table(tmp_path, "bad", mixed_rows(np.arange(100, dtype=np.int64)))
    path = tmp_path / "bad" / FILE_NAME
    data = bytearray(path.read_bytes())
    data[where] ^= 0x01 if where != 10 else 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match=what):
        ProbeIndex(path)


def test_a_truncated_or_empty_file_is_refused_on_open(tmp_path):
    synthetic_table(tmp_path, "cut", mixed_rows(np.arange(100, dtype=np.int64)))
    path = tmp_path / "cut" / FILE_NAME
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) - 16])
    with pytest.raises(StoreError, match="section"):
        ProbeIndex(path)
    path.write_bytes(b"")
    with pytest.raises(StoreError, match="cannot open"):
        ProbeIndex(path)


def test_a_flipped_byte_in_a_section_fails_its_checksum(tmp_path):
    synthetic_table(tmp_path, "crc", mixed_rows(np.arange(1000, dtype=np.int64)))
    path = tmp_path / "crc" / FILE_NAME
    with ProbeIndex(path) as index:
        assert index.check() == []
        records = index.header.section(2)
    data = bytearray(path.read_bytes())
    data[records.offset + 20] ^= 0x40
    path.write_bytes(bytes(data))
    with ProbeIndex(path) as index:
        assert index.check() == [f"section records at byte {records.offset}: CRC-32 differs"]


def test_a_dense_index_takes_its_rows_a_block_of_keys_at_a_time_each_once(tmp_path, monkeypatch):
    """``in_key_blocks``: every row once, with its payload, each block's keys before the next block's, in
    pieces of ascending keys; and a key that two files hold is refused, not written twice."""
    from tablebase.store.probe import order

    keys = np.arange(40_000, dtype=np.int64)
    rows = mixed_rows(keys).set_column(9, "level", pa.array((keys % 20).astype(np.int32)))
    manifest = synthetic_table(tmp_path, "blocks", rows, parts=4)
    sources = [order.Source.of(tmp_path / "blocks" / piece.name, True) for piece in manifest.layout().pieces]
    monkeypatch.setattr(order, "MERGE_BATCH", 64)
    pieces = list(order.in_key_blocks(sources, ["key", "small"], [], lambda b: b.column("key").to_numpy() * 3, 1000))
    assert all((k[1:] > k[:-1]).all() and k[0] // 1000 == k[-1] // 1000 for k, _ in pieces)
    blocks = [int(k[0]) // 1000 for k, _ in pieces]
    assert blocks == sorted(blocks) and len(pieces) > 40 * 20  # many pieces a block, in no order within it
    out = np.concatenate([k for k, _ in pieces])
    assert sorted(out.tolist()) == keys.tolist()
    assert (np.concatenate([p for _, p in pieces]) == out * 3).all()

    twice = pa.concat_tables([rows, rows.slice(777, 1).set_column(9, "level", pa.array([25], pa.int32()))])
    with pytest.raises(StoreError, match="stored twice"):
        synthetic_table(tmp_path / "twice", "twice", twice, parts=4)


@pytest.mark.parametrize("distinct", [0, 2])
def test_records_written_in_parts_at_once_are_the_bytes_one_writer_makes(tmp_path, monkeypatch, distinct):
    """A dense index's records cut in ranges of keys, written by threads at once, each part reading only
    the row groups that may hold its keys: the same file as one writer's, every key read back as stored."""
    import tablebase.store.probe as probe
    from tablebase.store import Manifest
    from tablebase.store.probe import InProcesses, InThreads, order, write

    keys = np.array([k for k in range(30_000) if k % 7], dtype=np.int64)
    rows = mixed_rows(keys, seed=6, distinct=distinct).set_column(9, "level", pa.array((keys % 5).astype(np.int32)))
    one = synthetic_table(tmp_path, "parts", rows, parts=2, group=200)  # each file spans every key
    monkeypatch.setattr(write, "BLOCK", 1024)
    monkeypatch.setattr(probe, "BLOCK", 1024)
    heard: list[int] = []
    with InProcesses(2) as processes:
        for parallel in (InThreads(1), InThreads(3), processes):
            again = write_index(tmp_path, Manifest.load(tmp_path, "parts"), done=heard.append, parallel=parallel)
            assert again[FILE_NAME]["sha256"] == one.probe[FILE_NAME]["sha256"], parallel
    assert sum(heard) == 3 * WORK * len(keys)
    check_every_key(tmp_path, "parts", [0, 7, 29_995, 30_000, 10**9]).close()

    path = tmp_path / "parts" / one.layout().pieces[0].name
    source, inside = order.Source.of(path, True), pc.field("key")
    part = source.within(1000, 1500)
    assert len(source.groups) > 10 and len(part._chosen(1000, 1500)) <= 2
    expected = pq.read_table(path, columns=["key"], filters=(inside >= 1000) & (inside < 1500))
    assert [k for b in part.batches(["key"], []) for k in b.column("key").to_pylist()] == \
        expected.column("key").to_pylist() != []


@pytest.mark.parametrize("width", [1, 3, 8, 9, 20, 26, 31, 33, 63, 64])
def test_records_packed_in_words_are_the_bits_side_by_side(width):
    """Each row's low ``width`` bits one after another from bit 0 of byte 0, as one big number would
    hold them (little-endian), whatever the rows' count."""
    from tablebase.store.probe.write import pack

    rng = np.random.default_rng(width)
    for n in (1, 7, 8, 65, 1000):
        values = rng.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        number = sum((int(v) & ((1 << width) - 1)) << (i * width) for i, v in enumerate(values.tolist()))
        assert pack(values, (width,)) == number.to_bytes((n * width + 7) // 8, "little"), n


@pytest.mark.parametrize("width", [1, 7, 8, 9, 16, 20, 32, 33, 40, 64])
def test_records_read_back_are_the_bits_of_one_big_number(width):
    """A reader's records at any slots, read by one gather of bytes at a whole number of them (8, 16, 32
    bits) and by shifts and masks otherwise, are the bits a big integer of the section holds there."""
    from tablebase.probe.columns import Bits
    from tablebase.probe.format import COUNT, Section

    rng = np.random.default_rng(width)
    n = 1000
    values = [int(v) & ((1 << width) - 1) for v in rng.integers(0, 2**63, n, dtype=np.uint64).tolist()]
    values = [v | ((v & 1) << (width - 1)) for v in values]  # the top bit set in some
    body = sum(v << (i * width) for i, v in enumerate(values)).to_bytes((n * width + 7) // 8, "little")
    data = b"\x00" * 3 + COUNT.pack(n) + body + b"\x00" * 16  # an odd offset: no alignment assumed
    bits = Bits(data, Section(0, 0, 3, COUNT.size + len(body)))
    slots = rng.integers(0, n, 5000)
    assert bits.records(slots, width).tolist() == [values[s] for s in slots.tolist()]


def test_the_merge_holds_a_batch_of_each_open_file_never_the_table(tmp_path, monkeypatch):
    from tablebase.store.probe import order

    keys = np.arange(40_000, dtype=np.int64)
    rows = mixed_rows(keys).set_column(9, "level", pa.array((keys % 20).astype(np.int32)))  # levels interleave
    manifest = synthetic_table(tmp_path, "merged", rows, parts=4)  # 80 files, each in key order
    held: list[int] = []  # rows buffered in all open files, after each refill
    alive: set = set()

    class Watched(order._Open):
        def __init__(self, *args) -> None:
            super().__init__(*args)
            alive.add(self)

        def refill(self) -> bool:
            more = super().refill()
            if not more:
                alive.discard(self)
            held.append(sum(len(o.keys) - o.taken for o in alive))
            return more

    monkeypatch.setattr(order, "MERGE_BATCH", 64)
    monkeypatch.setattr(order, "_Open", Watched)
    sources = [order.Source.of(tmp_path / "merged" / piece.name, True) for piece in manifest.layout().pieces]
    merged = list(order.in_key_order(sources, ["key", "small"], [], lambda b: b.column("key").to_numpy() * 3))
    out = np.concatenate([k for k, _ in merged])
    assert out.tolist() == keys.tolist()
    assert np.concatenate([p for _, p in merged]).tolist() == (keys * 3).tolist()  # payloads follow their keys
    assert len(sources) == 80 and max(held) <= 20 * 64  # a batch of one part of each level at most
