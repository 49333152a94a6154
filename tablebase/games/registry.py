"""Finding games: the built-in ones, installed plugins, and any class in a module or file.

A game is named by a *reference*: a built-in name (``chomp``), the name of
an installed plugin (entry point group ``tablebase.games``), ``module:Class``
(``mypkg.cram:Cram``) or ``path/to/file.py:Class``. ``find_game`` imports it
and says where it came from (``GameSource``, with a digest of its code); a
table's manifest keeps that, so lookups, verify and the server import the same
game again.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from tablebase.errors import UsageError
from tablebase.games.base import Game
from tablebase.jit import cache_folder, write_cached
from tablebase.version import VERSION

ENTRY_POINTS = "tablebase.games"
BUILTIN = {
    "nim": "tablebase.games.nim:Nim",
    "subtraction": "tablebase.games.subtraction:Subtraction",
    "wythoff": "tablebase.games.wythoff:Wythoff",
    "fibonacci-nim": "tablebase.games.fibonacci_nim:FibonacciNim",
    "chomp": "tablebase.games.chomp:Chomp",
    "green-hackenbush": "tablebase.games.green_hackenbush:GreenHackenbush",
    "tanhinmin": "tablebase.games.tanhinmin:Tanhinmin",
    "hackenbush": "tablebase.games.hackenbush:Hackenbush",
    "domineering": "tablebase.games.domineering:Domineering",
    "octal": "tablebase.games.octal:Octal",
}
KIND_NAMES = ("impartial", "partizan", "scored")
_PACKAGE = Path(__file__).resolve().parent.parent
# The parts of this package that decide a built-in game's rows: its digest.
_ENGINE = ("games", "listing", "solve", "kinds")
_HEX64 = re.compile("[0-9a-f]{64}")
MAX_CODE_FILES = 1000  # files of code a game's folder (with the folders under it) may hold for its digest
MAX_CODE_FOLDERS = 1000  # folders Python could import from, walked to find them
_CODE = tuple(importlib.machinery.all_suffixes())  # .py, .pyc and extension modules: what an import may run


@dataclass(frozen=True)
class GameSource:
    """Where a game class comes from, as a table's manifest records it.

    The digest keys whatever is compiled or cached for the game, guards resumed builds (a build begun with
    other rules is not continued) and decides which tables a game named by the user serves. It covers every
    file of code the game can import from its own place: for a game file, every module in its folder and in
    the folders under it that Python can import (a sub-package, a module imported only when a move is asked
    for); for a module, its top-level package, or the folder of a top-level module. A place holding more
    code than a digest may cover (``MAX_CODE_FILES``, ``MAX_CODE_FOLDERS``: a home folder,
    ``site-packages``) is refused in one line saying so.
    """

    ref: str  # how to find it again: a built-in or plugin name, "module:Class" or "/abs/file.py:Class"
    origin: str  # in words: "built-in", "plugin <dist> <version>", "module <name>", "file <path>"
    version: str
    digest: str  # sha256 of the game's own source files

    def as_record(self) -> dict[str, str]:
        return {"ref": self.ref, "origin": self.origin, "version": self.version, "digest": self.digest}


def plugins() -> dict[str, tuple[str, str]]:
    """Installed plugins: name -> ("module:Class", "<distribution> <version>")."""
    # tens of milliseconds to import: not for a table of a built-in game
    from importlib import metadata

    found = {}
    for point in metadata.entry_points(group=ENTRY_POINTS):
        dist = point.dist
        found[point.name] = (point.value, f"{dist.name} {dist.version}" if dist else "unknown distribution")
    return found


def game_names() -> list[str]:
    """Every game known by name: the built-in ones, then installed plugins."""
    return list(BUILTIN) + [n for n in sorted(plugins()) if n not in BUILTIN]


def find_game(ref: str) -> tuple[type[Game], GameSource]:
    """The game class a reference names, and where it comes from; TablebaseError if none."""
    ref = ref.strip()
    if ref in BUILTIN:
        cls = _class_of(BUILTIN[ref], ref)
        return cls, GameSource(ref, "built-in", VERSION, _builtin_digest())
    installed = plugins()
    if ref in installed:
        target, dist = installed[ref]
        cls = _class_of(target, ref)
        version = dist.rsplit(" ", 1)[-1]
        return cls, GameSource(ref, f"plugin {dist} ({target})", version, _module_digest(cls.__module__, ref, False))
    if ":" not in ref:
        known = ", ".join(game_names())
        raise UsageError(
            f"invalid choice: unknown game {ref!r}; games are: {known} (or give module:Class or path/to/file.py:Class)"
        )
    where, _, name = ref.rpartition(":")
    if where.endswith(".py") or "/" in where or "\\" in where:
        path = Path(where).expanduser().resolve()
        module = _load_file(path)
        cls = _attribute(module, name, ref, str(path))
        digest = module.__tablebase_digest__
        version = str(getattr(module, "__version__", "") or f"source {digest[:12]}")
        return cls, GameSource(f"{path}:{name}", f"file {path}", version, digest)
    cls = _class_of(ref, ref)
    digest = _module_digest(where, ref)
    return cls, GameSource(ref, f"module {where}", _module_version(where, digest), digest)


def make_game(ref: str, params: dict[str, Any]) -> Game:
    """The game a reference names, with these build options (keys with underscores or dashes)."""
    return find_game(ref)[0](**params)


def load_game(ref: str, params: dict[str, Any]) -> tuple[Game, GameSource]:
    """``make_game`` and the game's source."""
    cls, source = find_game(ref)
    return cls(**params), source


