"""The positions a reader came through on the way to a page, carried in its URL: ``&from=...``, one a position.

A position's page links each move to the position it leads to, that page's
trail being this one's and the position left; a line of best play gives
each of its positions the line before it. The trail is bounded (``MOST``
positions, the latest kept, each at most ``limits.MAX_POSITION``
characters): a URL stays short, and a page shows what came just before.
It is the reader's own text, shown escaped, and only ever a link: a position
that is not the table's is refused by the page it links to.
"""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import quote

from tablebase.http.limits import MAX_POSITION

MOST = 12  # positions of a trail kept: the latest


class Step(NamedTuple):
    """A position of the trail, with the URL of its page (that page's trail being the positions before it)."""

    position: str
    href: str


def trail_of(came: list[str]) -> list[str]:
    """The trail as given, bounded: the latest ``MOST`` positions, none longer than a position may be."""
    return [p for p in came if p and len(p) <= MAX_POSITION][-MOST:]


def query(trail: list[str]) -> str:
    """The trail as the end of a URL's query: ``&from=...`` a position (nothing for none)."""
    return "".join(f"&from={quote(p, safe='')}" for p in trail_of(trail))


def page_of(table: str, position: str, trail: list[str]) -> str:
    """The URL of a position's page reached through ``trail``."""
    return f"/tables/{quote(table, safe='')}/position?position={quote(position, safe='')}{query(trail)}"


def steps(table: str, trail: list[str]) -> list[Step]:
    """Each position of the trail with the URL of its page, in the order they were reached."""
    kept = trail_of(trail)
    return [Step(p, page_of(table, p, kept[:i])) for i, p in enumerate(kept)]
