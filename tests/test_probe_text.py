"""One source of truth for ranking: a dense built-in game's scalar reading of one position (``parse``,
``locate``, plain Python for a probe) against its batch reading (``parse_many``, ``locate_many``,
``levels_of``, the compiled loops a build and ``lookup_many`` use), on every position of small tables
and on random positions of big ones, spelt as the game writes them and as a user might.

The positions come from the game's own spelling of keys (``format_positions``, an unranking: code the
ranking does not share); ``test_probe_keys.py`` checks the keys against docs/format.md's formulas.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from tablebase.errors import PositionError
from tablebase.games import Texts, load_game

SMALL = [  # every key of the table
    ("chomp", {"rows": 1, "cols": 6}),
    ("chomp", {"rows": 4, "cols": 5}),
    ("chomp", {"rows": 5, "cols": 3}),
    ("nim", {"heaps": 1, "max_heap": 9}),
    ("nim", {"heaps": 3, "max_heap": 6}),
    ("wythoff", {"max": 40}),
    ("fibonacci-nim", {"max": 40}),
    ("subtraction", {"set": "1,3,4", "max": 60}),
    ("subtraction", {"take": "2..5", "max": 60}),
    ("octal", {"code": "0.137", "max": 300}),
    ("tanhinmin", {"max_card": 3, "max_hand": 3}),
]
BIG = [  # random keys of the table
    ("chomp", {"rows": 13, "cols": 13}),
    ("chomp", {"rows": 16, "cols": 16}),
    ("chomp", {"rows": 3, "cols": 30}),
    ("nim", {"heaps": 4, "max_heap": 1000}),
    ("nim", {"heaps": 12, "max_heap": 20}),
    ("wythoff", {"max": 1_000_000}),
    ("fibonacci-nim", {"max": 100_000}),
    ("subtraction", {"bash": 7, "max": 100_000_000}),
    ("tanhinmin", {"max_card": 13, "max_hand": 6}),
]


def keys_of(game, every: bool) -> np.ndarray:
    """The table's keys: all of them, or 3,000 drawn at random (with the first and the last)."""
    if every:
        keys = np.arange(game.key_space, dtype=np.int64)
    else:
        rng = np.random.default_rng(game.key_space % 1000)
        keys = np.concatenate([[0, game.key_space - 1], rng.integers(0, game.key_space, 3000)]).astype(np.int64)
    if game.name == "chomp":
        keys = keys[keys != 0]  # the empty bar is no position
    return keys


def respelt(game, text: str, rng: random.Random) -> str:
    """The same position written another way the game reads: commas, other orders, empty rows or heaps."""
    if game.name in ("nim", "wythoff"):
        numbers = text.split()
        rng.shuffle(numbers)
        return ", ".join(numbers) + (" 0" * rng.randint(0, 2) if game.name == "nim" else "")
    if game.name == "chomp":
        return text.replace(" ", ",") + " 0" * rng.randint(0, 3)
    if game.name == "tanhinmin":
        hands = text.split("/")
        for i in (0, 1):
            cards = hands[i].split()
            rng.shuffle(cards)
            hands[i] = " " + ",".join(c for c in cards if c != "-") + " "
        return "/".join(hands)
    if game.name == "fibonacci-nim":
        n, k = map(int, text.split())
        if k == n:
            return f"{n}  {k + rng.randint(0, 9)}"  # k above n is capped at n
        return f"{n}" if k == n - 1 else f"{n},{k}"  # a lone n is n n-1
    return f"  {text}\t"


@pytest.mark.parametrize("every, name, params", [(True, *c) for c in SMALL] + [(False, *c) for c in BIG],
                         ids=lambda v: str(v) if not isinstance(v, dict) else "_".join(map(str, v.values())))
def test_the_scalar_reading_is_the_batch_reading(every, name, params):
    game, _ = load_game(name, params)
    keys = keys_of(game, every)
    levels = game.levels_of(keys)
    texts = game.format_positions(keys).to_strings()
    rng = random.Random(len(keys))
    for spelt in (texts, [respelt(game, t, rng) for t in texts]):
        batch = Texts.from_strings(spelt)
        assert game.parse_many(batch).tolist() == keys.tolist()
        assert [a.tolist() for a in game.locate_many(batch)] == [keys.tolist(), levels.tolist()]
        assert [game.parse(t) for t in spelt] == keys.tolist()
        assert [game.locate(t) for t in spelt] == list(zip(keys.tolist(), levels.tolist()))
    assert [game.level_of(k) for k in keys[:500].tolist()] == levels[:500].tolist()
    mixed = texts[:50] + ["+" + t if t[0].isdigit() else t for t in texts[50:60]]  # some read one by one
    assert [a.tolist() for a in game.locate_many(Texts.from_strings(mixed))] == [keys[:60].tolist(),
                                                                                  levels[:60].tolist()]


