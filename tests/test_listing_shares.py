"""A plain game listed by the workers in shares, as a user builds it: the same files on any cluster.

The game is a plugin (tests/plugins/kayles_rows.py: Kayles whose rows are
kept together, so its positions are every set of rows a start row falls
into). Its tables are built by the command with one worker and with two, and
must be byte-identical, and hold what a brute-force search written here
finds: every position reachable from the start row, keys by level then
notation, and each position's Grundy value. A build killed while the
workers list the positions resumes, as the same command, to the same files.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from conftest import rows_of
from helpers import file_hashes, killed_while_listing, killed_while_numbering, tablebase

pytestmark = pytest.mark.slow  # the command or other processes: see conftest.py

GAME = str(Path(__file__).parent / "plugins" / "kayles_rows.py") + ":KaylesRows"


# -- the oracle ---------------------------------------------------------------------------------
def children(rows: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Every position one move leads to: one pin, or two touching pins, knocked down from one row."""
    out = set()
    for r, n in enumerate(rows):
        rest = list(rows[:r] + rows[r + 1:])
        for width in (1, 2):
            for left in range(n - width + 1):
                right = n - left - width
                out.add(tuple(sorted([k for k in rest + [left, right] if k], reverse=True)))
    return out


@cache
def grundy(rows: tuple[int, ...]) -> int:
    values = {grundy(c) for c in children(rows)}
    return next(g for g in range(len(values) + 1) if g not in values)


def reachable(pins: int) -> set[tuple[int, ...]]:
    seen, todo = {(pins,)}, [(pins,)]
    while todo:
        for c in children(todo.pop()):
            if c not in seen:
                seen.add(c)
                todo.append(c)
    return seen


def spelt(rows: tuple[int, ...]) -> str:
    return " ".join(map(str, rows)) or "0"


# -- builds -------------------------------------------------------------------------------------
def build(out: Path, pins: int, *extra: object) -> dict:
    result = tablebase("build", "--game", GAME, "--pins", pins, "--out", out, "--quiet", *extra, timeout=900)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_two_workers_build_the_files_of_one_and_the_oracles_table(tmp_path):
    table = build(tmp_path / "two", 20, "--workers", 2)["table"]
    build(tmp_path / "one", 20, "--workers", 1)
    assert file_hashes(tmp_path / "two" / table) == file_hashes(tmp_path / "one" / table)
    rows = rows_of(tmp_path / "two", table)
    positions = reachable(20)
    assert len(rows) == len(positions) == 792
    # Keys by level (the pins standing), then by notation: the numbering tables have always had.
    assert [r["position"] for r in rows] == [spelt(p) for p in sorted(positions, key=lambda p: (sum(p), spelt(p)))]
    assert [r["key"] for r in rows] == list(range(len(rows)))
    assert {r["position"]: r["grundy"] for r in rows} == {spelt(p): grundy(p) for p in positions}
    verified = tablebase("verify", "--db", tmp_path / "two", table, "--game", GAME, "--quiet")
    assert verified.returncode == 0 and "792 rows verified, no problems" in verified.stdout, verified.stderr


@pytest.fixture(scope="module")
def undisturbed(tmp_path_factory) -> tuple[Path, str]:
    """Kayles of a row of 40 pins built on two workers undisturbed: its folder and its table's name."""
    out = tmp_path_factory.mktemp("undisturbed")
    return out, build(out, 40, "--workers", 2)["table"]


def test_a_build_killed_while_listing_resumes_to_the_same_files(tmp_path, undisturbed):
    folder, table = undisturbed
    out = tmp_path / "killed"
    killed_while_listing(out, table, "--game", GAME, "--pins", 40, "--workers", 2, levels=5)
    result = tablebase("build", "--game", GAME, "--pins", 40, "--out", out, "--workers", 2, timeout=900)
    assert result.returncode == 0, result.stderr
    assert "listing resumed" in result.stderr
    assert "with what it held before" in result.stderr  # the listing's leavings in the workers, planned for
    assert file_hashes(out / table) == file_hashes(folder / table)


def test_a_build_killed_while_numbering_resumes_to_the_same_files(tmp_path, undisturbed):
    """Killed once the search is done and the numbering has written a level's file (the listing is small, so
    one task numbers it, a level at a time): the search is not played again, and the numbering is."""
    folder, table = undisturbed
    out = tmp_path / "killed"
    killed_while_numbering(out, table, "--game", GAME, "--pins", 40, "--workers", 2)
    result = tablebase("build", "--game", GAME, "--pins", 40, "--out", out, "--workers", 2, timeout=900)
    assert result.returncode == 0, result.stderr
    assert "positions found before, 0 steps waiting" in result.stderr
    assert f"numbering {len(reachable(40)):,} positions" in result.stderr
    assert file_hashes(out / table) == file_hashes(folder / table)


def every_set_of_rows(pins: int) -> set[tuple[int, ...]]:
    """Every multiset of rows of at most ``pins`` pins in all, largest first."""
    out = {()}
    for row in range(1, pins + 1):
        out |= {tuple(sorted(rows + (row,) * k, reverse=True)) for rows in out
                for k in range(1, (pins - sum(rows)) // row + 1)}
    return out


def test_a_game_starting_from_every_position_has_its_start_shared_by_the_workers(tmp_path):
    """Each of two workers takes the start positions of the levels that are its share, side by side (listing/
    shares.py, ``starting``); the files are those of a build on one worker, which takes them all itself."""
    table = build(tmp_path / "two", 30, "--every", 1, "--workers", 2)["table"]
    build(tmp_path / "one", 30, "--every", 1, "--workers", 1)
    assert file_hashes(tmp_path / "two" / table) == file_hashes(tmp_path / "one" / table)
    positions = every_set_of_rows(30)
    rows = rows_of(tmp_path / "two", table)
    assert len(rows) == len(positions) == 28_629  # the partitions of 0 to 30 (OEIS A000070)
    assert [r["position"] for r in rows] == [spelt(p) for p in sorted(positions, key=lambda p: (sum(p), spelt(p)))]
    assert {r["position"]: r["grundy"] for r in rows} == {spelt(p): grundy(p) for p in positions}
