"""Writing a table's probe index: segments from what the solver holds, then the directory that names them.

A segment is made from rows in memory: a part's solved rows
(``segment_of_rows``), or a range of a dense table's values held in key
order (``segment_of_values``). Segments go to files of their own
(``write_segments``), each written atomically and recorded with its bytes,
sha256 and segments; the directory (``write_directory``) is written last,
from those records alone. Nothing here reads the table's Parquet files.
``docs/format.md`` is the contract; ``tablebase.probe`` reads it.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tablebase.errors import StoreError
from tablebase.jit import njit
from tablebase.lazy import np, pa, pc, pq
from tablebase.probe.format import (
    AS_IS,
    BY_CHILDREN,
    DERIVED,
    FILE_NAME,
    HALVED,
    LISTED,
    NO_FIELD,
    OFFSET,
    OUTCOME_OF_GRUNDY,
    SEGMENTS_FOLDER,
    STORED,
    Figure,
    bits_for,
    pack_directory,
)
from tablebase.store.files import read_parquet, table_dir, write_atomic
from tablebase.store.layout import SEGMENTS, Piece, keys_segment_name
from tablebase.store.manifest import Manifest
from tablebase.store.probe.fields import Coded, code_values, figure_type
from tablebase.store.probe.segment import encode_segment

NOT_FIGURES = ("key", "position", "level")  # the key; what the game spells or counts from it
SEGMENT_KEYS = 1 << 18  # keys of a dense table's segment made from its values
FILE_SEGMENTS = 64  # segments of a file written from values in one process
#: a dense segment of rows is written where its keys fill at least this share of its range, else sparse
DENSE_SHARE = 0.8
#: what a kind may say of a figure: (source, rule, the figure the rule reads)
Rules = Mapping[str, tuple[int, int, str | None]]

__all__ = ["FILE_NAME", "FILE_SEGMENTS", "SEGMENTS_FOLDER", "SEGMENT_KEYS", "Rules", "figures_of", "files_in_key_order",
           "impartial_rules", "index_figures", "index_from_files", "index_from_values_in_files",
           "segments_in_key_order", "segments_of_table",
           "lacking_segments", "segment_of_file", "segment_of_rows", "segment_of_values", "write_directory",
           "write_index_directory", "write_segments"]


def figures_of(schema: pa.Schema, rules: Rules) -> list[Figure]:
    """The index's figures: every column of the rows but the key, position and level, in the rows' order,
    stored as they are unless ``rules`` says otherwise."""
    names = [f.name for f in schema if f.name not in NOT_FIGURES]
    stored = [n for n in names if rules.get(n, (STORED, AS_IS, None))[0] == STORED]
    figures = []
    for f in schema:
        if f.name in NOT_FIGURES:
            continue
        source, rule, reads = rules.get(f.name, (STORED, AS_IS, None))
        figures.append(Figure(f.name, figure_type(f.type, f.name), source, rule,
                              pa.types.is_unsigned_integer(f.type), stored.index(f.name) if source == STORED
                              else NO_FIELD, names.index(reads) if reads else NO_FIELD))
    return figures


def segment_of_rows(rows: pa.Table, figures: Sequence[Figure]) -> tuple[int, int, bytes]:
    """The segment of a part's rows (sorted by key): (first key, last key, its bytes). Dense where the
    keys fill most of their range, else sparse."""
    keys = rows.column("key").to_numpy()
    if not len(keys):
        raise StoreError("a segment needs rows")
    if len(keys) > 1 and not (np.diff(keys) > 0).all():  # a run of levels is sorted by level, then key
        rows = rows.sort_by("key")
        keys = rows.column("key").to_numpy()
    first, last = int(keys[0]), int(keys[-1])
    if first < 0 or (len(keys) > 1 and not (np.diff(keys) > 0).all()):
        raise StoreError("a segment's keys must be ascending and not negative")
    dense = len(keys) >= DENSE_SHARE * (last - first + 1)
    stored = [f for f in figures if f.source == STORED]
    _check_derived(rows, figures)
    fields = []
    for f in sorted(stored, key=lambda f: f.field):
        values = rows.column(f.name)
        if f.rule == HALVED:
            values = pc.shift_right(values.cast(pa.int64()), 1)
        coded = code_values(values, f.type, f.unsigned)
        if dense:
            coded.codes = _spread(coded.codes, keys, first, last)
        fields.append(coded)
    present = None
    if dense and len(keys) != last - first + 1:
        present = np.zeros(last - first + 1, dtype=bool)
        present[keys - first] = True
    data = encode_segment(first, last, fields, [f.unsigned for f in sorted(stored, key=lambda f: f.field)],
                          keys=None if dense else keys, present=present)
    return first, last, data


def _spread(codes: np.ndarray, keys: np.ndarray, first: int, last: int) -> np.ndarray:
    """Codes of the keys given, placed at their slots of a dense range (the others 0)."""
    if len(keys) == last - first + 1:
        return codes
    out = np.zeros(last - first + 1, dtype=np.uint64)
    out[keys - first] = codes
    return out


def _check_derived(rows: pa.Table, figures: Sequence[Figure]) -> None:
    """The rows hold what the rules derive: an outcome from the Grundy value, a remoteness's parity."""
    names = [f.name for f in figures]
    for f in figures:
        if f.rule == OUTCOME_OF_GRUNDY and f.source == DERIVED:
            grundy = rows.column(names[f.reads])
            said = pc.if_else(pc.equal(grundy, 0), "P", "N")
            if not pc.all(pc.equal(rows.column(f.name).cast(pa.string()), said)).as_py():
                raise StoreError(f"column {f.name}: not the outcome its Grundy value gives")
        if f.rule == HALVED and f.source == STORED:
            odd = pc.equal(pc.bit_wise_and(rows.column(f.name).cast(pa.int64()), 1), 1)
            won = pc.not_equal(rows.column(names[f.reads]), 0)
            if not pc.all(pc.equal(odd, won)).as_py():
                raise StoreError(f"column {f.name}: odd where the position is not won")