BAD = {
    ("chomp", (("rows", 4), ("cols", 5))): {
        "": "the poisoned square must remain", "0 0": "the poisoned square must remain",
        "3 4": "row lengths must be non-increasing", "3 -1": "row lengths must be non-increasing",
        "6": "outside the table", "1 1 1 1 1": "outside the table", "2 x": "expected whole numbers",
        "2.0": "expected whole numbers",
    },
    ("nim", (("heaps", 3), ("max_heap", 6))): {
        "1 -2": "heap sizes cannot be negative", "7": "outside the table", "1 1 1 1": "outside the table",
        "a": "expected whole numbers",
    },
    ("wythoff", (("max", 40),)): {
        "3": "expected two heap sizes", "1 2 3": "expected two heap sizes", "41 0": "outside the table",
        "-1 3": "outside the table", "3 b": "expected whole numbers",
    },
    ("fibonacci-nim", (("max", 40),)): {
        "": "expected 'n k' or a lone heap size 'n'", "1 2 3": "expected 'n k' or a lone heap size 'n'",
        "5 -1": "numbers cannot be negative", "41": "outside the table",
    },
    ("tanhinmin", (("max_card", 3), ("max_hand", 3))): {
        "1 2 / 3": "expected two '/' between mover's hand, opponent's hand and field",
        "4 / 1 / 0": "cards are 1..3", "1 1 1 1 / 2 / 0": "a hand holds at most 3 cards here",
        "1 / 2 / 4": "the field is one card 1..3, or 0 when empty", "1 / 2 / 1 2": "the field is one card 1..3",
        "1 / 2 / x": ("x", "expected whole numbers"),  # the error quotes the part it could not read
    },
}


@pytest.mark.parametrize("name, params", list(BAD), ids=lambda v: v if isinstance(v, str) else "")
def test_bad_positions_are_refused_alike_by_each_reading(name, params):
    game, _ = load_game(name, dict(params))
    good = game.format_positions(np.array([game.key_space - 1])).to_strings()  # a batch refused for its second
    for text, why in BAD[(name, params)].items():
        said = []
        for read in (game.parse, game.locate, lambda t: game.parse_many(Texts.from_strings(good + [t]))):
            with pytest.raises(PositionError) as e:
                read(text)
            said.append(str(e.value))
        assert len(set(said)) == 1, said
        quoted, why = why if isinstance(why, tuple) else (text, why)
        assert f"bad position {quoted!r}: {why}" in said[0]


def test_numbers_are_read_as_int_reads_them_whatever_their_spelling():
    game, _ = load_game("subtraction", {"set": "1", "max": 100_000})
    for text in ("7", "07", "+7", "0007", "1_0", "\u0663", "9999", "10000", "99999", " 12 "):
        assert game.parse(text) == int(text), text
    for text in ("-7", "100001", "7.0", "seven", "1__0"):
        with pytest.raises(PositionError):
            game.parse(text)


def variants(text: str, rng: random.Random) -> list[str]:
    """The text and near misses of it: spaces doubled or around it, a leading zero, a comma, an empty row or
    heap added, the numbers in another order."""
    numbers = text.split()
    shuffled = numbers[:]
    rng.shuffle(shuffled)
    return [text, text.replace(" ", "  ", 1), f" {text}", f"{text} ", f"0{text}", text.replace(" ", ",", 1),
            f"{text} 0", f"0 {text}", " ".join(shuffled), " ".join(reversed(numbers)), "", " "]


@pytest.mark.parametrize("name, params", SMALL + BIG, ids=lambda v: v if isinstance(v, str) else "")
def test_texts_said_to_spell_their_positions_do_so_byte_for_byte(name, params):
    """``spelt_alike`` is a promise that ``lookup_many`` keeps the texts as the positions: wherever it says
    so of a text the game reads, the game's own spelling of what it read is that text. Nim, Chomp, Wythoff
    and the one-heap games make it of their own spelling (the others never do)."""
    game, _ = load_game(name, params)
    keys = keys_of(game, False)[:300]
    texts = game.format_positions(keys).to_strings()
    claims = name in ("chomp", "nim", "wythoff", "subtraction", "octal")
    assert game.spelt_alike(Texts.from_strings(texts)) is claims
    rng = random.Random(7)
    said = 0
    for text in texts:
        for variant in variants(text, rng):
            try:  # what the compiled read tells in its pass is what spelt_alike says
                assert game.locate_spelt(Texts.from_strings([variant]))[2] is game.spelt_alike(
                    Texts.from_strings([variant])), variant
            except PositionError:
                pass
            if not game.spelt_alike(Texts.from_strings([variant])):
                continue
            try:
                key = game.parse(variant)
            except PositionError:
                continue
            assert game.format_positions(np.array([key])).to_strings() == [variant]
            said += 1
    assert said >= (len(texts) if claims else 0)


def test_a_large_batch_read_in_parts_on_threads_is_read_as_one(monkeypatch):
    """A batch of many texts is read in parts, one a core, on threads (``notation.on_threads``): the keys,
    levels and the texts' plainness are those of one pass over the whole batch, wherever a part ends."""
    from tablebase import jit, threads
    from tablebase.games import notation

    jit.compile_all()
    for name, params in (("chomp", {"rows": 13, "cols": 13}), ("nim", {"heaps": 4, "max_heap": 1000})):
        game, _ = load_game(name, params)
        keys = keys_of(game, False)
        texts = game.format_positions(keys).to_strings()
        respelt = [t.replace(" ", ",") for t in texts]
        whole = [a.tolist() for a in game.locate_many(Texts.from_strings(respelt))]
        monkeypatch.setattr(threads, "THREAD_SHARE", 100)
        monkeypatch.setattr(threads, "THREADS", 7)
        assert len(notation.on_threads(lambda offsets, data: len(offsets) - 1, Texts.from_strings(texts))) == 7
        assert [a.tolist() for a in game.locate_many(Texts.from_strings(respelt))] == whole
        assert whole[0] == keys.tolist()
        assert game.spelt_alike(Texts.from_strings(texts))
        assert not game.spelt_alike(Texts.from_strings(texts[:-1] + respelt[-1:]))  # in the last part only
        assert game.locate_spelt(Texts.from_strings(texts))[2]
        assert not game.locate_spelt(Texts.from_strings(texts[:-1] + respelt[-1:]))[2]
        monkeypatch.undo()
