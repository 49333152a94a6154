"""The public API type-checks: a small client passes mypy --strict, and the same API misused does not.

The misused calls prove that the results are typed (a ``dict[str, Any]`` would let each of them through).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import tablebase

pytestmark = pytest.mark.slow  # mypy runs as a process

HERE = Path(__file__).parent / "typed"
REPO = Path(__file__).parent.parent


def mypy(script: Path) -> subprocess.CompletedProcess:
    # Only the script's own errors count (the package's modules are read for their types, not judged);
    # pyarrow, duckdb and numba ship no types.
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                           "--ignore-missing-imports", "--no-incremental", str(script)],
                          capture_output=True, text=True, cwd=REPO, timeout=600, check=False)


def test_a_client_of_the_public_api_type_checks():
    result = mypy(HERE / "client.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_misuse_of_the_public_api_does_not():
    result = mypy(HERE / "wrong.py")
    refused = {int(n) for n in re.findall(r"wrong\.py:(\d+): error", result.stdout)}
    marked = {i for i, line in enumerate((HERE / "wrong.py").read_text().splitlines(), 1) if "  # " in line}
    assert result.returncode == 1 and refused == marked, result.stdout


def test_the_package_says_it_is_typed_and_ships_the_marker():
    assert (Path(tablebase.__file__).parent / "py.typed").is_file()
    assert '"py.typed"' in (REPO / "pyproject.toml").read_text()


def test_errors_are_standard_ones_too(tmp_path):
    assert issubclass(tablebase.PositionError, ValueError) and issubclass(tablebase.PositionError,
                                                                           tablebase.TablebaseError)
    assert issubclass(tablebase.TableNotFound, LookupError) and issubclass(tablebase.TableNotFound,
                                                                            tablebase.TablebaseError)
    with tablebase.open(tmp_path) as tb, pytest.raises(LookupError, match="no table 'nothing'"):
        tb.probe("nothing", "1")
