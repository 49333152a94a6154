"""A misère quotient as the ``tablebase misere`` command shows it: JSON, or text for a reader.

Elements are named e0, e1, ... (e0 the identity, the class of the empty sum), each with a shortest
sum of heaps in its class; the text gives the order, the P-portion, each heap's element, and the
multiplication table when the quotient has at most ``SMALL`` elements (JSON always has it).
"""

from __future__ import annotations

import re
from typing import Any

from tablebase.errors import UsageError
from tablebase.misere.quotient import MisereQuotient

SMALL = 16


def parse_sum(text: str) -> tuple[int, ...]:
    """A sum of heaps written ``3 5 7`` or ``3+5+7``; ``0`` or nothing is the empty sum."""
    words = [w for w in re.split(r"[\s+,]+", text.strip()) if w]
    if not all(w.isdigit() for w in words):
        raise UsageError(f"sum {text!r}: expected heap sizes such as '3 5 7' or '3+5+7'")
    return tuple(int(w) for w in words if int(w))


def as_dict(q: MisereQuotient, genera: list[dict[str, Any]] | None = None,
            position: tuple[int, ...] | None = None) -> dict[str, Any]:
    """The quotient's figures as plain data (what ``--json`` prints)."""
    out: dict[str, Any] = {
        "code": q.code,
        "heaps": q.heaps,
        "order": q.order,
        "p_portion_size": len(q.p_portion),
        "p_portion": sorted(q.p_portion),
        "elements": [q.word(x) for x in range(q.order)],
        "heap_element": list(q.heap_element),
        "changed_at": list(q.changed_at),
        "stable_from": q.stable_from,
        "table": [list(row) for row in q.mul],
    }
    if genera is not None:
        out["genus"] = [g["genus"] for g in genera]
    if position is not None:
        out["sum"] = answer(q, position)
    return out


def answer(q: MisereQuotient, position: tuple[int, ...]) -> dict[str, Any]:
    """A sum's element, misère outcome and a winning move (the heap moved and the heaps it leaves)."""
    move = q.winning_move(position)
    return {
        "position": list(position),
        "element": q.element(position),
        "outcome": q.outcome(position),
        "move": None if move is None else {"heap": position[move[0]], "leaves": list(move[1])},
    }


def format_report(data: dict[str, Any]) -> str:
    """The text of ``as_dict``'s figures."""
    lines = [f"octal {data['code']}, heaps 0..{data['heaps']}: misère quotient of order {data['order']}, "
             f"P-portion of {data['p_portion_size']} elements"]
    lines.append(f"stable from heap {data['stable_from']} through {data['heaps']} (observed: the quotient last grew "
                 f"at heap {data['stable_from']}; this is not a proof that it stays so)")
    lines.append("elements, each with a shortest sum of heaps in its class:")
    lines.append("  " + "  ".join(f"e{x}={w}" for x, w in enumerate(data["elements"])))
    lines.append("P-portion: " + " ".join(f"e{x}" for x in data["p_portion"]))
    genus = data.get("genus")
    lines.append("heap  element" + ("  genus" if genus else ""))
    for n, x in enumerate(data["heap_element"]):
        lines.append((f"{n:>4}  {'e' + str(x):<7}" + (f"  {genus[n]}" if genus else "")).rstrip())
    if data["order"] <= SMALL:
        width = len(f"e{data['order'] - 1}") + 1
        lines.append("multiplication table:")
        lines.append(" " * width + "".join(f"{'e' + str(x):>{width}}" for x in range(data["order"])))
        for x, row in enumerate(data["table"]):
            lines.append(f"{'e' + str(x):>{width}}" + "".join(f"{'e' + str(y):>{width}}" for y in row))
    else:
        lines.append(f"multiplication table: {data['order']} x {data['order']} (in --json)")
    if "sum" in data:
        s = data["sum"]
        said = " + ".join(str(h) for h in s["position"]) or "0"
        move = s["move"]
        how = "" if move is None else (f"; a winning move: heap {move['heap']} to "
                                       f"{' + '.join(str(h) for h in move['leaves']) or 'nothing'}")
        lines.append(f"{said}: element e{s['element']}, misère outcome {s['outcome']}{how}")
    return "\n".join(lines)
