"""Two-player Tanhinmin: Daifugo cut down to single cards and a pass.

Each player holds a multiset of card strengths 1..K. The player to move
either plays one card stronger than the field card (any card on an empty
field), which becomes the field card, or passes; a pass clears the field and
the opponent leads. The first player to empty their hand wins. A position is
``mover's hand / opponent's hand / field`` (docs/tanhinmin.md; ``Tanhinmin``).
"""

from __future__ import annotations

from math import comb

from tablebase.errors import UsageError
from tablebase.games import young
from tablebase.games.base import Option, Texts
from tablebase.games.capabilities import CompiledMoves
from tablebase.games.drawing import Picture
from tablebase.games.keyed import KeyedScoredGame
from tablebase.games.notation import format_rows
from tablebase.games.plain import Outcome
from tablebase.games.shapes import BLUE, GREY, LIGHT, PAPER, RED
from tablebase.jit import njit
from tablebase.lazy import np

PASS = 0


@njit(cache=True)
def _moves(key, args, out_keys, out_moves):
    hands, fields, sizes, remove = args
    field = key % fields
    mover = key // fields // hands
    other = key // fields % hands
    if sizes[mover] == 0 or sizes[other] == 0:
        return 0  # someone has gone out: the game is over
    out_keys[0] = (other * hands + mover) * fields  # the field clears and the opponent leads
    out_moves[0] = PASS
    n = 1
    for card in range(field + 1, fields):
        left = remove[mover, card]
        if left >= 0:
            out_keys[n] = (other * hands + left) * fields + card
            out_moves[n] = card
            n += 1
    return n


@njit(cache=True)
def _hand_rank(cards_down, size, offsets, binom):
    """Rank of a hand given as its cards in decreasing order (the first ``size`` entries)."""
    return offsets[size] + young.rank(cards_down[:size] - 1, binom)


@njit(cache=True)
def _removal_table(cards_down, sizes, offsets, binom, top):
    """remove[h, c]: the rank of hand h less one card c, or -1 if h holds no c."""
    count = sizes.shape[0]
    remove = np.full((count, top + 1), -1, dtype=np.int64)
    work = np.empty(cards_down.shape[1], dtype=np.int64)
    for h in range(count):
        s = sizes[h]
        for i in range(s):
            c = cards_down[h, i]
            if remove[h, c] >= 0:
                continue
            m = 0
            for j in range(s):
                if j != i:
                    work[m] = cards_down[h, j]
                    m += 1
            remove[h, c] = _hand_rank(work, s - 1, offsets, binom)
    return remove


@njit(cache=True)
def _copy_hand(data, p, hand_offsets, hand_data, h):
    """Write hand h's text (or '-' for an empty hand) and ' / ' at p; return the new end."""
    a, b = hand_offsets[h], hand_offsets[h + 1]
    if a == b:
        data[p] = 45  # '-'
        p += 1
    for i in range(a, b):
        data[p] = hand_data[i]
        p += 1
    data[p], data[p + 1], data[p + 2] = 32, 47, 32  # ' / '
    return p + 3


@njit(cache=True)
def _join_positions(keys, hands, fields, hand_offsets, hand_data, field_offsets, field_data):
    """'mover / opponent / field' for each key, from the texts of every hand and field card."""
    n = keys.shape[0]
    offsets = np.zeros(n + 1, dtype=np.int64)
    for t in range(n):
        mover, other, f = keys[t] // fields // hands, keys[t] // fields % hands, keys[t] % fields
        length = 6 + field_offsets[f + 1] - field_offsets[f]
        length += max(hand_offsets[mover + 1] - hand_offsets[mover], 1)
        length += max(hand_offsets[other + 1] - hand_offsets[other], 1)
        offsets[t + 1] = offsets[t] + length
    data = np.empty(offsets[n], dtype=np.uint8)
    for t in range(n):
        mover, other, f = keys[t] // fields // hands, keys[t] // fields % hands, keys[t] % fields
        p = _copy_hand(data, offsets[t], hand_offsets, hand_data, mover)
        p = _copy_hand(data, p, hand_offsets, hand_data, other)
        for i in range(field_offsets[f], field_offsets[f + 1]):
            data[p] = field_data[i]
            p += 1
    return offsets, data


