"""Every byte of a probe index is hostile: the readers refuse what the format does not allow, with an error, and
never crash, hang, read outside a segment or allocate what the file does not hold.

The structure-aware fuzzer (``index_fuzz.py``) runs a bounded number of seeded cases here, against the C
reader built with AddressSanitizer and UndefinedBehaviorSanitizer and against the Python reader;
``benchmarks/fuzz_index.py`` runs more by hand. Beside it, hand-made hostile indexes, the cases of issue #57 in
the second format, each with every CRC-32 made right: both readers must refuse each in one line (the C command
with exit status 2, Python with a StoreError), or answer it as the format says.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from index_fuzz import READER, SECONDS, Worker, build_sanitized, disagreement, fuzz, run_c
from index_seeds import make_seeds
from mutations import FIELD, FIXED, Index, relaid, sections

from tablebase.probe import FILE_NAME

pytestmark = pytest.mark.slow  # compiled programs run as processes

CASES = int(os.environ.get("TABLEBASE_FUZZ_CASES", "300"))  # benchmarks/fuzz_index.py runs more


def test_the_fuzzer_finds_no_crash_hang_or_other_exception(tmp_path):
    report = fuzz(tmp_path, CASES, seed=57)
    assert report.cases == CASES
    assert not report.failures, "\n\n".join(report.failures[:5])
    # the mutations reach past the checksums and the first checks: many cases are answered, many refused
    assert CASES // 10 <= report.c_refused <= CASES - CASES // 20, report.summary()
    assert CASES // 10 <= report.python_refused <= CASES - CASES // 20, report.summary()


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict:
    return {seed.name: seed for seed in make_seeds(tmp_path_factory.mktemp("seeds"))}


@pytest.fixture(scope="module")
def sanitized(tmp_path_factory) -> Path:
    return build_sanitized(tmp_path_factory.mktemp("c"))


@pytest.fixture(scope="module")
def worker():
    found = Worker()
    yield found
    found.stop()


def _changed(seed, tmp_path: Path, change) -> Path:
    """A copy of ``seed`` changed by ``change``, every CRC-32 made right: its directory."""
    shutil.copytree(seed.folder, tmp_path / seed.name)
    index = Index(tmp_path / seed.name)
    change(index)
    index.save(index.directory.pack(), keep_crc=False)
    return index.folder / FILE_NAME


def _segment(index: Index, i: int) -> tuple[bytearray, int]:
    data, offset, _ = index.place(i)
    return data, offset


def _section(index: Index, i: int, name: str) -> int:
    """Where section ``name`` of segment ``i`` starts in its file."""
    data, offset, length = index.place(i)
    return offset + next(start for n, start, _ in sections(data[offset : offset + length], index.texts)[0]
                         if n == name)


def _field(index: Index, name: str) -> int:
    """The field that stored figure ``name`` is in."""
    return next(f[36] for f in index.directory.figures if bytes(f[:32]).rstrip(b"\0") == name.encode())


def _length(index: Index, i: int, length: int) -> None:
    struct.pack_into("<Q", index.directory.entries[i], 16, length)


def _offset(index: Index, i: int, offset: int) -> None:
    struct.pack_into("<Q", index.directory.entries[i], 8, offset)


def _slots(index: Index, i: int, slots: int) -> None:
    data, offset = _segment(index, i)
    struct.pack_into("<Q", data, offset + 16, slots)


def _retype(index: Index, name: str, kind: int) -> None:
    for f in index.directory.figures:
        if bytes(f[:32]).rstrip(b"\0") == name.encode():
            f[32] = kind


def _long_name(index: Index) -> None:
    index.directory.figures[0][:32] = b"n" * 32


def _about(text: bytes):
    def change(index: Index) -> None:
        index.directory.about = text

    return change


def _last_segment_damaged(index: Index) -> None:
    data, offset = _segment(index, len(index.directory.entries) - 1)
    data[offset] ^= 1  # its magic: the segment is refused when a probe touches it


def _version(index: Index) -> None:
    index.directory.fixed[8:10] = (1).to_bytes(2, "little")


def _counts(group: int, count: int):
    def change(index: Index) -> None:
        data, _ = _segment(index, 0)
        struct.pack_into("<Q", data, _section(index, 0, "counts") + 8 * group, count)

    return change


def _base(field: int, base: int):
    def change(index: Index) -> None:
        data, offset = _segment(index, 0)
        struct.pack_into("<Q", data, offset + FIXED + FIELD * field + 8, base)

    return change


def _no_segments(index: Index) -> None:
    index.directory.entries.clear()
    index.directory.firsts.clear()


def _text_past_the_last(index: Index) -> None:
    field = _field(index, "word")
    data, offset = _segment(index, 0)
    at = _section(index, 0, f"texts {field}")
    items = struct.unpack_from("<Q", data, offset + FIXED + FIELD * field + 24)[0]
    last = struct.unpack_from("<Q", data, at + 8 * items)[0]
    assert items == 2  # "" and "N": the first, "", is made to end a byte past the texts, in the padding after
    struct.pack_into("<Q", data, at + 8, last + 1)


def _wide_codes(index: Index) -> None:
    """Codes of 20 bits where 3 tell the tuples apart: most name no tuple."""
    data, offset, length = index.place(0)
    new = bytearray(data[offset : offset + length])
    new[41] = 20
    index.resize(0, relaid(bytes(data[offset : offset + length]), bytes(new), index.texts))


def _pipe(index: Index) -> None:
    name = sorted(index.files)[0]
    del index.files[name]
    (index.folder / "probe" / name).unlink()
    os.mkfifo(index.folder / "probe" / name)


HOSTILE = {  # name: (seed, change, what the C command says, or None where both readers answer)
    "a segment of 2^64 - 8 bytes": ("listed", lambda ix: _length(ix, 0, 2**64 - 8), "which has"),
    "a segment at 2^64 - 8": ("listed", lambda ix: _offset(ix, 1, 2**64 - 8), "which has"),
    "a dense segment of 2^40 slots": ("fields", lambda ix: _slots(ix, 0, 2**40), "its layout, coding or slots"),
    "a text figure retyped as an integer": ("listed", lambda ix: _retype(ix, "word", 1), "do not add up"),
    "a boolean figure retyped as a text": ("listed", lambda ix: _retype(ix, "flag", 3), "encoding"),
    "a figure's name of 32 bytes": ("listed", _long_name, "1 to 31 bytes"),
    "an about text nested 9 deep": ("listed", _about(b'{"a":' * 9 + b"1" + b"}" * 9), "nested at most 8 deep"),
    "an about text holding NaN": ("listed", _about(b'{"a":NaN}'), "not a JSON object"),
    "the first format": ("listed", _version, "format 1, this reader reads 2"),
    "a count of long codes past the slots": ("two_widths", _counts(1, 2**64 - 1), "outside the codes"),
    "a count of long codes past its slot": ("two_widths", _counts(0, 7), "outside the codes"),
    "a text ending past the last offset": ("listed", _text_past_the_last, "text 0 at"),
    "codes that name no tuple": ("tuples", _wide_codes, "tuple"),
    "a segment file that is a pipe": ("listed", _pipe, "not a regular file"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_index_is_refused_by_both_readers_in_one_line(seeds, sanitized, worker, tmp_path, name):
    seed, change, said = HOSTILE[name]
    directory = _changed(seeds[seed], tmp_path, change)
    rows = seeds[seed].rows
    keys = sorted(k for k in rows if name != "a text ending past the last offset" or rows[k]["word"] == "")
    result = subprocess.run([sanitized, directory, *map(str, keys)], capture_output=True, text=True, timeout=SECONDS,
                            check=False)
    message = result.stderr.replace(str(directory.parent), "")  # the test's folder is named after the case
    assert result.returncode == 2 and said in message and len(result.stderr.splitlines()) == 1, result.stderr
    run = run_c(sanitized, directory, keys)
    assert run.problem is None and run.refused, run
    answer = worker.run(directory, keys)
    assert "failure" not in answer and answer["refused"] > 0, answer
    assert disagreement(run, answer, keys) is None


AGREED = {  # name: (seed, change, keys): indexes both readers open, and answer these keys of alike
    "brackets in a text of the about text": ("listed", _about(b'{"a":"[[[[[[[[[[[[","b":[[1]]}'), [1, 2, 899]),
    "a key past a damaged segment's last key": ("listed", _last_segment_damaged, [900, 1000, 2**63 - 1]),
    "an index of no segments": ("listed", _no_segments, [0, 1, 899]),
    "values past 64 bits in records wider than 64": ("wide", _base(2, 2**64 - 1), [5, 6, 7, 154]),
}


@pytest.mark.parametrize("name", sorted(AGREED))
def test_both_readers_answer_alike(seeds, sanitized, worker, tmp_path, name):
    seed, change, keys = AGREED[name]
    directory = _changed(seeds[seed], tmp_path, change)
    c = run_c(sanitized, directory, keys)
    assert c.problem is None and c.answers, c
    answer = worker.run(directory, keys)
    assert "failure" not in answer and disagreement(c, answer, keys) is None, (c, answer)
    rows = seeds[seed].rows
    assert [a["found"] for a in c.answers] == [k in rows and name != "an index of no segments" for k in keys]


def test_a_segment_of_2_to_the_62_keys_in_no_bits_answers_at_once(sanitized, worker, tmp_path):
    """Fields of no width take no bytes whatever the slots: every key of the range answers the one value, in
    both readers, without a pass over the slots (issue #57's zero width, now what the format says)."""
    import numpy as np
    import pyarrow as pa

    from tablebase.probe_writer import figures_of, segment_of_rows, write_directory, write_segments

    rows = pa.table({"key": np.arange(10), "same": pa.array(np.full(10, 7), pa.int16())})
    (tmp_path / "t" / "probe").mkdir(parents=True)
    files = {"a.tbs": write_segments(tmp_path, "t", "probe/a.tbs", [segment_of_rows(rows, figures_of(
        rows.schema, {}))], 10)}
    write_directory(tmp_path, "t", {"table": "t"}, figures_of(rows.schema, {}), 10, files)
    index = Index(tmp_path / "t")
    _slots(index, 0, 2**62)
    struct.pack_into("<Q", index.directory.entries[0], 0, 2**62 - 1)  # its last key
    index.save(index.directory.pack(), keep_crc=False)
    keys = [0, 2**61, 2**62 - 1, 2**62]
    result = subprocess.run([sanitized, index.folder / FILE_NAME, *map(str, keys)], capture_output=True, text=True,
                            timeout=SECONDS, check=True)
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        {"key": k, "found": True, "same": 7} for k in keys[:3]] + [{"key": 2**62, "found": False}]
    answer = worker.run(index.folder / FILE_NAME, keys)
    assert answer["refused"] == 0 and answer["probes"] == [{"same": 7}] * 3 + [None]


def test_the_sanitizers_see_a_read_past_a_segment(seeds, tmp_path):
    """The fuzzer's oracle: the same reader without its check of a tuple's number reads past the segment on the
    case above, and the sanitized build (each segment copied alone) stops with a report."""
    source = READER.read_text()
    check = "        if (code >= s->entries)\n"
    assert source.count(check) == 1
    (tmp_path / "tbprobe.h").write_text((READER.parent / "tbprobe.h").read_text())
    broken = tmp_path / "tbprobe.c"
    broken.write_text(source.replace(check, "        if (0)\n"))
    program = build_sanitized(tmp_path, broken)
    directory = _changed(seeds["tuples"], tmp_path, _wide_codes)
    found = run_c(program, directory, random.Random(1).sample(seeds["tuples"].stored, 50)).problem
    assert found is not None and "AddressSanitizer" in found, found
