"""Every fenced ``sh`` command of README.md and docs/*.md, run as a reader runs it, on a small folder.

The commands of each document run in the order it gives them, in one
working folder holding the checkout's ``examples/``, ``jobs/`` and
``readers/``, where earlier commands have built the tables later ones read
(README.md first, then docs/ in order of name). A command must exit 0 unless
its own comment says otherwise (``# exits 2``).

Commands that name ``s3://tables/...`` run against the S3-protocol server the
tests start (``tests/object_store.py``), its address and keys in the standard
AWS variables, as a reader's would be.

A few commands do not run here, each for the reason given in ``SKIPPED``
(installs, the test suite itself, benchmarks, servers, clusters); a few run
with a smaller size than the document's, where its own would take minutes
(``SMALLER``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
LINKED = ("examples", "jobs", "readers")  # what the commands name, from the checkout

# (what a command holds, why it does not run here)
SKIPPED = [
    (r"^python -m pytest", "the test suite itself"),
    (r"^python benchmarks/", "a benchmark: minutes to hours, measured by hand"),
    (r"^tablebase serve\b", "a server: tests/test_serve*.py and the browser tests run it"),
    (r"^docker compose", "a cluster of containers: images cannot be pulled here; tests/test_distributed.py"),
    (r"^python -m tests\.hosts|^ip link", "simulated hosts (root, network namespaces): tests/test_hosts.py"),
    (r"(^| )\.\.\.( |$)|\bGAME\b", "a pattern of options, not a command (the other lines give whole ones)"),
]

# (the document's text, what runs instead, why)
SMALLER = [
    ("chomp --rows 16 --cols 16", "chomp --rows 8 --cols 8", "601 million positions"),
    ("hackenbush --max-edges 10 --colors BRG", "hackenbush --max-edges 8 --colors BRG",
     "a minute and a half of partizan stalks"),
    ("jobs/octal_codes.toml", "octal_codes_small.toml", "512 tables, hours of CPU"),
]
SMALL_OCTAL_JOB = """[[table]]
game = "octal"
codes = "0.[0-3][0-3][0-3]"
max = 4096
summary = "octal_3_digit"
"""
# An installed package of games, as docs/games.md's "an importable module" supposes.
MODULE = ("mypkg", "cram.py", "examples/cram.py")
# Tables a command reads that no command of its document builds: (table, how the test builds it).
BUILT_FIRST = [("domineering_c8", "tablebase build domineering --max-cells 8 --out tb --quiet")]


@dataclass(frozen=True)
class Command:
    doc: str
    line: int
    text: str  # as the document gives it, comments and all


def _documents() -> list[Path]:
    docs = sorted((ROOT / "docs").glob("*.md"))
    return [ROOT / "README.md", *docs]


def _commands(path: Path) -> list[Command]:
    """The document's ``sh`` blocks cut into whole commands: lines joined until bash parses them."""
    text, out = path.read_text(), []
    for block in re.finditer(r"^```sh\n(.*?)^```", text, re.S | re.M):
        first = text[:block.start()].count("\n") + 2
        pending: list[str] = []
        for number, line in enumerate(block.group(1).splitlines(), first):
            if not pending and not line.strip():
                continue
            pending.append(line)
            joined = "\n".join(pending)
            if subprocess.run(["bash", "-n", "-c", joined], capture_output=True).returncode == 0:
                out.append(Command(path.name, number - len(pending) + 1, joined))
                pending = []
        assert not pending, f"{path.name}: a command that never ends: {pending}"
    return out


def _skipped(command: str) -> str | None:
    return next((why for pattern, why in SKIPPED if re.search(pattern, command, re.M)), None)


def _runnable(text: str) -> str:
    """The command as it runs here: the install before it left out (tests/test_readme_install.py runs
    it), optional ``[...]`` parts left out, sizes made small."""
    text = re.sub(r"^python3 -m venv .*?pip install [^&]*&& ", "", text)
    text = re.sub(r" \[[^]\n]*\]", "", text)
    for theirs, ours, _ in SMALLER:
        text = text.replace(theirs, ours)
    return text


def _expected(text: str) -> int:
    said = re.search(r"#.*\bexits? (\d+)", text)
    return int(said.group(1)) if said else 0


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory, s3_server) -> tuple[Path, dict[str, str]]:
    here = tmp_path_factory.mktemp("docs")
    for name in LINKED:
        (here / name).symlink_to(ROOT / name)
    package, module, source = MODULE
    (here / package).mkdir()
    (here / package / "__init__.py").write_text("")
    shutil.copy(ROOT / source, here / package / module)
    (here / "octal_codes_small.toml").write_text(SMALL_OCTAL_JOB)
    env = {**os.environ, **s3_server.env(), "PYTHONPATH": str(here),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for _, command in BUILT_FIRST:
        subprocess.run(["bash", "-c", command], cwd=here, env=env, check=True, capture_output=True, timeout=600)
    return here, env


def test_every_shown_command_runs(folder: tuple[Path, dict[str, str]]) -> None:
    here, env = folder
    failed, ran = [], 0
    for doc in _documents():
        for command in _commands(doc):
            if _skipped(command.text):
                continue
            text = _runnable(command.text)
            if not text.strip() or _skipped(text):
                continue
            done = subprocess.run(["bash", "-c", text], cwd=here, env=env, capture_output=True, text=True,
                                  timeout=900)
            ran += 1
            if done.returncode != _expected(command.text):
                failed.append(f"{command.doc}:{command.line}: {text}\n  exited {done.returncode}: "
                              f"{(done.stderr.strip() or done.stdout.strip())[-500:]}")
    assert ran >= 30, f"only {ran} commands ran"
    assert not failed, "\n".join(failed)


def test_the_skips_and_substitutions_are_few_each_with_its_reason_and_each_still_needed() -> None:
    commands = [c.text for doc in _documents() for c in _commands(doc)]
    assert len(SKIPPED) + len(SMALLER) <= 12
    for pattern, why in SKIPPED:
        assert why and any(re.search(pattern, c, re.M) for c in commands), pattern
    for theirs, ours, why in SMALLER:
        assert why and any(theirs in c for c in commands), theirs
