"""A plugin game's own code runs in bounded time, and what it returns is checked, by check-game and build.

The games are tests/plugins/defects.py: a correct one (Fan: the start fans out
to WIDTH positions, each one move from the end), and one for each defect,
mostly at the position 1.7. Each is run as a user runs it, `tablebase
check-game` and `tablebase build` in child processes, with a short time per
position. A defect of the rules is exit 1 from check-game (one line on stdout
naming it) and exit 2 from build; a limit reached (time, positions) is exit 2
from both; either way one line names the method and the position, there is
no traceback, and a build leaves no table behind but a manifest that says it
is not complete.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import rows_of
from helpers import assert_clean_error

pytestmark = pytest.mark.slow  # the command, as a user runs it: see conftest.py

GAMES = Path(__file__).parent / "plugins" / "defects.py"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SECONDS = "2"  # the time per position the commands allow: far above what Fan's positions take
WIDE = 20_000  # a middle level this large is played on the workers of a build
PARALLEL = 4  # commands at once
TIMEOUT = 300  # seconds a command may take before the test calls it hung

# class -> (words of the line, check-game's exit status, its options). 2: a limit, 1: a defect of the rules.
CASES = {
    # code that never returns
    "LoopingMoves": (["looping-moves", "moves((1, 7)) did not return within 2 s", "--position-seconds"], 2, []),
    "EndlessMoves": (["endless-moves", "moves((1, 7)) did not return within 2 s"], 2, []),
    "LoopingFormat": (["looping-format", "format((1, 7)) did not return within 2 s"], 2, []),
    "LoopingLevel": (["looping-level", "took more than 2 s", "level((1, 7))"], 2, []),
    "EndlessStart": (["endless-start", "start_positions() did not finish within 2 s"], 2, []),
    # positions that never end
    "CountlessStart": (["countless-start", "more than 1,000 positions", "--max-positions"], 2,
                       ["--max-positions", "1000"]),
    "Climbing": (["climbing", "a move from '2.0' (level 2) leads to '3.0' (level 3)", "must lower the level"], 1, []),
    # what a method returns
    "HugeLevel": (["huge-level", "level((1, 7)) returned 1,152,921,504,606,846,976", "0 to 1,048,575"], 1, []),
    "FloatLevel": (["float-level", "level((2, 0)) returned 2.0, of type float", "an int"], 1, []),
    "BoolLevel": (["bool-level", "level((2, 0)) returned True, of type bool", "an int"], 1, []),
    "IntFormat": (["int-format", "format((1, 7)) returned 17, of type int, not a str"], 1, []),
    # (check-game reads the first position by notation back first, '0.0'; a build, as it finds them, the start)
    "NoneRead": (["none-read", ".0') returned None", "read() must undo format()", "defect of the game"], 1, []),
    "OtherRead": (["other-read", ".0' reads back as another position", "read() must undo format()"], 1, []),
    "NotPairs": (["not-pairs", "moves((1, 7)) gave (0, (0, 0), 'to the end'), not a (move, position) pair"], 1, []),
    "NumberedMoveNames": (["numbered-move-names", "move_name(0) returned 0, of type int, not a str"], 1, []),
    "BareOutcome": (["bare-outcome", "result((0, 0)) returned <Outcome.LOSS: 0>", "Result(outcome, score)"], 1, []),
    "WordResult": (["word-result", "result((0, 0)) returned Result(outcome='lost', score=0)", "Outcome.LOSS"], 1, []),
    "HugeScore": (["huge-score", "result((0, 0)) gave the score 1000", "from -127 to 127"], 1, []),
}
# Defects checked here by check-game alone (a build reads every position back too, as it finds it).
CHECK_ONLY = {
    "LoopingRead": (["looping-read", "read('1.7') did not return within 2 s"], 2, []),
}
# Defects met only where a build plays the middle level: on the workers.
ON_WORKERS = {
    "LoopingOnWorkers": ["looping-on-workers", "moves((1, 7)) did not return within 2 s"],
    "IntFormatOnWorkers": ["int-format-on-workers", "format((1, 7)) returned 17, of type int, not a str"],
}


def command(*args: object) -> subprocess.CompletedProcess:
    """``tablebase ARGS`` in a child process; one that hangs is killed and fails its case alone."""
    argv = [sys.executable, "-m", "tablebase", *map(str, args)]
    try:
        return subprocess.run(argv, check=False, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, None, "", f"(no answer in {TIMEOUT} s: killed)")


def assert_nothing_built(out: Path) -> None:
    """No table: nothing under the folder but manifests that say their table is not complete, with no files."""
    found = [p for p in out.rglob("*") if p.is_file()] if out.exists() else []
    assert all(p.name == "_manifest.json" for p in found), found
    for path in found:
        manifest = json.loads(path.read_text())
        assert not manifest["complete"] and not manifest["files"] and not manifest["listing"].get("files"), manifest


@pytest.fixture(scope="module")
def ran(tmp_path_factory, scheduler) -> dict:
    """Every case's check-game and build, a few at a time: (case, verb) -> (result, the build's --out)."""
    outs = tmp_path_factory.mktemp("bounded")
    jobs = {}
    for case, (_, _, options) in CASES.items():
        game = f"{GAMES}:{case}"
        jobs[case, "check-game"] = (["check-game", game, "--width", 10, *options], None)
        jobs[case, "build"] = (["build", game, "--width", 10, *options], outs / case)
    for case, (_, _, options) in CHECK_ONLY.items():
        jobs[case, "check-game"] = (["check-game", f"{GAMES}:{case}", "--width", 10, *options], None)
    for case in ON_WORKERS:
        jobs[case, "build"] = (["build", f"{GAMES}:{case}", "--width", WIDE], outs / case)
    for correct in ("Fan", "ScoredFan"):
        jobs[correct, "check-game"] = (["check-game", f"{GAMES}:{correct}", "--width", 10], None)
        jobs[correct, "build"] = (["build", f"{GAMES}:{correct}", "--width", WIDE], outs / correct)

    def run(job: tuple[list, Path | None]) -> tuple[subprocess.CompletedProcess, Path | None]:
        args, out = job
        where = ["--out", out, "--scheduler", scheduler] if out else []
        return command(*args, "--position-seconds", SECONDS, "--quiet", *where), out

    with ThreadPoolExecutor(PARALLEL) as pool:
        return dict(zip(jobs, pool.map(run, jobs.values())))


def test_the_correct_games_pass(ran):
    """The control: Fan and its scored form pass check-game and build (the middle level on the workers), so
    each failure below is its game's one defect."""
    for game, table, values in (("Fan", "fan_width20000", "grundy"), ("ScoredFan", "scored_fan_width20000", "outcome")):
        checked, out = ran[game, "check-game"][0], ran[game, "build"][1]
        assert checked.returncode == 0 and "12 positions checked, no defects" in checked.stdout, checked.stderr
        built = ran[game, "build"][0]
        assert built.returncode == 0, built.stderr
        rows = {r["position"]: r[values] for r in rows_of(out, table)}
        assert len(rows) == WIDE + 2
        if values == "grundy":  # the end is lost, every middle position wins, so the start is lost
            assert rows["0.0"] == 0 and rows["1.7"] == 1 and rows["2.0"] == 0


