"""A table's probe index written to its files: segments into segment files, then the directory naming them.

A build writes segments from what its workers hold (``sources.py``) and
records each file with its segments in the manifest; the directory is
written last, from those records alone (``write_index_directory``), which
then leave their segments out. For a
table built without an index, or a game whose keys do not come level by
level, the segments are made here from the table's Parquet files
(``index_from_files``, ``index_from_values_in_files``).
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tablebase.errors import StoreError
from tablebase.lazy import np, pa, pc, pq
from tablebase.probe.format import (
    BY_CHILDREN,
    FILE_NAME,
    STORED,
    Figure,
    pack_directory,
)
from tablebase.probe_writer.sources import segment_of_rows, segment_of_values
from tablebase.probe_writer.stored_figures import FILE_SEGMENTS, SEGMENT_KEYS, Rules, figures_of
from tablebase.store.layout import SEGMENTS, Piece, keys_segment_name
from tablebase.store.manifest import Manifest
from tablebase.store.placed import Place, put_file, put_written, read_files, source


def write_segments(root: Place, table: str, name: str, segments: Sequence[tuple[int, int, bytes]], rows: int,
                   durable: bool = True) -> dict[str, Any]:
    """Segments (first key, last key, bytes) one after another in one file of a table (``name``: in ``probe/``),
    whole; its record for the manifest: rows, bytes, sha256, and each segment's [first, last, offset, length,
    crc]."""
    placed, offset = [], 0
    digest = hashlib.sha256()
    for first, last, data in segments:
        placed.append([first, last, offset, len(data), zlib.crc32(data)])
        digest.update(data)
        offset += len(data)

    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            for _, _, data in segments:
                f.write(data)

    record = {"rows": rows, "bytes": offset, "sha256": digest.hexdigest()}
    put_written(root, table, name, write, rows, durable, record)
    return {**record, "segments": placed}


def write_directory(root: Place, table: str, about: dict[str, Any], figures: Sequence[Figure],
                    positions: int, files: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The directory naming every segment of these segment files (name in ``probe/`` -> its record, as
    ``write_segments`` gave it), written atomically; its record for the manifest."""
    names = sorted(files)
    segments = sorted((s[0], s[1], s[2], s[3], number, s[4]) for number, name in enumerate(names)
                      for s in files[name]["segments"])
    for (a, b, *_), (c, *_) in zip(segments, segments[1:]):
        if c <= b:
            raise StoreError(f"{table}: two segments of the probe index hold key {c}")
    held = sum(files[n]["rows"] for n in names)
    if held != positions:
        raise StoreError(f"{table}: the probe index's segments hold {held:,} positions, the table {positions:,}")
    data = pack_directory(about, list(figures), positions, names, segments)
    return put_file(root, table, FILE_NAME, data, positions)


def index_figures(root: Place, manifest: Manifest, rules: Rules) -> list[Figure]:
    """The index's figures: the rows' columns (their schema read from one file's footer) under a kind's rules."""
    name = min(manifest.files)
    return figures_of(pq.read_schema(source(root, manifest.table, name, manifest.files[name])), rules)


def lacking_segments(manifest: Manifest) -> list[str]:
    """The files of rows whose segment of the probe index is not recorded (a table begun by an older build)."""
    layout = manifest.layout()
    return [name for name in sorted(manifest.files)
            if (piece := layout.named(name)) is not None
            and "segments" not in manifest.probe.get(piece.segment_name, {})]


def segment_of_file(root: Place, table: str, figures: Sequence[Figure], records: Mapping[str, Any], name: str,
                    done: Callable[[int], None] = lambda rows: None) -> dict[str, Any]:
    """The segment of one file of rows (``records``: the table's, by name), read from it (a part written
    before segments were written beside the rows, or ``tablebase index``): {its segment file's name: its
    record}."""
    piece = Piece.of_name(name)
    rows = read_files(root, table, {name: records[name]})
    record = write_segments(root, table, piece.segment_name, [segment_of_rows(rows, figures)], rows.num_rows)
    done(rows.num_rows)
    return {piece.segment_name: record}


def index_from_files(root: Place, manifest: Manifest, rules: Rules,
                     done: Callable[[int], None] = lambda rows: None) -> None:
    """A complete table's probe index from its Parquet files (``tablebase index``, and a build of a game whose
    parts do not come in key order): a segment beside each file where their keys do not overlap, else
    segments of the rows put in key order; recorded in the manifest, which the caller saves."""
    figures = index_figures(root, manifest, rules)
    manifest.probe = {}
    if files_in_key_order(root, manifest):
        for name in sorted(manifest.files):
            manifest.probe.update(segment_of_file(root, manifest.table, figures, manifest.files, name, done))
    else:
        manifest.probe.update(segments_in_key_order(root, manifest.table, manifest.files, figures, done))
    write_index_directory(root, manifest, figures)


def files_in_key_order(root: Place, manifest: Manifest) -> bool:
    """Whether the table's files hold ranges of keys that do not overlap (their footers' statistics say)."""
    ranges = []
    for name, record in manifest.files.items():
        meta = pq.read_metadata(source(root, manifest.table, name, record))
        column = meta.schema.names.index("key")
        stats = [meta.row_group(g).column(column).statistics for g in range(meta.num_row_groups)]
        if any(s is None or not s.has_min_max for s in stats):
            return False
        ranges.append((min(s.min for s in stats), max(s.max for s in stats)))
    ranges.sort()
    return all(b < c for (_, b), (c, _) in zip(ranges, ranges[1:]))


