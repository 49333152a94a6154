"""A resumed build reads only the work files its manifest records, each checked against its record, and a work
file holds data only: positions as the game's notation, moves as JSON. Nothing in a folder is unpickled or run.

The attack of issue 57: a build of a plain game killed while the workers list its positions, then a file
planted in its ``_listing/`` as the inbox of a step still waiting, holding a pickle that creates a file when
loaded. The same command run again must not create it, and must build the table an undisturbed build does:
the planted file not recorded (ignored), recorded with other bytes (the listing begins again), or recorded as
it is (read, as data: its notation is a position of the game's).
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest
from helpers import file_hashes, killed_while_listing, tablebase

from tablebase.listing.hashing import text_hashes

pytestmark = pytest.mark.slow  # the command, killed and run again

GAME = str(Path(__file__).parent / "plugins" / "kayles_rows.py") + ":KaylesRows"
PINS = 40


class Payload:
    """What a pickle runs when it is loaded: here, a shell command that creates a file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def _manifest(table: Path) -> dict:
    return json.loads((table / "_manifest.json").read_text())


def _build(out: Path) -> subprocess.CompletedProcess:
    return tablebase("build", "--game", GAME, "--pins", PINS, "--out", out, "--workers", 2, timeout=900)


@pytest.fixture(scope="module")
def killed(tmp_path_factory):
    """(an undisturbed build's folder, a build's folder killed while listing, the table's name)."""
    here = tmp_path_factory.mktemp("hostile")
    undisturbed = _build(here / "undisturbed")
    assert undisturbed.returncode == 0, undisturbed.stderr
    table = json.loads(undisturbed.stdout.splitlines()[-1])["table"]
    out = here / "killed"
    killed_while_listing(out, table, "--game", GAME, "--pins", PINS, "--workers", 2)
    return here / "undisturbed", out, table


def _planted(killed, tmp_path, how: str) -> tuple[Path, Path]:
    """A copy of the killed build with a pickle planted as a waiting step's inbox; the folder and the file the
    pickle would create. ``how``: "unrecorded", "mismatching" (recorded with other bytes) or "recorded"."""
    undisturbed, out, table = killed
    folder = tmp_path / "folder"
    shutil.copytree(out, folder)
    marker = tmp_path / "pwned"
    manifest = _manifest(folder / table)
    level, round_, _ = manifest["listing"]["search"]["waiting"][0]
    # A position of that level, spelt as the table spells it, with its hash: the planted row is plausible.
    text = _position_at(undisturbed / table, level)
    rows = pa.table({"hash": pa.array(text_hashes(pa.array([text])), pa.uint64()),
                     "level": pa.array([level], pa.int64()), "text": [text],
                     "position": pa.array([pickle.dumps(Payload(marker))], pa.binary())})
    name = f"_listing/inbox-{level:06d}-0000-{round_:04d}-planted.arrow"
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, rows.schema) as writer:
        writer.write_table(rows)
    data = sink.getvalue().to_pybytes()
    (folder / table / name).parent.mkdir(exist_ok=True)
    (folder / table / name).write_bytes(data)
    if how != "unrecorded":
        record = {"rows": 1, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        if how == "mismatching":
            record["sha256"] = "0" * 64
        manifest["listing"].setdefault("work", {})[name] = record
        (folder / table / "_manifest.json").write_text(json.dumps(manifest))
    return folder, marker


def _position_at(table: Path, level: int) -> str:
    import pyarrow.parquet as pq

    rows = pa.concat_tables(pq.read_table(p, columns=["position", "level"]) for p in sorted((table / "rows").glob("*")))
    return next(p for p, lv in zip(rows.column("position").to_pylist(), rows.column("level").to_pylist())
                if lv == level)


@pytest.mark.parametrize("how", ["unrecorded", "mismatching", "recorded"])
def test_a_planted_inbox_runs_nothing_and_the_table_is_the_undisturbed_one(killed, tmp_path, how):
    undisturbed, _, table = killed
    folder, marker = _planted(killed, tmp_path, how)
    result = _build(folder)
    assert not marker.exists(), "a pickle from the folder was loaded"
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    if how == "mismatching":
        assert "listing again from the start positions" in result.stderr and "planted" in result.stderr
    else:
        assert "listing resumed" in result.stderr
    assert file_hashes(folder / table / "rows") == file_hashes(undisturbed / table / "rows")
