"""The hash that names a position's partition: FNV-1a over the notation's UTF-8 bytes, then splitmix64's
finaliser, checked against the definition written out in plain Python."""

import pyarrow as pa

from tablebase.listing.hashing import owners, text_hashes

MASK = (1 << 64) - 1


def fnv1a_mixed(text: str) -> int:
    h = 0xCBF29CE484222325
    for byte in text.encode():
        h = ((h ^ byte) * 0x100000001B3) & MASK
    h ^= h >> 30
    h = (h * 0xBF58476D1CE4E5B9) & MASK
    h ^= h >> 27
    h = (h * 0x94D049BB133111EB) & MASK
    return h ^ (h >> 31)


def test_each_text_hashes_as_the_definition_says_whatever_its_length_and_place():
    texts = ["", "0", "7 3 1", "1 " * 39 + "1", "X..O|....", "é∑ 字", "", "ab", "ba", "a" * 200, "40"]
    assert text_hashes(pa.array(texts)).tolist() == [fnv1a_mixed(t) for t in texts]


def test_a_slice_and_a_chunked_array_hash_as_their_texts():
    texts = pa.array([f"{i} {i % 7}" * (i % 5) for i in range(300)])
    expected = [fnv1a_mixed(t) for t in texts.to_pylist()]
    assert text_hashes(texts.slice(17, 100)).tolist() == expected[17:117]
    assert text_hashes(pa.chunked_array([texts.slice(0, 150), texts.slice(150)])).tolist() == expected


def test_no_texts_and_only_empty_texts():
    assert text_hashes(pa.array([], pa.string())).tolist() == []
    assert text_hashes(pa.array(["", ""])).tolist() == [fnv1a_mixed("")] * 2


def test_owners_are_the_hash_modulo_the_partitions():
    hashes = text_hashes(pa.array([str(i) for i in range(1000)]))
    assert owners(hashes, 7).tolist() == [fnv1a_mixed(str(i)) % 7 for i in range(1000)]
