"""A stable 64-bit hash of positions' notation, which names a position's partition on every host and run.

Python's own ``hash`` of a string changes from process to process, and a
position's pickle is not canonical (equal sets may pickle apart), so a
position is known by its text: the game's ``format``, which a table must
spell one way. The hash is FNV-1a over the text's UTF-8 bytes, then mixed
(splitmix64's finaliser) so that its low bits, which pick the partition,
depend on every byte. Only a build hashes texts, so the loop is compiled.
"""

from __future__ import annotations

import numba
import numpy as np

from tablebase.lazy import pa

_OFFSET = np.uint64(0xCBF29CE484222325)
_PRIME = np.uint64(0x100000001B3)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def text_hashes(texts: pa.Array) -> np.ndarray:
    """Each text's 64-bit hash (uint64), the same in every process and on every machine."""
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    texts = texts.cast(pa.large_string())
    n = len(texts)
    if not n:
        return np.zeros(0, dtype=np.uint64)
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int64)[texts.offset: texts.offset + n + 1]
    data_buffer = texts.buffers()[2]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(1, dtype=np.uint8)
    hashes = np.empty(n, dtype=np.uint64)
    _hashed(offsets, data, hashes)
    return hashes


@numba.njit(cache=True, nogil=True)
def _hashed(offsets: np.ndarray, data: np.ndarray, out: np.ndarray) -> None:
    for j in range(len(out)):
        h = _OFFSET
        for i in range(offsets[j], offsets[j + 1]):
            h = (h ^ np.uint64(data[i])) * _PRIME
        h ^= h >> np.uint64(30)
        h *= _MIX1
        h ^= h >> np.uint64(27)
        h *= _MIX2
        out[j] = h ^ (h >> np.uint64(31))


def owners(hashes: np.ndarray, partitions: int) -> np.ndarray:
    """The partition that owns each hashed position (int64, 0 .. partitions - 1)."""
    return (hashes % np.uint64(partitions)).astype(np.int64)
