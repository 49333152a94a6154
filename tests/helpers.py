"""Running the command line as a user does, in a child process."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path


def tablebase(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tablebase", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def file_hashes(folder: Path) -> dict[str, str]:
    """sha256 of every file under a folder, by relative path."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def assert_clean_error(result: subprocess.CompletedProcess, *words: str) -> None:
    """Exit status 2, one line on stderr naming the problem, no traceback."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
