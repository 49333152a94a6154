"""Which code may run for a table: a tablebase folder is data (docs/security.md).

A table's manifest says where its game came from (``source.ref``: a
built-in name, a plugin's name, ``module:Class`` or ``/path/file.py:Class``),
but whoever wrote the folder wrote that too. So a reader runs a game's code
only from

- a built-in game, found by name (``games.registry.BUILTIN``);
- an installed plugin, found by its entry point's name;
- a game the user names (``--game REF``, ``tablebase.open(root, games=[REF])``),
  for the tables whose manifest names a game of that name and kind and
  records that game's digest.

Never from a path or module that a manifest names. ``Trust`` decides, before
anything is imported, what a table's game is (``judge``), says so in words
(``origin``), and loads it (``load``) or refuses in one line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tablebase.errors import GameUnavailable, TablebaseError, UsageError
from tablebase.games import BUILTIN, Game, GameSource, find_game
from tablebase.games.registry import plugins
from tablebase.store import Manifest

SOURCE_CHANGED = ("the game's source has changed since this table was built: its moves are those of the rules "
                  "as they are now; tablebase verify says whether the table still holds")
PASS_GAME = "--game PATH:Class (tablebase.open(..., games=[...]) in Python)"


@dataclass(frozen=True)
class Named:
    """A game the user named: loaded, as naming it asks, with where it came from."""

    ref: str
    cls: type[Game]
    source: GameSource


@dataclass(frozen=True)
class Verdict:
    """What the reader makes of a table's game, before anything of it is imported.

    ``how``: "named" (a game the user named, of the same digest), "installed"
    (a built-in game or an installed plugin, by name), "differs" (the user
    named a game of that name with other rules), or "untrusted" (only the
    manifest says where the game is: never loaded).
    """

    how: str
    ref: str  # what is loaded: the named game's reference, or the built-in or plugin name
    origin: str  # in words, as ``tablebase tables`` shows it
    named: Named | None = None


class Trust:
    """The games a reader may run for the tables of a folder: installed ones, and those the user names."""

    def __init__(self, games: Iterable[str] = ()) -> None:
        if isinstance(games, str):
            games = [games]
        # Naming a game is the user's decision to run it: it is loaded now, and a bad name fails now.
        self.named = [Named(ref, *find_game(ref)) for ref in games]

    def judge(self, m: Manifest) -> Verdict:
        """What a table's game is to this reader; imports nothing."""
        ref = str(m.source.get("ref", m.game))
        named = [n for n in self.named if n.cls.name == m.game and n.cls.kind == m.kind]
        same = next((n for n in named if n.source.digest == m.source.get("digest")), None)
        if same is not None:
            return Verdict("named", same.ref, same.source.origin, same)
        installed = _installed(ref)
        if installed is not None and (not named or any(n.source.ref == ref for n in named)):
            return Verdict("installed", ref, installed)  # naming the installed game changes nothing
        if named:
            return Verdict("differs", named[0].ref, f"{named[0].source.origin}: other rules than the table's, "
                                                    "not loaded", named[0])
        return Verdict("untrusted", ref, f"{_claimed(ref)}, not loaded: pass --game")

    def origin(self, m: Manifest) -> str:
        """Where the table's game comes from, as this reader judges it (never the manifest's word)."""
        return self.judge(m).origin

    def load(self, m: Manifest) -> tuple[Game, bool]:
        """The table's game with its build options, and whether its source differs from the table's.

        GameUnavailable, one line naming the table and what to do, if the game
        may not run or cannot be loaded.
        """
        verdict = self.judge(m)
        if verdict.how == "untrusted":
            raise GameUnavailable(
                f"table {m.table}: its game ({_claimed(verdict.ref)}, says its manifest) is not loaded, as a "
                f"tablebase folder's code never runs; name the game it was built from: {PASS_GAME}")
        if verdict.how == "differs":
            theirs, ours = str(m.source.get("digest", "?"))[:12], verdict.named.source.digest[:12]
            raise GameUnavailable(
                f"table {m.table} was built from other rules (digest {theirs}…, {verdict.ref} gives {ours}…); "
                "build it again or name the file it was built from")
        try:
            cls, source = (verdict.named.cls, verdict.named.source) if verdict.named else find_game(verdict.ref)
            if (cls.name, cls.kind) != (m.game, m.kind):
                raise UsageError(f"{verdict.ref} is the game {cls.name!r} ({cls.kind}), the table's is "
                                     f"{m.game!r} ({m.kind})")
            game = cls(**m.params)
        except TablebaseError as e:
            raise GameUnavailable(f"table {m.table}: its game cannot be loaded ({e}); install it, "
                                  "or build the table again") from None
        except Exception as e:  # the game's own constructor, on options a manifest gives
            raise GameUnavailable(f"table {m.table}: its game refuses the table's options "
                                  f"({type(e).__name__}: {e})") from None
        return game, source.digest != m.source.get("digest")


def _installed(ref: str) -> str | None:
    """The origin of a built-in game or an installed plugin of that name, else None (nothing imported)."""
    if ref in BUILTIN:
        return "built-in"
    found = plugins().get(ref)
    return None if found is None else f"plugin {found[1]} ({found[0]})"


def _claimed(ref: str) -> str:
    """What a manifest's reference names, in words (a manifest's text is printable: ``Manifest.load``)."""
    where, colon, _ = ref.rpartition(":")
    if not colon:
        return f"{ref} (not installed)"
    if where.endswith(".py") or "/" in where or "\\" in where:
        return f"file {where}"
    return f"module {where}"
