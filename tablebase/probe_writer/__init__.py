"""Writing a table's probe index: segments from what the solver holds, then the directory that names them.

A segment is made from rows in memory (``sources.py``: a part's solved rows,
or a range of a dense table's values in key order), coded by
``segment_bytes.py`` and ``fields.py``, and written to a file of its own,
recorded with its bytes and sha256; the directory is written last, from those
records alone (``whole.py``). Nothing of a build reads the table's Parquet
files back; ``tablebase index`` does, for a table built without an index.
"""

from tablebase.probe.format import FILE_NAME, SEGMENTS_FOLDER
from tablebase.probe_writer.sources import segment_of_rows, segment_of_values
from tablebase.probe_writer.stored_figures import (
    FILE_SEGMENTS,
    NOT_FIGURES,
    SEGMENT_KEYS,
    Rules,
    figures_of,
    impartial_rules,
)
from tablebase.probe_writer.whole import (
    files_in_key_order,
    index_figures,
    index_from_files,
    index_from_values_in_files,
    lacking_segments,
    segment_of_file,
    segments_in_key_order,
    segments_of_table,
    write_directory,
    write_index_directory,
    write_keys_file,
    write_segments,
)

__all__ = ["FILE_NAME", "FILE_SEGMENTS", "NOT_FIGURES", "SEGMENTS_FOLDER", "SEGMENT_KEYS", "Rules", "figures_of",
           "files_in_key_order", "impartial_rules", "index_figures", "index_from_files", "index_from_values_in_files",
           "lacking_segments", "segment_of_file", "segment_of_rows", "segment_of_values", "segments_in_key_order",
           "segments_of_table", "write_directory", "write_index_directory", "write_keys_file", "write_segments"]
