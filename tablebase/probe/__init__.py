"""Probing a table's probe index from any program: the file format and its reader.

``format`` spells the bytes (``docs/format.md``), ``reader`` probes with the standard library only,
``columns`` answers batches with numpy; ``tablebase.probe_writer`` writes it, ``readers/c`` reads it in C.

    >>> from tablebase.probe import ProbeIndex
    >>> with ProbeIndex("tb/chomp_13x13/probe.tbi") as index:
    ...     index.probe(2)
    {'grundy': 1, 'outcome': 'N', 'remoteness': 1, 'best_move': '(2,1)'}
"""

from tablebase.probe.format import FILE_NAME
from tablebase.probe.reader import IndexFolder, ProbeIndex

__all__ = ["FILE_NAME", "IndexFolder", "ProbeIndex"]
