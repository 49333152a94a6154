"""Reading CGSuite's plain-text notation, and sums of games written in it.

Grammar (whitespace allowed between tokens, not inside a literal)::

    expr    := term (('+' | '-') term)*
    term    := '-' term | '+' term | primary
    primary := '(' expr ')' | braces | '+-' pm_arg | literal
    braces  := '{' lists (slashes lists)* '}'       e.g. {2|1/2||0}
    lists   := [expr (',' expr)*]
    pm_arg  := '{' expr (',' expr)* '}' | '{' game '}' | primary
    literal := [number] [ups] [star]  |  [number] ('Tiny' | 'Miny') '(' expr ')'
    number  := ['-'] digits ['/' digits]   (a '-' glued to a digit belongs to it)
    ups     := '^'.. | 'v'.. | '^' digits | 'v' digits
    star    := '*' [digits]

A run of n slashes separates a form's Left and Right options at depth n:
the longest run splits the braces, and each side is a form if it still
contains slashes, else a comma-separated list. ``+-G`` is ``{G|-G}`` and
``+-{a,b}`` is ``{a,b|-a,-b}``; ``2Tiny(x)`` is ``2 + {0||0|-x}``.
"""

from __future__ import annotations

from fractions import Fraction

from . import _table as T
from ._arith import add, neg
from ._build import construct


class CGTSyntaxError(ValueError):
    """A malformed game or expression; the message is one line and says where."""


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    # -- helpers -------------------------------------------------------------
    def fail(self, what: str, pos: int | None = None) -> CGTSyntaxError:
        at = self.pos if pos is None else pos
        text = " ".join(self.text.split())
        return CGTSyntaxError(f"at column {at + 1}: {what} in {text}")

    def peek(self) -> str:
        """The next character, or NUL at the end (so ``in`` tests stay false)."""
        return self.text[self.pos] if self.pos < len(self.text) else "\0"

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def next_is(self, s: str) -> bool:
        self.skip_space()
        return self.text.startswith(s, self.pos)

    def expect(self, s: str) -> None:
        if not self.next_is(s):
            raise self.fail(f"expected '{s}'")
        self.pos += len(s)

    def digits(self) -> str:
        start = self.pos
        while self.peek().isdigit():
            self.pos += 1
        return self.text[start:self.pos]

    # -- grammar -------------------------------------------------------------
    def parse_all(self) -> int:
        self.skip_space()
        if self.peek() == "\0":
            raise self.fail("expected a game")
        g = self.expr()
        self.skip_space()
        if self.pos < len(self.text):
            raise self.fail(f"unexpected '{self.peek()}'")
        return g

    def expr(self) -> int:
        g = self.term()
        while True:
            self.skip_space()
            c = self.peek()
            if c == "+":
                self.pos += 1
                g = add(g, self.term())
            elif c == "-":
                self.pos += 1
                g = add(g, neg(self.term()))
            else:
                return g

    def term(self) -> int:
        self.skip_space()
        if self.text.startswith("+-", self.pos):
            self.pos += 2
            return self.plus_minus()
        c = self.peek()
        if c == "-" and not self.text[self.pos + 1:self.pos + 2].isdigit():
            self.pos += 1
            return neg(self.term())
        if c == "+":
            self.pos += 1
            return self.term()
        return self.primary()

    def primary(self) -> int:
        self.skip_space()
        c = self.peek()
        if c == "(":
            self.pos += 1
            g = self.expr()
            self.expect(")")
            return g
        if c == "{":
            return self.braces()
        if c == "-" or c.isdigit() or c in "^v*" or self.text.startswith(("Tiny", "Miny"), self.pos):
            return self.literal()
        if c == "\0":
            raise self.fail("expected a game but the text ended")
        raise self.fail(f"unexpected '{c}'")

    def plus_minus(self) -> int:
        self.skip_space()
        if self.peek() == "{":
            start = self.pos
            tree = self.brace_contents()
            if len(tree) == 1:  # +-{a,b,...}
                lefts = tree[0]
                if not lefts:
                    raise self.fail("expected a game", start + 1)
                return construct(lefts, [neg(x) for x in lefts])
            g = self.build(tree, start)
        else:
            g = self.term()
        return construct([g], [neg(g)])

    def braces(self) -> int:
        start = self.pos
        tree = self.brace_contents()
        if len(tree) == 1:
            raise self.fail("expected '|' in braces", self.pos - 1)
        return self.build(tree, start)

    def brace_contents(self) -> list:
        """Parse ``{...}`` into [list, slashes, list, slashes, ...]."""
        self.expect("{")
        items: list = []
        while True:
            opts: list[int] = []
            self.skip_space()
            if self.peek() not in "|}":
                opts.append(self.expr())
                while self.next_is(","):
                    self.pos += 1
                    opts.append(self.expr())
            items.append(opts)
            self.skip_space()
            c = self.peek()
            if c == "}":
                self.pos += 1
                return items
            if c == "|":
                n = 0
                while self.peek() == "|":
                    n += 1
                    self.pos += 1
                items.append(n)
            elif c == "\0":
                raise self.fail("expected '|' or '}' but the text ended")
            else:
                raise self.fail(f"expected ',', '|' or '}}' but found '{c}'")

    def build(self, items: list, at: int) -> int:
        """Turn [list, slashes, list, ...] into a game, splitting at the longest run."""
        runs = items[1::2]
        longest = max(runs)
        if runs.count(longest) > 1:
            raise self.fail(f"ambiguous: two runs of {longest} slashes", at)
        i = 2 * runs.index(longest) + 1
        return construct(self.side(items[:i], at), self.side(items[i + 1:], at))

    def side(self, items: list, at: int) -> list[int]:
        return items[0] if len(items) == 1 else [self.build(items, at)]

    def literal(self) -> int:
        start = self.pos
        g = T.ZERO
        seen = False
        if self.peek() == "-" or self.peek().isdigit():
            sign = -1 if self.peek() == "-" else 1
            if sign < 0:
                self.pos += 1
            num = int(self.digits())
            value = Fraction(num)
            if self.peek() == "/" and self.text[self.pos + 1:self.pos + 2].isdigit():
                self.pos += 1
                den_at = self.pos
                den = int(self.digits())
                if den == 0 or den & (den - 1):
                    raise self.fail("the denominator must be a power of 2", den_at)
                value = Fraction(num, den)
            g = T.number_id(sign * value)
            seen = True
        if self.text.startswith(("Tiny", "Miny"), self.pos):
            kind = self.text[self.pos:self.pos + 4]
            self.pos += 4
            self.expect("(")
            x = self.expr()
            self.expect(")")
            tiny = construct([T.ZERO], [construct([T.ZERO], [neg(x)])])
            return add(g, tiny if kind == "Tiny" else neg(tiny))
        c = self.peek()
        if c in "^v":
            n = 0
            while self.peek() == c:
                n += 1
                self.pos += 1
            count = self.digits()
            if count:
                if n != 1:
                    raise self.fail("write ^3 or ^^^, not both", start)
                n = int(count)
            g = add(g, T.nus_id(0, n if c == "^" else -n, 0))
            seen = True
        if self.peek() == "*":
            self.pos += 1
            count = self.digits()
            g = add(g, T.nus_id(0, 0, int(count) if count else 1))
            seen = True
        if not seen:
            raise self.fail("expected a game", start)
        return g


def parse_id(text: str) -> int:
    """Id of the game written in ``text`` (CGSuite notation, sums allowed)."""
    return _Parser(text).parse_all()