class Tanhinmin(KeyedScoredGame):
    """Two-player Tanhinmin on dense keys (docs/tanhinmin.md gives its rules, notation and finished positions).

    The level is the number of cards in both hands: a play goes one level down, a pass stays in the level,
    so levels are loopy (two passes in a row come back to the same position) and are solved whole. A hand's
    rank orders hands by size, then within a size by the Young-diagram rank of its cards (see ``young``);
    the key of a position is ``(rank(mover) * hands + rank(opponent)) * (K + 1) + field``. Moves are coded
    ``0`` for the pass and ``c`` for playing a card of strength c.
    """

    name = "tanhinmin"
    scores = True
    summary = "two-player Tanhinmin: play a stronger single card or pass; first to empty their hand wins"
    notation = (
        "'mover's hand / opponent's hand / field', e.g. '1 1 3 4 / 1 2 3 5 / 0' "
        "(cards 1..max-card, field 0 when empty; an empty hand is '-' or nothing)"
    )
    move_notation = "'play c' puts a card of strength c on the field; 'pass' clears it for the opponent"
    options = (
        Option("max-card", int, "strongest card (cards are 1..max-card)"),
        Option("max-hand", int, "most cards in one hand"),
    )
    #: The move code of a pass (the solver counts each player's passes).
    pass_move = PASS

    def __init__(self, **params):
        super().__init__(**params)
        self.top = self.int_param("max_card", 1, 60)
        self.most = self.int_param("max_hand", 0, 60)
        self.fields = self.top + 1
        # Hands of s cards are Young diagrams in an s x (K-1) box (card - 1 per row).
        per_size = [comb(s + self.top - 1, s) for s in range(self.most + 1)]
        self.hands = sum(per_size)
        self.key_space = self.hands * self.hands * self.fields
        if self.key_space > 2**40:
            raise UsageError(f"tanhinmin: {self.bounds} make too many positions")
        self.per_size = np.array(per_size, dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self.per_size)]).astype(np.int64)
        self.max_moves = self.fields
        self.compiled_moves = CompiledMoves(_moves, self._kernel_args)
        self.binom = young.binomials(self.most + self.top)
        self._binom, self._firsts = self.binom.tolist(), self.offsets.tolist()  # for one position in Python
        self.cards_down = np.zeros((self.hands, max(self.most, 1)), dtype=np.int64)
        self.sizes = np.zeros(self.hands, dtype=np.int64)
        for s in range(1, self.most + 1):
            rows = young.unrank_many(np.arange(self.per_size[s], dtype=np.int64), s, self.top - 1, self.binom)
            self.cards_down[self.offsets[s] : self.offsets[s + 1], :s] = rows + 1
            self.sizes[self.offsets[s] : self.offsets[s + 1]] = s
        self.remove = _removal_table(self.cards_down, self.sizes, self.offsets, self.binom, self.top)
        # Each hand's cards in increasing order, left-aligned, for printing.
        width = self.cards_down.shape[1]
        shift = (np.arange(width) + (width - self.sizes)[:, None]) % width
        self.cards_up = np.take_along_axis(np.sort(self.cards_down, axis=1), shift, axis=1)
        self._hand_texts = format_rows(self.cards_up, self.sizes)
        self._field_texts = Texts.from_strings([str(f) for f in range(self.fields)])

    def draw(self, position: str) -> Picture:
        """The opponent's hand at the top, the field in the middle, the mover's hand at the bottom."""
        parts = (position.split("/") + ["", "", "0"])[:3]
        mover, opponent = ([int(t) for t in part.replace("-", " ").split()] for part in parts[:2])
        field = int(parts[2].strip() or 0)
        p = Picture(max(len(mover), len(opponent), 3) * 1.0 + 3.2, 5.4, f"Tanhinmin {position}")

        def hand(cards: list[int], y: float, label: str, colour: str) -> None:
            p.text(0.2, y + 0.85, label, 0.38, GREY, "start")
            for i, c in enumerate(cards):
                p.rect(2.8 + i, y, 0.85, 1.2, PAPER, colour)
                p.text(2.8 + i + 0.42, y + 0.8, str(c), 0.5, colour)

        hand(opponent, 0.2, "opponent", RED)
        p.text(0.2, 2.85, "field", 0.38, GREY, "start")
        p.rect(2.8, 2.1, 0.85, 1.2, LIGHT if field else "none", GREY)
        p.text(3.22, 2.9, str(field) if field else "–", 0.5)
        hand(mover, 4.0, "to move", BLUE)
        return p

    @property
    def table(self) -> str:
        return f"tanhinmin_k{self.top}_h{self.most}"

    @property
    def bounds(self) -> str:
        return f"hands of at most {self.most} cards of strength 1..{self.top}"

    # -- levels ---------------------------------------------------------------------
    @property
    def max_level(self) -> int:
        return 2 * self.most

    def _segments(self, level: int) -> list[tuple[int, int]]:
        """(mover's cards, opponent's cards) of the level, in key order."""
        return [(a, level - a) for a in range(max(0, level - self.most), min(self.most, level) + 1)]

    def level_size(self, level: int) -> int:
        return sum(int(self.per_size[a] * self.per_size[b]) * self.fields for a, b in self._segments(level))

    def level_keys(self, level: int, start: int, stop: int) -> np.ndarray:
        out = np.empty(max(stop - start, 0), dtype=np.int64)
        done, base = 0, 0
        for a, b in self._segments(level):
            count = int(self.per_size[a] * self.per_size[b]) * self.fields
            lo, hi = max(start, base), min(stop, base + count)
            if lo < hi:
                i, rest = np.divmod(np.arange(lo - base, hi - base, dtype=np.int64), self.per_size[b] * self.fields)
                j, field = np.divmod(rest, self.fields)
                both_hands = (self.offsets[a] + i) * self.hands + self.offsets[b] + j
                out[done : done + hi - lo] = both_hands * self.fields + field
                done += hi - lo
            base += count
        return out

    def child_levels(self, level: int) -> range:
        # A play goes one level down; a pass stays in the level (the solver's business).
        return range(level - 1, level) if level else range(0)

    # -- positions and moves ------------------------------------------------------------
    def _kernel_args(self) -> tuple:
        return (self.hands, self.fields, self.sizes, self.remove)

    def split(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Mover's hand rank, opponent's hand rank and field card of each key."""
        keys = np.asarray(keys, dtype=np.int64)
        rest, field = np.divmod(keys, self.fields)
        mover, other = np.divmod(rest, self.hands)
        return mover, other, field

    def results(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For positions without moves (a hand is empty): the mover's outcome, and the cards the loser keeps."""
        mover, other, _ = self.split(keys)
        won = self.sizes[other] > 0  # only the mover's hand is empty
        outcome = np.where(won, Outcome.WIN, Outcome.LOSS).astype(np.int8)
        return outcome, np.where(won, self.sizes[other], self.sizes[mover]).astype(np.int64)

    def format_positions(self, keys: np.ndarray) -> Texts:
        hand, field = self._hand_texts, self._field_texts
        offsets, data = _join_positions(
            np.asarray(keys, dtype=np.int64), self.hands, self.fields,
            hand.offsets, hand.data, field.offsets, field.data,
        )
        return Texts(offsets, data)

    def _parse_hand(self, text: str, part: str) -> list[int]:
        part = part.strip()
        cards = [] if part in ("", "-") else self.parse_ints(part)
        if any(not 1 <= c <= self.top for c in cards):
            raise self.position_error(text, f"cards are 1..{self.top}")
        if len(cards) > self.most:
            raise self.position_error(text, f"a hand holds at most {self.most} cards here")
        return sorted(cards, reverse=True)

    def parse(self, text: str) -> int:
        return self.locate(text)[0]

    def locate(self, text: str) -> tuple[int, int]:
        """The key, and the level: the cards in both hands."""
        parts = text.split("/")
        if len(parts) != 3:
            raise self.position_error(text, "expected two '/' between mover's hand, opponent's hand and field")
        mover, other = (self._parse_hand(text, p) for p in parts[:2])
        field_text = parts[2].strip()
        field = 0 if field_text in ("", "-") else self.parse_ints(field_text)
        if isinstance(field, list):
            if len(field) != 1 or not 0 <= field[0] <= self.top:
                raise self.position_error(text, f"the field is one card 1..{self.top}, or 0 when empty")
            field = field[0]
        return (self._rank(mover) * self.hands + self._rank(other)) * self.fields + field, len(mover) + len(other)

    def _rank(self, hand: list[int]) -> int:
        """A hand's rank (its cards in decreasing order), as ``_hand_rank`` gives it, in plain Python: the
        hands of its size before it, then its cards less one ranked as a Young diagram (``young``)."""
        size, binom = len(hand), self._binom
        return self._firsts[size] + sum(binom[c + size - 2 - j][size - j] for j, c in enumerate(hand))

    def level_of(self, key: int) -> int:
        return int(self.levels_of(np.array([key]))[0])

    def levels_of(self, keys: np.ndarray) -> np.ndarray:
        mover, other, _ = self.split(keys)
        return self.sizes[mover] + self.sizes[other]

    def move_name(self, move: int) -> str:
        return "pass" if move == PASS else f"play {move}"
