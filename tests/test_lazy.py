"""``tablebase.lazy``: the large libraries are imported at their first attribute, once, whoever asks first.

Each check runs in a fresh interpreter, where nothing has imported them yet.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # other processes


def python(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_a_library_is_imported_at_its_first_attribute_and_then_is_the_library():
    said = python("""
import sys, types
from tablebase.lazy import np, pa
print("numpy" in sys.modules, "pyarrow" in sys.modules, isinstance(np, types.ModuleType))
zeros = np.zeros
import numpy
print("numpy" in sys.modules, "pyarrow" in sys.modules, zeros is numpy.zeros, np.int64 is numpy.int64,
      np.__version__ == numpy.__version__)
""")
    assert said.splitlines() == ["False False True", "True False True True True"]


def test_threads_asking_at_once_get_one_library():
    """Eight threads take their first attribute of Arrow at the same moment: it is imported once, and each
    gets the library's own function."""
    said = python("""
import threading
from tablebase.lazy import pa
start, got = threading.Barrier(8), []
def ask():
    start.wait()
    got.append(pa.array)
threads = [threading.Thread(target=ask) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
import pyarrow
print(len(got), all(f is pyarrow.array for f in got), pa.array([1, 2]).to_pylist())
""")
    assert said == "8 True [1, 2]"


def test_compiled_code_sees_the_library_as_a_module():
    """numba types a global by what it is: a function compiled over ``np`` from here compiles and runs."""
    said = python("""
import numba
from tablebase.lazy import np
@numba.njit
def total(n):
    a = np.arange(n)
    return a.sum()
print(total(10))
""")
    assert said == "45"


def test_a_region_under_a_time_limit_imports_the_libraries_before_it_is_watched():
    """The watchdog raises into a game's thread at any line: never halfway through importing a library."""
    said = python("""
import sys
from tablebase.listing.game_limits import watched
print("numpy" in sys.modules)
with watched(object(), "moves", 5.0):
    print("numpy" in sys.modules, "pyarrow" in sys.modules)
""")
    assert said.splitlines() == ["False", "True True"]


def test_the_listing_package_gives_each_name_of_its_submodules():
    """``tablebase.listing`` imports a name's submodule at its first use: every name it exports is the
    submodule's own, and a name it does not export is an AttributeError, as from any module."""
    code = """
import sys, tablebase.listing as listing
print(sorted(m for m in sys.modules if m.startswith("tablebase.listing.")))
from tablebase.listing import PlainRules
print(sorted(m for m in sys.modules if m.startswith("tablebase.listing.")))
for name in listing.__all__:
    value = getattr(listing, name)
    assert value is getattr(sys.modules[value.__module__], name), name
try:
    listing.no_such_name
except AttributeError as e:
    print(e)
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    before, after, missing = result.stdout.splitlines()
    assert before == "[]"
    assert after == "['tablebase.listing.rules']"
    assert missing == "module 'tablebase.listing' has no attribute 'no_such_name'"