# -- importing -------------------------------------------------------------------
def _class_of(target: str, ref: str) -> type[Game]:
    module_name, _, name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise UsageError(f"game {ref!r}: cannot import {module_name!r}: {e}") from None
    except Exception as e:  # the module itself fails: still one line, naming it
        raise UsageError(f"game {ref!r}: importing {module_name!r} failed: {type(e).__name__}: {e}") from None
    return _attribute(module, name, ref, module_name)


def _attribute(module: Any, name: str, ref: str, where: str) -> type[Game]:
    cls = getattr(module, name, None)
    if cls is None:
        raise UsageError(f"game {ref!r}: {where} has no {name!r}")
    if not (isinstance(cls, type) and issubclass(cls, Game) and getattr(cls, "kind", None) in KIND_NAMES):
        raise UsageError(
            f"game {ref!r}: {name} is not a game class (subclass ImpartialGame, PartizanGame or ScoredGame "
            "from tablebase.games, or their keyed forms)"
        )
    if not isinstance(getattr(cls, "name", None), str) or not cls.name:
        raise UsageError(f"game {ref!r}: {name} has no name (give the class a 'name')")
    missing = sorted(getattr(cls, "__abstractmethods__", ()))
    if missing:
        raise UsageError(f"game {ref!r}: {name} does not define {', '.join(missing)} (see docs/games.md)")
    return cls


def _load_file(path: Path) -> Any:
    """The module of a game file, loaded under a name fixed by its path (so pickles find its classes).

    Modules in its folder and the folders under it may be imported by it (its
    folder is searched last), when it loads or later; every one counts in its
    digest (``_code_files``), and a change of any of them loads the game again,
    with the modules it had imported from there.
    """
    if not path.is_file():
        raise UsageError(f"no game file {path}")
    name = "tablebase_game_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
    folder = path.parent
    files = tuple(sorted({*_code_files(folder, f"game file {path}"), os.path.realpath(path)}, key=_parts))
    digest = _digest_of_files(files, str(folder))
    loaded = sys.modules.get(name)
    if loaded is not None and loaded.__tablebase_digest__ == digest:
        return loaded
    own = set(files)
    for stale in [m for m, mod in list(sys.modules.items()) if _from(mod, own)]:
        del sys.modules[stale]  # modules of the game's folder, loaded again with it
    if str(folder) not in sys.path:
        sys.path.append(str(folder))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        del sys.modules[name]
        raise UsageError(f"game file {path} failed to load: {type(e).__name__}: {e}") from None
    module.__tablebase_digest__ = digest  # type: ignore[attr-defined]
    return module


def _from(module: Any, files: set[str]) -> bool:
    """Whether a module was loaded from one of these files (other than as a game file, or as this package)."""
    file = getattr(module, "__file__", None)
    name = getattr(module, "__name__", "")
    return bool(file) and os.path.realpath(file) in files and not name.startswith("tablebase")


def _code_files(folder: Path, what: str) -> tuple[str, ...]:
    """Every file of code Python could import from ``folder`` (on the path): its modules, and those of each
    folder under it whose name an import can spell (a package, with or without ``__init__.py``), symbolic
    links followed; ``__pycache__``, hidden folders and names like ``site-packages`` are not importable.
    UsageError naming ``what`` if there is more than a digest may cover."""
    found: list[str] = []
    todo, seen = [str(folder)], set()
    while todo:
        here = os.path.realpath(todo.pop())
        if here in seen:
            continue
        seen.add(here)
        if len(seen) > MAX_CODE_FOLDERS:
            raise _too_much(what, folder)
        try:
            with os.scandir(here) as entries:
                listed = list(entries)
        except OSError:
            continue
        for entry in listed:
            stem = entry.name.partition(".")[0]
            if not stem.isidentifier() or entry.name == "__pycache__":
                continue
            if entry.is_dir():
                if entry.name.isidentifier():
                    todo.append(entry.path)
            elif entry.name.endswith(_CODE) and entry.is_file():
                found.append(os.path.realpath(entry.path))
                if len(found) > MAX_CODE_FILES:
                    raise _too_much(what, folder)
    return tuple(sorted(set(found), key=_parts))


