"""Rows read in place from a probe index (``ProbedRows``) against the rows loaded from Parquet (``LoadedRows``).

Synthetic tables with every figure type and nulls, sparse and dense, some keys absent: one row and
batches of rows must be the same from both, as Python values.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from probe_tables import mixed_rows, same, synthetic_table

from tablebase.probe import FILE_NAME
from tablebase.store import LoadedRows, table_dir
from tablebase.store.probed import ProbedRows, probe_path


def spell(keys: np.ndarray) -> pa.Array:
    return pa.array([f"p{k}" for k in keys.tolist()])


def levels(keys: np.ndarray) -> np.ndarray:  # mixed_rows' levels
    return keys % 7


@pytest.mark.parametrize("keys, distinct", [
    (np.arange(0, 500, dtype=np.int64), 0),  # dense
    (np.arange(0, 500, dtype=np.int64), 2),  # dense, a record dictionary
    (np.arange(5, 40_000, 37, dtype=np.int64), 0),  # sparse
])
def test_probed_rows_are_the_loaded_rows(tmp_path, keys, distinct):
    rows = mixed_rows(keys, distinct=distinct)
    rows = rows.drop_columns(["flag"])  # LoadedRows cannot hold a boolean with nulls; no table has one
    manifest = synthetic_table(tmp_path, "t", rows)
    loaded = LoadedRows(tmp_path, "t", manifest, spell)
    path = probe_path(tmp_path, manifest)
    assert path == table_dir(tmp_path, "t") / FILE_NAME
    probed = ProbedRows(path, spell, levels, rows.column_names)
    asked = np.concatenate([keys, [-1, int(keys.max()) + 1, 1 << 40], keys[::-3] + 1])
    read_probed, read_loaded = probed.row_reader(), loaded.row_reader()  # bound once, as a table's probes use them
    for key in asked.tolist():
        assert same(probed.row(key), loaded.row(key)), key
        assert same(read_probed(key, key % 7), loaded.row(key)), key  # the level a probe read from the text
        assert same(read_loaded(key, key % 7), loaded.row(key)), key
    for positions in (True, False):
        a, b = probed.rows(asked, positions), loaded.rows(asked, positions)
        assert a.column_names == b.column_names
        for name in a.column_names:
            assert all(same(x, y) for x, y in zip(a.column(name).to_pylist(), b.column(name).to_pylist())), name
    probed.close()


def test_a_table_without_an_index_has_no_probe_path(tmp_path):
    manifest = synthetic_table(tmp_path, "t", mixed_rows(np.arange(10, dtype=np.int64)))
    (table_dir(tmp_path, "t") / FILE_NAME).unlink()
    assert probe_path(tmp_path, manifest) is None
    manifest.probe = {}
    assert probe_path(tmp_path, manifest) is None


@pytest.mark.parametrize("grouped", [False, True])
def test_a_batch_probed_in_parts_on_threads_is_the_batch_probed_whole(tmp_path, monkeypatch, grouped):
    """A batch of at least two threads' shares is decoded in parts, one a core, and (``grouped``: an index
    larger than the caches) in segment order: the same columns as the batch's keys probed a few at a time,
    in one part, in the order given (which the test above holds to the Parquet rows)."""
    import tablebase.probe.columns as columns
    import tablebase.probe_writer.whole as whole
    from tablebase.probe import ProbeIndex
    from tablebase.threads import THREAD_SHARE

    monkeypatch.setattr(columns, "GROUPED_FROM", 0 if grouped else 1 << 62)
    monkeypatch.setattr(whole, "SEGMENT_KEYS", 256)  # a dozen segments of a small table

    keys = np.arange(0, 3000, dtype=np.int64) * 997  # keys over a dozen segments
    manifest = synthetic_table(tmp_path, "t", mixed_rows(keys, distinct=2))
    rng = np.random.default_rng(5)
    asked = np.concatenate([rng.choice(keys, THREAD_SHARE + 3), rng.integers(-5, 3_000_000, THREAD_SHARE + 4)])
    rng.shuffle(asked)
    with ProbeIndex(probe_path(tmp_path, manifest)) as index:
        whole = index.probe_many(asked)
        monkeypatch.setattr(columns, "GROUPED_FROM", 1 << 62)
        pieces = [index.probe_many(asked[a:a + 5_000]) for a in range(0, len(asked), 5_000)]
        assert whole["found"].tolist() == [f for p in pieces for f in p["found"].tolist()]
        assert index.directory.segments > 5 and whole["found"].sum() > THREAD_SHARE
        names = [f.name for f in index.figures]
        assert len(names) >= 5
        for name in names:
            assert whole[name].tolist() == [v for p in pieces for v in p[name].tolist()], name