def segment_of_values(first: int, grundy: np.ndarray, remoteness: np.ndarray, misere: np.ndarray | None = None,
                      present: np.ndarray | None = None, unsigned: Sequence[bool] = (True, True, True)) -> bytes:
    """The dense segment of an impartial table's keys ``first`` on, from the values held in key order: the
    fields ``impartial_rules`` leaves stored, in the rows' order (the Grundy value, the misère outcome where
    the game has one, from ``misere``: True where the mover wins, and the remoteness halved). ``present``
    marks the keys that are positions (None: all); ``unsigned``: each field's figure's flag."""
    last = first + len(grundy) - 1
    bounds = np.zeros(4, dtype=np.int64)
    if not _bounds(grundy, remoteness, np.ones(0, np.bool_) if present is None else present, bounds):
        raise StoreError(f"keys {first} to {last}: a remoteness whose parity is not the outcome's")
    g_low, g_high, r_low, r_high = bounds.tolist()
    fields = [Coded(np.zeros(0, np.uint64), OFFSET, bits_for(g_high - g_low + 1), base=g_low)]
    if misere is not None:  # the texts N (the mover wins) and P, by their bytes
        fields.append(Coded(np.zeros(0, np.uint64), LISTED, 1, dictionary=MISERE_TEXTS, items=2))
    fields.append(Coded(np.zeros(0, np.uint64), OFFSET, bits_for(r_high - r_low + 1), base=r_low))
    records = np.empty(len(grundy), dtype=np.uint64)
    _side_by_side(grundy, remoteness, g_low, r_low, fields[0].width + len(fields) - 2, records)
    if misere is not None:
        records |= (~misere.astype(bool)).astype(np.uint64) << np.uint64(fields[0].width)
    return encode_segment(first, last, fields, list(unsigned)[: len(fields)], present=present, records=records)


MISERE_TEXTS = np.array([0, 1, 2], dtype="<u8").tobytes() + b"NP"


@njit(cache=True, nogil=True)
def _bounds(grundy, remoteness, present, out):
    """The least and greatest Grundy value and halved remoteness of the positions; False if a remoteness's
    parity is not its outcome's (odd where the position is won)."""
    g_low, g_high, r_low, r_high = 1 << 62, -1, 1 << 62, -1
    for i in range(grundy.shape[0]):
        if present.shape[0] and not present[i]:
            continue
        g = np.int64(grundy[i])
        r = np.int64(remoteness[i])
        if (r & 1) != (g != 0):
            return False
        g_low, g_high = min(g_low, g), max(g_high, g)
        r_low, r_high = min(r_low, r >> 1), max(r_high, r >> 1)
    if g_high < 0:
        g_low = g_high = r_low = r_high = 0
    out[0], out[1], out[2], out[3] = g_low, g_high, r_low, r_high
    return True


