"""Reading CGSuite's expressions: literals, braces, sums, switches, ordinal sums, methods, comparisons.

The grammar and its precedence, which is CGSuite's but for a few stated
differences, are ``_Parser``'s; ``parse_value`` and ``parse_id`` read a text.
"""

from __future__ import annotations

import re
from fractions import Fraction

from . import _table as T
from ._arith import add, neg
from ._build import construct
from ._compare import RELATIONS, holds
from ._errors import CGTError, CGTSyntaxError
from ._heat import ordinal_sum
from ._methods import METHODS, GameSet, Value, call, kind_of, method_named, truth, usage
from ._uptimal import up_power, up_power_to

__all__ = ["CGTSyntaxError", "parse_id", "parse_value"]

_RELATIONS_LONGEST_FIRST = sorted(RELATIONS, key=len, reverse=True)
# ``^<3>`` is an uptimal; ``^<1/2`` or ``^<>*`` compares ``^`` with what follows.
_UPTIMAL_POWER = re.compile(r"<\d+>")


class _Parser:
    """A recursive-descent reader of one CGSuite expression.

    Grammar, loosest first (whitespace between tokens, never inside a literal)::

        compare  := expr [relation expr]     G < H: true or false, one relation, not chained
        relation := '==' | '!=' | '<=' | '>=' | '<' | '>' | '<>' | '||' | '<|' | '|>'
        expr     := sum (Name sum)*          G Heat 2: a one-argument method written infix
        sum      := ordinal (('+' | '-' | '+-') ordinal)*        a +- b is a + (+-b)
        ordinal  := unary (':' unary)*       the ordinal sum G:H, left to right
        unary    := ('+-' | '-' | '+') unary | postfix
        postfix  := primary ('.' Name ['(' [expr (',' expr)*] ')'])*
        primary  := '(' compare ')' | '{' lists (slashes lists)* '}' | '{' [expr (',' expr)*] '}' | literal
        literal  := [number] [ups] [star]  |  [number] ('Tiny' | 'Miny') '(' expr ')'
        number   := ['-'] digits ['/' digits]     (a '-' glued to a digit belongs to the number)
        ups      := '^'.. | 'v'.. | ('^'|'v') digits | ('^'|'v') '<' digits '>' | ('^'|'v') '[' digits ']'
                                          (a '<' not followed by digits and '>' is a comparison: ^<1/2)
        star     := '*' [digits]

    This is CGSuite's precedence: comparisons bind loosest (in CGSuite
    ``a < b < c`` is ``a < (b < c)``, which fails on comparing a truth value;
    here a second relation is a syntax error saying so); ``+-`` binds like
    ``+`` between operands (``3+-1`` is ``{4|2}``) and tighter than ``:``
    before one (``+-1:1`` is ``(+-1):1``); methods bind tightest. Options in
    braces and a method's arguments are games and take no comparison, so
    ``||`` between braces is always two slashes. A run of n slashes separates
    Left and Right options at depth n: the longest run splits the braces, each
    side being a form if it still has slashes, else a list. Braces without a slash are a
    set of games, which only ``+-`` takes: ``+-{a,b}`` is ``{a,b|-a,-b}``.
    ``^<n>`` and ``^[n]`` are the uptimals CGSuite prints (``^.Pow(n)`` and
    ``^.PowTo(n)``, which CGSuite itself reads); ``2Tiny(x)`` is ``2 + {0||0|-x}``.
    Unlike CGSuite, a number ``a/b`` is one literal, so ``1/2.Heat(1)`` heats 1/2.
    """

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

    def name(self) -> str:
        start = self.pos
        while self.peek().isalnum() or self.peek() == "_":
            self.pos += 1
        return self.text[start:self.pos]

    def game(self, v: Value, at: int, what: str) -> int:
        if not isinstance(v, int):
            raise self.fail(f"{what} needs a game, not a {kind_of(v)}", at)
        return v

    # -- grammar -------------------------------------------------------------
    def parse_all(self) -> Value:
        self.skip_space()
        if self.peek() == "\0":
            raise self.fail("expected a game")
        v = self.compare()
        self.skip_space()
        if self.pos < len(self.text):
            raise self.fail(f"unexpected '{self.peek()}'")
        return v

    def compare(self) -> Value:
        """``G op H`` as a truth value, or the one expression when no relation follows."""
        self.skip_space()
        at = self.pos
        v = self.expr()
        op = self.relation()
        if op is None:
            return v
        self.skip_space()
        right_at = self.pos
        w = self.expr()
        self.skip_space()
        second_at = self.pos
        if self.relation() is not None:
            raise self.fail("comparisons do not chain: compare two games at a time", second_at)
        return truth(holds(op, self.game(v, at, op), self.game(w, right_at, op)))

    def relation(self) -> str | None:
        """The relational operator at this point, consumed (the longest that fits), or None."""
        self.skip_space()
        for op in _RELATIONS_LONGEST_FIRST:
            if self.text.startswith(op, self.pos):
                self.pos += len(op)
                return op
        return None

    def expr(self) -> Value:
        v = self.sum()
        while True:
            self.skip_space()
            at = self.pos
            if not self.peek().isalpha():
                return v
            name = self.name()
            if len(METHODS.get(name, ((),))[0]) != 1:
                raise self.fail(f"unexpected '{name}'{self.hint(name)}", at)
            v = self.method(name, v, [self.sum()], at)

    def sum(self) -> Value:
        at = self.pos
        v = self.ordinal()
        while True:
            self.skip_space()
            if self.text.startswith("+-", self.pos):
                self.pos += 2
                v = add(self.game(v, at, "+-"), self.switch(self.ordinal(), at))
            elif self.peek() in "+-":
                sign = self.peek()
                self.pos += 1
                w = self.game(self.ordinal(), at, sign)
                v = add(self.game(v, at, sign), w if sign == "+" else neg(w))
            else:
                return v

    def ordinal(self) -> Value:
        self.skip_space()
        at = self.pos
        v = self.unary()
        while self.next_is(":"):
            self.pos += 1
            h = self.game(self.unary(), at, ":")
            v = ordinal_sum(self.game(v, at, ":"), h)
        return v

    def unary(self) -> Value:
        self.skip_space()
        at = self.pos
        if self.text.startswith("+-", self.pos):
            self.pos += 2
            return self.switch(self.unary(), at)
        c = self.peek()
        if c == "-" and not self.text[self.pos + 1:self.pos + 2].isdigit():
            self.pos += 1
            return neg(self.game(self.unary(), at, "-"))
        if c == "+":
            self.pos += 1
            return self.game(self.unary(), at, "+")
        return self.postfix()

    def switch(self, v: Value, at: int) -> int:
        """``+-G`` = ``{G|-G}``; ``+-{a,b}`` = ``{a,b|-a,-b}``."""
        if isinstance(v, GameSet):
            if not v.ids:
                raise self.fail("expected a game in +-{...}", at)
            return construct(v.ids, [neg(x) for x in v.ids])
        g = self.game(v, at, "+-")
        return construct([g], [neg(g)])

    def postfix(self) -> Value:
        v = self.primary()
        while True:
            self.skip_space()
            if self.peek() != "." or not self.text[self.pos + 1:self.pos + 2].isalpha():
                return v
            at = self.pos
            self.pos += 1
            name = self.name()
            if name not in METHODS:
                meant = method_named(name)
                known = f"did you mean {meant}?" if meant else f"known: {', '.join(sorted(METHODS))}"
                raise self.fail(f"no method '{name}' ({known})", at + 1)
            arguments: list[Value] = []
            if self.next_is("("):
                self.pos += 1
                if not self.next_is(")"):
                    arguments.append(self.expr())
                    while self.next_is(","):
                        self.pos += 1
                        arguments.append(self.expr())
                self.expect(")")
            v = self.method(name, v, arguments, at + 1)

    def method(self, name: str, receiver: Value, arguments: list[Value], at: int) -> Value:
        try:
            return call(name, receiver, arguments)
        except RecursionError:
            raise CGTError(f"{name}: the game is too deep to compute here") from None

    def primary(self) -> Value:
        self.skip_space()
        c = self.peek()
        if c == "(":
            self.pos += 1
            v = self.compare()
            self.expect(")")
            return v
        if c == "{":
            return self.braces()
        if c == "-" or c.isdigit() or c in "^v*" or self.text.startswith(("Tiny", "Miny"), self.pos):
            return self.literal()
        if c == "\0":
            raise self.fail("expected a game but the text ended")
        if c.isalpha():
            at = self.pos
            word = self.name()
            raise self.fail(f"unexpected '{word}'{self.hint(word)}", at)
        raise self.fail(f"unexpected '{c}'")

    @staticmethod
    def hint(word: str) -> str:
        """Where a word is a method's name: how the method is written, after the game it applies to."""
        name = method_named(word)
        return f" ({name} is a method of a game G: {usage(name)})" if name else ""

    def braces(self) -> Value:
        start = self.pos
        items = self.brace_contents()
        if len(items) == 1:  # no slash: a set of games
            return GameSet(tuple(self.game(v, start, "a set") for v in items[0]))
        if any(not isinstance(v, int) for side in items[0::2] for v in side):
            raise self.fail("an option needs to be a game", start)
        return self.build(items, start)

    def brace_contents(self) -> list:
        """Parse ``{...}`` into [list, slashes, list, slashes, ...]."""
        self.expect("{")
        items: list = []
        while True:
            opts: list[Value] = []
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
            value = Fraction(int(self.digits()))
            if self.peek() == "/" and self.text[self.pos + 1:self.pos + 2].isdigit():
                self.pos += 1
                den_at = self.pos
                den = int(self.digits())
                if den == 0 or den & (den - 1):
                    raise self.fail("the denominator must be a power of 2", den_at)
                value /= den
            g = T.number_id(sign * value)
            seen = True
        if self.text.startswith(("Tiny", "Miny"), self.pos):
            kind = self.text[self.pos:self.pos + 4]
            self.pos += 4
            self.expect("(")
            x = self.game(self.expr(), start, kind)
            self.expect(")")
            tiny = construct([T.ZERO], [construct([T.ZERO], [neg(x)])])
            return add(g, tiny if kind == "Tiny" else neg(tiny))
        c = self.peek()
        if c in "^v":
            g = add(g, self.ups(c, start))
            seen = True
        if self.peek() == "*":
            self.pos += 1
            count = self.digits()
            g = add(g, T.nus_id(0, 0, int(count) if count else 1))
            seen = True
        if not seen:
            raise self.fail("expected a game", start)
        return g

    def ups(self, c: str, start: int) -> int:
        """``^``, ``^^``, ``^3``, ``^<3>`` (up-third), ``^[3]`` (^ + ^<2> + ^<3>), or downs."""
        n = 0
        while self.peek() == c:
            n += 1
            self.pos += 1
        sign = 1 if c == "^" else -1
        if self.peek() == "[" or _UPTIMAL_POWER.match(self.text, self.pos):
            close = ">" if self.peek() == "<" else "]"
            bracket = self.pos
            self.pos += 1
            count = self.digits()
            if n != 1 or not count or self.peek() != close or int(count) < 1:
                raise self.fail(f"expected {c}<n> or {c}[n] with n at least 1", bracket)
            self.pos += 1
            g = up_power(int(count)) if close == ">" else up_power_to(int(count))
            return g if sign > 0 else neg(g)
        count = self.digits()
        if count:
            if n != 1:
                raise self.fail("write ^3 or ^^^, not both", start)
            n = int(count)
        return T.nus_id(0, sign * n, 0)


def parse_value(text: str) -> Value:
    """The value of a CGSuite expression: a game id, a set of games, or a printed result."""
    try:
        return _Parser(text).parse_all()
    except RecursionError:
        raise CGTError("the expression is nested too deeply to read") from None


def parse_id(text: str) -> int:
    """Id of the game written in ``text`` (CGSuite notation, sums allowed)."""
    v = parse_value(text)
    if not isinstance(v, int):
        raise CGTError(f"{' '.join(text.split())} is a {kind_of(v)}, not a game")
    return v
