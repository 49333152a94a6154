"""A misère quotient as a table keeps it beside its rows: its bytes, its summary, and the quotient read back.

The file is the JSON of ``report.as_dict`` (the code, the heaps covered, the
multiplication table, the P-portion, each heap's element, each element's
shortest sum, where the quotient grew), with the heaps asked for and, where
the quotient stopped short of them, the one line that says why
(``quotient_bytes``). Its bytes are the same for the same code and heaps, so
that verify compares them whole. ``read_quotient`` reads such bytes from a
folder anyone may have written: every figure is checked before a lookup
indexes a table with it.
"""

from __future__ import annotations

import json
from typing import Any

from tablebase.errors import DamagedTable
from tablebase.games.octal_code import MISERE_MAX_HEAPS, parse_code
from tablebase.misere.quotient import DEFAULT_MAX_ORDER, MisereQuotient, heap_options
from tablebase.misere.report import as_dict

FORMAT = 1
MAX_STORED_ORDER = DEFAULT_MAX_ORDER  # a table keeps no larger quotient (``grown_quotient`` stops before)


def quotient_bytes(q: MisereQuotient, asked: int, refused: str | None) -> bytes:
    """The file's bytes: the quotient's figures, the heaps asked for, why it stops short of them (or null)."""
    data = {"format": FORMAT, **as_dict(q), "asked": asked, "refused": refused}
    return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()


def quotient_summary(q: MisereQuotient, asked: int, refused: str | None) -> dict[str, Any]:
    """What the manifest says of it, beside the file's record: what ``tablebase tables`` and ``stats`` show."""
    return {"asked": asked, "heaps": q.heaps, "order": q.order, "p_portion_size": len(q.p_portion),
            "stable_from": q.stable_from, "refused": refused}


def read_quotient(data: bytes, code: str, where: str) -> tuple[MisereQuotient, dict[str, Any]]:
    """The quotient of a file's bytes, and its summary; ``DamagedTable`` in one line (naming ``where``) if any
    figure is not what ``quotient_bytes`` writes for the code ``code``."""
    try:
        found = json.loads(data)
        q = _quotient(found, parse_code(code).text)
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise DamagedTable(f"{where}: the misère quotient's file is damaged ({str(e).splitlines()[0]})") from None
    asked, refused = found.get("asked"), found.get("refused")
    if not (_whole(asked) and q.heaps <= asked <= MISERE_MAX_HEAPS and (refused is None or isinstance(refused, str))):
        raise DamagedTable(f"{where}: the misère quotient's file is damaged (its heaps asked for)")
    return q, quotient_summary(q, asked, refused)


def _quotient(found: Any, code: str) -> MisereQuotient:
    """The quotient of the file's JSON, each figure checked (ValueError naming the first that is wrong)."""
    if not isinstance(found, dict) or found.get("format") != FORMAT:
        raise ValueError(f"not a quotient of format {FORMAT}")
    if found.get("code") != code:
        raise ValueError(f"it is of the code {found.get('code')!r}, the table's is {code}")
    heaps, table = found["heaps"], found["table"]
    if not (_whole(heaps) and 0 <= heaps <= MISERE_MAX_HEAPS):
        raise ValueError("heaps out of range")
    if not (isinstance(table, list) and 0 < len(table) <= MAX_STORED_ORDER):
        raise ValueError("a multiplication table of no rows, or of too many")
    order = len(table)
    if not all(isinstance(row, list) and len(row) == order and all(_element(x, order) for x in row) for row in table):
        raise ValueError("the multiplication table is not square, or names elements it has not")
    heap_element, p_portion, changed = found["heap_element"], found["p_portion"], found["changed_at"]
    if not (isinstance(heap_element, list) and len(heap_element) == heaps + 1
            and all(_element(x, order) for x in heap_element)):
        raise ValueError("the heaps' elements")
    if not (isinstance(p_portion, list) and all(_element(x, order) for x in p_portion)):
        raise ValueError("the P-portion")
    if not (isinstance(changed, list) and all(_whole(n) and 0 < n <= heaps for n in changed)):
        raise ValueError("the heaps where it grew")
    words = [tuple(int(h) for h in w.split("+")) if w != "0" else () for w in found["elements"]]
    if len(words) != order or not all(0 < h <= heaps for w in words for h in w):
        raise ValueError("the elements' sums")
    rules = parse_code(code)
    options = tuple(tuple(heap_options(rules, n)) for n in range(heaps + 1))
    return MisereQuotient(code=code, heaps=heaps, mul=tuple(tuple(row) for row in table),
                          p_portion=frozenset(p_portion), heap_element=tuple(heap_element), words=tuple(words),
                          changed_at=tuple(changed), options=options)


def _whole(n: object) -> bool:
    return isinstance(n, int) and not isinstance(n, bool)


def _element(x: object, order: int) -> bool:
    return _whole(x) and 0 <= x < order  # type: ignore[operator]
