"""Misère answers of sums of heaps, from the misère quotient an octal table keeps beside its rows.

A table built with ``--misere`` keeps the quotient of its heaps 0..M
(``builders/misere_quotient.py``). A lookup of a sum then gives its misère
outcome and a winning misère move (``misere_outcome``, ``misere_best_move``)
by multiplying its heaps' elements, as ``misere/quotient.py``'s ``outcome``
and ``winning_move`` do, beside the normal-play answer by XOR; each listed
move gets the misère outcome of the sum it leaves (``Rest``). A sum with a
heap beyond M gets no misère outcome, and ``misere_note`` says why; tables
without a quotient give none of these.
"""

from __future__ import annotations

from typing import Any

from tablebase.misere.quotient import MisereQuotient

LOADED = "misere_quotient"  # where a table's quotient is kept once read (``StoredTable.loaded``)
#: what a table with a quotient answers of a sum beyond its rows' figures: texts, or null
ANSWERS = ("misere_outcome", "misere_best_move", "misere_note")


def answers_of(manifest: Any) -> tuple[str, ...]:
    """The misère answers a table gives beside its columns: ``ANSWERS`` where it keeps a quotient, else none."""
    return ANSWERS if manifest.quotient else ()


def quotient_of(table: Any) -> MisereQuotient | None:
    """The table's misère quotient, read once (checked against its record and figure by figure); None where it
    keeps none. ``DamagedTable`` in one line where its file is not what the manifest records."""
    if not table.manifest.quotient:
        return None
    found = table.loaded.get(LOADED)
    if found is None:
        from tablebase.misere.stored import read_quotient
        from tablebase.store.quotient_file import read_quotient_file

        data = read_quotient_file(table.root, table.manifest)
        where = table.root.where(table.name)
        found = table.loaded[LOADED] = read_quotient(data or b"", table.manifest.params["code"], where)[0]
    return found


def covered(q: MisereQuotient, heaps: list[int]) -> bool:
    """Whether every heap of a sum is one the quotient holds."""
    return all(h <= q.heaps for h in heaps)


def misere_answer(q: MisereQuotient, heaps: list[int]) -> dict[str, Any]:
    """A sum's misère outcome and the note, where its heaps lie beyond the quotient's (its best misère move is
    the caller's to name: ``winning_move``)."""
    if not covered(q, heaps):
        return {"misere_outcome": None, "misere_best_move": None,
                "misere_note": f"the misère outcome is unknown beyond heap {q.heaps} (the table's misère quotient "
                               f"covers heaps 0..{q.heaps}; tablebase misere answers larger heaps)"}
    return {"misere_outcome": q.outcome(heaps), "misere_best_move": None, "misere_note": None}


def winning_move(q: MisereQuotient, heaps: list[int]) -> tuple[int, list[int]] | None:
    """A winning misère move of a sum whose heaps the quotient holds: (the place of the heap moved, the heaps it
    leaves, sorted); None where the sum is lost in misère play, or its heaps lie beyond the quotient's."""
    if not covered(q, heaps):
        return None
    found = q.winning_move(heaps)
    return None if found is None else (found[0], sorted(found[1]))


class Rest:
    """The misère outcomes of the sums a sum's moves leave: the element of the sum without each heap is found
    once, and a move's sum is that times the elements of the heaps the move leaves (unknown where a heap of it
    lies beyond the quotient's)."""

    def __init__(self, q: MisereQuotient, heaps: list[int]) -> None:
        self.q = q
        mul = q.mul
        elements = [q.heap_element[h] if h <= q.heaps else None for h in heaps]
        before: list[int | None] = [0]
        after: list[int | None] = [0]
        for x in elements:
            before.append(None if before[-1] is None or x is None else mul[before[-1]][x])
        for x in reversed(elements):
            after.append(None if after[-1] is None or x is None else mul[after[-1]][x])
        n = len(heaps)
        #: the element of the sum without heap i, None where another heap lies beyond the quotient's
        self.rest = [None if before[i] is None or after[n - 1 - i] is None else mul[before[i]][after[n - 1 - i]]
                     for i in range(n)]

    def outcome(self, i: int, left: list[int]) -> str | None:
        """The misère outcome of the sum a move in heap ``i`` leaves (its heaps ``left`` in place of that heap),
        or None where it is not known."""
        x, q = self.rest[i], self.q
        if x is None or any(h > q.heaps for h in left):
            return None
        for h in left:
            x = q.mul[x][q.heap_element[h]]
        return "P" if x in q.p_portion else "N"