@pytest.mark.parametrize("case", list(CASES) + list(CHECK_ONLY))
def test_check_game_names_the_defect_in_one_line(case, ran):
    words, status, _ = CASES.get(case) or CHECK_ONLY[case]
    result = ran[case, "check-game"][0]
    assert "Traceback" not in result.stderr, result.stderr
    if status == 2:  # a limit reached: a refusal, as for bad usage
        assert_clean_error(result, *words)
        return
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), (words, lines)
    assert result.stderr.strip().splitlines() == [f"{words[0]}: 1 defects in 0 positions"], result.stderr


@pytest.mark.parametrize("case", list(CASES) + list(ON_WORKERS))
def test_build_stops_in_one_line_and_leaves_no_table(case, ran):
    words = CASES[case][0] if case in CASES else ON_WORKERS[case]
    result, out = ran[case, "build"]
    assert_clean_error(result, *words)
    assert_nothing_built(out)


def test_a_keyed_games_listing_stops_at_max_positions(tmp_path, scheduler):
    """A keyed game listed from its start keys (Cram from the empty board, 58,830 positions on 4 x 5) is
    refused beyond --max-positions by build and check-game alike, and the same build within it builds."""
    game = f"{EXAMPLES / 'cram_compiled.py'}:CramCompiled"
    refused = command("build", game, "--rows", 4, "--cols", 5, "--max-positions", 1000, "--out", tmp_path / "a",
                      "--scheduler", scheduler, "--quiet")
    assert_clean_error(refused, "cramcompiled", "more than 1,000 positions", "--max-positions")
    assert_nothing_built(tmp_path / "a")
    checked = command("check-game", game, "--rows", 4, "--cols", 5, "--max-positions", 1000, "--quiet")
    assert_clean_error(checked, "more than 1,000 positions", "--max-positions")
    built = command("build", game, "--rows", 3, "--cols", 4, "--max-positions", 1000, "--out", tmp_path / "b",
                    "--scheduler", scheduler, "--quiet")
    assert built.returncode == 0 and json.loads(built.stdout)["positions"] == 550, built.stderr


def test_the_limits_themselves_are_checked(tmp_path):
    for args, words in ((["--position-seconds", "0"], "--position-seconds must be more than 0"),
                        (["--max-positions", "0"], "--max-positions must be at least 1")):
        result = command("build", f"{GAMES}:Fan", "--width", 3, *args, "--out", tmp_path / "db", "--quiet")
        assert_clean_error(result, words)
        assert not (tmp_path / "db").exists()


def test_the_highest_level_builds_and_reads_back(tmp_path, scheduler):
    """A start at level 2**20 - 1, the highest a game may have (HugeLevel's is refused), above a million empty
    levels: the table builds, and a lookup reads its row and moves."""
    out = tmp_path / "db"
    built = command("build", f"{GAMES}:TopLevel", "--width", 3, "--out", out, "--scheduler", scheduler, "--quiet")
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["positions"] == 5
    looked = command("lookup", "--db", out, "top_level_width3", "2.0", "--json", "--game", f"{GAMES}:TopLevel")
    assert looked.returncode == 0, looked.stderr
    row = json.loads(looked.stdout)
    assert (row["level"], row["grundy"], sorted(m["position"] for m in row["moves"])) == (2**20 - 1, 0,
                                                                                          ["1.0", "1.1", "1.2"])
