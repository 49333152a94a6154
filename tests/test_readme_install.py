"""The README's two commands, run in order into one fresh virtual environment, as a new user runs them.

The quick start installs the package (not editable) and builds; the test
command then installs it editable into the same environment. A build used
to leave numba's compiled functions inside the installed package, where
``pip uninstall`` left them, and the folder they kept shadowed the editable
install: ``tablebase games`` then failed to import the package.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def _fenced_commands() -> list[str]:
    """The README's first two ``sh`` blocks: the quick start and the test command."""
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    return [block.strip() for block in blocks[:2]]


def _fresh_clone(into: Path) -> Path:
    """The tracked files of the checkout, as a fresh clone has them (no venv, no caches, no tables)."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True).stdout
    for name in files.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, into / name)
    return into


def _run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, f"{command}\nexited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def test_quick_start_then_test_install_then_games(tmp_path: Path) -> None:
    quick_start, test_command = _fenced_commands()
    assert "pip install '.[build]'" in quick_start and "tablebase build" in quick_start
    assert "pip install -e '.[test]'" in test_command and "pytest" in test_command
    clone = _fresh_clone(tmp_path / "clone")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "NUMBA_CACHE_DIR")}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if ".venv" not in p)
    env["HOME"] = str(tmp_path / "home")  # the user's caches, fresh
    python = Path(sys.base_prefix) / "bin" / "python3"
    quick_start = quick_start.replace("python3 -m venv", f"{python} -m venv", 1)

    shown = _run(quick_start, clone, env)
    assert '"outcome"' in shown.stdout or "outcome" in shown.stdout

    installed = list((clone / ".venv").glob("lib/python*/site-packages/tablebase"))
    assert installed, "the quick start did not install the package"
    left = [p for p in installed[0].rglob("*") if p.suffix in (".nbi", ".nbc")]

    # The test command's install, then the command, without running the whole suite inside this test.
    install = test_command.split("&& python -m pytest")[0].replace("python3 -m venv", f"{python} -m venv", 1)
    _run(install, clone, env)
    games = _run(". .venv/bin/activate && tablebase games", clone, env)
    assert "chomp" in games.stdout
    assert not left, f"numba's cache was written inside the installed package: {left[:3]}"