@njit(cache=True, nogil=True)
def _side_by_side(grundy, remoteness, g_low, r_low, r_at, out):
    """Each key's Grundy code at bit 0 and halved remoteness's at ``r_at``; a key that is no position (below
    the least) as 0."""
    for i in range(grundy.shape[0]):
        g = max(np.int64(grundy[i]) - g_low, 0)
        r = max((np.int64(remoteness[i]) >> 1) - r_low, 0)
        out[i] = np.uint64(g) | (np.uint64(r) << np.uint64(r_at))


def write_segments(path: Path, segments: Sequence[tuple[int, int, bytes]], rows: int,
                   durable: bool = True) -> dict[str, Any]:
    """Segments (first key, last key, bytes) one after another in one file, atomically; its record for the
    manifest: rows, bytes, sha256, and each segment's [first, last, offset, length, crc]."""
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

    write_atomic(path, write, durable)
    return {"rows": rows, "bytes": offset, "sha256": digest.hexdigest(), "segments": placed}


def write_directory(root: str | Path, table: str, about: dict[str, Any], figures: Sequence[Figure],
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
    path = table_dir(root, table) / FILE_NAME
    write_atomic(path, lambda tmp: Path(tmp).write_bytes(data))
    return {"rows": positions, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def index_figures(root: str | Path, manifest: Manifest, rules: Rules) -> list[Figure]:
    """The index's figures: the rows' columns (their schema read from one file's footer) under a kind's rules."""
    name = min(manifest.files)
    return figures_of(pq.read_schema(table_dir(root, manifest.table) / name), rules)


def lacking_segments(manifest: Manifest) -> list[str]:
    """The files of rows whose segment of the probe index is not recorded (a table begun by an older build)."""
    layout = manifest.layout()
    return [name for name in sorted(manifest.files)
            if (piece := layout.named(name)) is not None and piece.segment_name not in manifest.probe]


def segment_of_file(root: str | Path, table: str, figures: Sequence[Figure], name: str,
                    done: Callable[[int], None] = lambda rows: None) -> dict[str, Any]:
    """The segment of one file of rows, read from it (a part written before segments were written beside
    the rows, or ``tablebase index``): {its segment file's name: its record}."""
    piece = Piece.of_name(name)
    rows = read_parquet([table_dir(root, table) / name])
    path = table_dir(root, table) / piece.segment_name
    path.parent.mkdir(exist_ok=True)
    record = write_segments(path, [segment_of_rows(rows, figures)], rows.num_rows)
    done(rows.num_rows)
    return {piece.segment_name: record}


def index_from_files(root: str | Path, manifest: Manifest, rules: Rules,
                     done: Callable[[int], None] = lambda rows: None) -> None:
    """A complete table's probe index from its Parquet files (``tablebase index``, and a build of a game whose
    parts do not come in key order): a segment beside each file where their keys do not overlap, else
    segments of the rows put in key order; recorded in the manifest, which the caller saves."""
    figures = index_figures(root, manifest, rules)
    manifest.probe = {}
    if files_in_key_order(root, manifest):
        for name in sorted(manifest.files):
            manifest.probe.update(segment_of_file(root, manifest.table, figures, name, done))
    else:
        manifest.probe.update(segments_in_key_order(root, manifest.table, list(manifest.files), figures, done))
    write_index_directory(root, manifest, figures)


def files_in_key_order(root: str | Path, manifest: Manifest) -> bool:
    """Whether the table's files hold ranges of keys that do not overlap (their footers' statistics say)."""
    ranges = []
    for name in manifest.files:
        meta = pq.read_metadata(table_dir(root, manifest.table) / name)
        column = meta.schema.names.index("key")
        stats = [meta.row_group(g).column(column).statistics for g in range(meta.num_row_groups)]
        if any(s is None or not s.has_min_max for s in stats):
            return False
        ranges.append((min(s.min for s in stats), max(s.max for s in stats)))
    ranges.sort()
    return all(b < c for (_, b), (c, _) in zip(ranges, ranges[1:]))


def segments_of_table(root: str | Path, table: str, figures: Sequence[Figure], names: Sequence[str], _: Any,
                      done: Callable[[int], None] = lambda rows: None) -> dict[str, dict[str, Any]]:
    """``segments_in_key_order`` of a complete table's files (a task of the build's last step: its item
    unused)."""
    return segments_in_key_order(root, table, names, figures, done)


def segments_in_key_order(root: str | Path, table: str, names: Sequence[str], figures: Sequence[Figure],
                          done: Callable[[int], None] = lambda rows: None) -> dict[str, dict[str, Any]]:
    """The segments of a table's rows (in the files ``names``) put in key order (every file read, the rows
    sorted in memory), cut every ``SEGMENT_KEYS`` rows, ``FILE_SEGMENTS`` to a file: {file name: record}."""
    columns = ["key", *(f.name for f in figures if f.source == STORED or f.rule != BY_CHILDREN)]
    rows = pa.concat_tables(read_parquet([table_dir(root, table) / name], columns)
                            for name in sorted(names)).sort_by("key")
    done(rows.num_rows // 2)
    out: dict[str, dict[str, Any]] = {}
    step = FILE_SEGMENTS * SEGMENT_KEYS
    for start in range(0, rows.num_rows, step):
        part = rows.slice(start, step)
        chunks = [segment_of_rows(part.slice(a, SEGMENT_KEYS), figures) for a in range(0, part.num_rows, SEGMENT_KEYS)]
        name = keys_segment_name(chunks[0][0])
        path = table_dir(root, table) / name
        path.parent.mkdir(exist_ok=True)
        out[name] = write_segments(path, chunks, part.num_rows)
        done(part.num_rows - part.num_rows // 2)
    return out


def index_from_values_in_files(root: str | Path, manifest: Manifest, rules: Rules, key_space: int,
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
        rows = read_parquet([table_dir(root, manifest.table) / name], columns)
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
    unsigned = [f.unsigned for f in sorted((f for f in figures if f.source == STORED), key=lambda f: f.field)]
    manifest.probe = {}
    for start in range(0, key_space, FILE_SEGMENTS * SEGMENT_KEYS):
        stop = min(start + FILE_SEGMENTS * SEGMENT_KEYS, key_space)
        segments, positions = [], 0
        for a in range(start, stop, SEGMENT_KEYS):
            b = min(a + SEGMENT_KEYS, stop)
            inside = holes[(holes >= a) & (holes < b)]
            present = None
            if len(inside):
                present = np.ones(b - a, dtype=bool)
                present[inside - a] = False
            segments.append((a, b - 1, segment_of_values(a, grundy[a:b], remoteness[a:b],
                                                         wins[a:b] if misere else None, present, unsigned)))
            positions += b - a - len(inside)
            done((b - a) // 2)
        name = keys_segment_name(start)
        path = table_dir(root, manifest.table) / name
        path.parent.mkdir(exist_ok=True)
        manifest.probe[name] = write_segments(path, segments, positions)
    write_index_directory(root, manifest, figures)


def write_index_directory(root: str | Path, manifest: Manifest, figures: Sequence[Figure]) -> None:
    """The directory naming every segment file the manifest records, recorded in the manifest."""
    about = {"table": manifest.table, "game": manifest.game, "kind": manifest.kind, "params": manifest.params}
    prefix = f"{SEGMENTS}/"
    files = {name[len(prefix):]: record for name, record in manifest.probe.items() if name.startswith(prefix)}
    manifest.probe[FILE_NAME] = write_directory(root, manifest.table, about, figures, manifest.positions, files)


def impartial_rules(columns: Sequence[str]) -> dict[str, tuple[int, int, str | None]]:
    """An impartial table's rules: its outcome from the Grundy value; with remoteness, the remoteness
    halved and the best move by the children (an octal table, without remoteness, stores its best move)."""
    rules: dict[str, tuple[int, int, str | None]] = {}
    if "grundy" in columns and "outcome" in columns:
        rules["outcome"] = (DERIVED, OUTCOME_OF_GRUNDY, "grundy")
    if "grundy" in columns and "remoteness" in columns:
        rules["remoteness"] = (STORED, HALVED, "grundy")
        if "best_move" in columns:
            rules["best_move"] = (DERIVED, BY_CHILDREN, None)
    return rules