def _too_much(what: str, folder: Path) -> UsageError:
    return UsageError(
        f"{what}: its folder {folder} holds more folders or files of code than a game's digest may cover "
        f"({MAX_CODE_FOLDERS:,} folders, {MAX_CODE_FILES:,} files), any of which it could import; put the game "
        "in a folder of its own")


# -- digests and versions -----------------------------------------------------------
def _digest_of(paths: Iterable[str], root: str | None = None) -> str:
    """sha256 of each file's name (relative to ``root``, or its base name) and bytes, in the order of their
    paths' parts."""
    digest = hashlib.sha256()
    for path in sorted(paths, key=_parts):
        name = os.path.basename(path) if root is None else os.path.relpath(path, root)
        with open(path, "rb") as file:
            digest.update(name.encode() + b"\0" + file.read())
    return digest.hexdigest()


def _parts(path: str) -> list[str]:
    return path.split(os.sep)


def _digest_of_files(files: tuple[str, ...], root: str | None = None) -> str:
    stamps = []
    for file in files:
        try:
            stat = Path(file).stat()
            stamps += [stat.st_mtime_ns, stat.st_size]
        except OSError:
            stamps += [-1, -1]
    return _cached_digest(files, root, *stamps)


@lru_cache(maxsize=256)
def _cached_digest(paths: tuple[str, ...], root: str | None, *stamp: int) -> str:
    return _digest_of((p for p in paths if os.path.isfile(p)), root)


def _builtin_digest(parts: tuple[str, ...] = _ENGINE) -> str:
    """The digest of this package's sources in ``parts``. A table's first probe needs it, so it lists each
    folder once with ``os.scandir``, and a digest found before for the same files, by their paths, times and
    sizes, is read back from the cache folder rather than every file being read and hashed again (the folder
    is trusted as the compiled code numba keeps there is)."""
    paths = []
    for part in parts:
        with os.scandir(os.path.join(_PACKAGE, part)) as entries:
            paths += [entry.path for entry in entries if entry.name.endswith(".py")]
    paths.sort(key=_parts)
    stats = [os.stat(p) for p in paths]
    stamps = [(p, st.st_mtime_ns, st.st_size) for p, st in zip(paths, stats)]
    kept = cache_folder() / "digests" / hashlib.sha256(repr(stamps).encode()).hexdigest()
    try:
        digest = kept.read_text()
        if _HEX64.fullmatch(digest):
            return digest
    except (OSError, UnicodeDecodeError):
        pass
    digest = _cached_digest(tuple(paths), None, *[st.st_mtime_ns for st in stats])
    try:
        write_cached(kept, digest)
    except OSError:
        pass  # a cache that cannot be written is no error: the digest is found again next time
    return digest


def source_digest(module_name: str) -> str:
    """The digest of the source a module's compiled code comes from: a game file, a package, or this
    package's games and solvers (the rest of the engine compiles nothing)."""
    if module_name.split(".")[0] == "tablebase":
        return _builtin_digest(("games", "solve"))
    module = sys.modules.get(module_name)
    if module_name.startswith("tablebase_game_") and module is not None:
        return module.__tablebase_digest__
    return _module_digest(module_name, module_name, False)


def _module_digest(module_name: str, ref: str, beside: bool = True) -> str:
    """The digest of a module's own code: every file of its top-level package (``_code_files``), or, for a
    top-level module, of the folder it is in (``beside``), or the module's file alone (an installed plugin's
    module, trusted by its installation)."""
    top = sys.modules.get(module_name.split(".")[0])
    file = getattr(top, "__file__", None)
    if file is None:
        return "unknown"
    root = Path(file).resolve()
    if root.name == "__init__.py" or beside:
        folder = root.parent
        return _digest_of_files(_code_files(folder, f"game {ref!r}"), str(folder))
    return _digest_of_files((str(root),))


def _module_version(module_name: str, digest: str) -> str:
    top = module_name.split(".")[0]
    version = getattr(sys.modules.get(top), "__version__", None)
    if version:
        return str(version)
    from importlib import metadata

    for dist in metadata.packages_distributions().get(top, []):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return f"source {digest[:12]}"