def segments_of_table(root: Place, table: str, figures: Sequence[Figure], records: Mapping[str, Any], _: Any,
                      done: Callable[[int], None] = lambda rows: None) -> dict[str, dict[str, Any]]:
    """``segments_in_key_order`` of a complete table's files (a task of the build's last step: its item
    unused)."""
    return segments_in_key_order(root, table, records, figures, done)


def segments_in_key_order(root: Place, table: str, records: Mapping[str, Any], figures: Sequence[Figure],
                          done: Callable[[int], None] = lambda rows: None) -> dict[str, dict[str, Any]]:
    """The segments of a table's rows (in the files ``records`` name) put in key order (every file read, the
    rows sorted in memory), cut every ``SEGMENT_KEYS`` rows, ``FILE_SEGMENTS`` to a file: {file name: record}."""
    columns = ["key", *(f.name for f in figures if f.source == STORED or f.rule != BY_CHILDREN)]
    rows = pa.concat_tables(read_files(root, table, {name: records[name]}, columns)
                            for name in sorted(records)).sort_by("key")
    done(rows.num_rows // 2)
    out: dict[str, dict[str, Any]] = {}
    step = FILE_SEGMENTS * SEGMENT_KEYS
    for start in range(0, rows.num_rows, step):
        part = rows.slice(start, step)
        chunks = [segment_of_rows(part.slice(a, SEGMENT_KEYS), figures) for a in range(0, part.num_rows, SEGMENT_KEYS)]
        name = keys_segment_name(chunks[0][0])
        out[name] = write_segments(root, table, name, chunks, part.num_rows)
        done(part.num_rows - part.num_rows // 2)
    return out


def index_from_values_in_files(root: Place, manifest: Manifest, rules: Rules, key_space: int,
                               absent: Sequence[int], done: Callable[[int], None] = lambda rows: None) -> None:
    """A complete dense impartial table's probe index from its values in key order, read from its Parquet
    files into memory (``tablebase index``: two or three bytes a key): recorded in the manifest."""
    figures = index_figures(root, manifest, rules)
    misere = any(f.name == "misere_outcome" for f in figures)
    grundy = np.zeros(key_space, dtype=np.uint8)
    remoteness = np.zeros(key_space, dtype=np.uint8)
    wins = np.zeros(key_space if misere else 0, dtype=bool)
    columns = ["key", "grundy", "remoteness"] + (["misere_outcome"] if misere else [])
    for name in sorted(manifest.files):
        rows = read_files(root, manifest.table, {name: manifest.files[name]}, columns)
        keys = rows.column("key").to_numpy()
        for array, name_of in ((grundy, "grundy"), (remoteness, "remoteness")):
            values = rows.column(name_of).to_numpy()
            if values.max(initial=0) > 255:
                array = array.astype(np.uint32)  # held wider only when some value needs it
                if name_of == "grundy":
                    grundy = array
                else:
                    remoteness = array
            array[keys] = values
        if misere:
            wins[keys] = pc.equal(rows.column("misere_outcome").cast(pa.string()), "N").to_numpy(
                zero_copy_only=False)
        done(rows.num_rows // 2)
    holes = np.asarray(absent, dtype=np.int64)
    manifest.probe = {}
    for start in range(0, key_space, FILE_SEGMENTS * SEGMENT_KEYS):
        stop = min(start + FILE_SEGMENTS * SEGMENT_KEYS, key_space)
        manifest.probe.update(write_keys_file(root, manifest.table, (start, stop), grundy, remoteness,
                                              wins if misere else None, holes, figures, lambda n: done(n // 2)))
    write_index_directory(root, manifest, figures)


def write_keys_file(root: Place, table: str, keys: tuple[int, int], grundy: np.ndarray,
                    remoteness: np.ndarray, wins: np.ndarray | None, holes: np.ndarray, figures: Sequence[Figure],
                    done: Callable[[int], None]) -> dict[str, dict[str, Any]]:
    """The segments of the keys [start, stop) of a dense impartial table in one file, from its values held in
    key order (``wins``: the misère outcome, where the game has one; ``holes``: keys that are no position);
    the file's name and record. ``done`` hears the keys of each segment written."""
    start, stop = keys
    unsigned = [f.unsigned for f in sorted((f for f in figures if f.source == STORED), key=lambda f: f.field)]
    segments, positions = [], 0
    for a in range(start, stop, SEGMENT_KEYS):
        b = min(a + SEGMENT_KEYS, stop)
        inside = holes[(holes >= a) & (holes < b)]
        present = None
        if len(inside):
            present = np.ones(b - a, dtype=bool)
            present[inside - a] = False
        segments.append((a, b - 1, segment_of_values(a, grundy[a:b], remoteness[a:b],
                                                     None if wins is None else wins[a:b], present, unsigned)))
        positions += b - a - len(inside)
        done(b - a)
    name = keys_segment_name(start)
    return {name: write_segments(root, table, name, segments, positions)}


def write_index_directory(root: Place, manifest: Manifest, figures: Sequence[Figure]) -> None:
    """The directory naming every segment file the manifest records, recorded in the manifest.

    The segment files' lists of segments are then left out of their records: the directory holds them, and
    its own record's sha256 vouches for it, while the lists made most of a large table's manifest, which
    every reader parses before its first probe."""
    about = {"table": manifest.table, "game": manifest.game, "kind": manifest.kind, "params": manifest.params}
    prefix = f"{SEGMENTS}/"
    files = {name[len(prefix):]: record for name, record in manifest.probe.items() if name.startswith(prefix)}
    manifest.probe[FILE_NAME] = write_directory(root, manifest.table, about, figures, manifest.positions, files)
    for name, record in files.items():
        manifest.probe[prefix + name] = {key: value for key, value in record.items() if key != "segments"}


