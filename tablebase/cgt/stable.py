"""Process-independent ids and the values-table row of a canonical form.

Process-local ids depend on the order in which forms were met. The stable id
is a 63-bit blake2b hash of the canonical structure instead: a number +
ups + nimber value hashes its closed form, any other form hashes the sorted
stable ids of its Left and Right options. Two processes that meet the same
value independently therefore agree on its stable id.
"""

from __future__ import annotations

from hashlib import blake2b
from typing import Any, Union

from . import _table as T
from ._atomic import atomic_weight, is_infinitesimal, reduced
from ._cache import cache
from ._errors import CGTError
from ._print import number_text, sorted_options, to_text
from ._thermo import birthday, mean, stops, temperature
from .game import Value

_stable = cache("stable id", 1 << 17)


def _stable_of(g: int) -> int:
    r = _stable.get(g)
    if r is not None:
        return r
    p = T.nus_parts(g)
    if p is not None:
        payload = f"N{number_text(p[0])}|{p[1]}|{p[2]}".encode()
    else:
        lo, ro = T.options(g)
        left = b"".join(x.to_bytes(8, "big") for x in sorted(_stable_of(x) for x in lo))
        right = b"".join(x.to_bytes(8, "big") for x in sorted(_stable_of(x) for x in ro))
        payload = b"G" + left + b"|" + right
    return _stable.put(g, int.from_bytes(blake2b(payload, digest_size=8).digest(), "big") >> 1)


def stable_id(g: Union[Value, int]) -> int:
    """The 63-bit content-derived id of a canonical form (a Value or a local id)."""
    return _stable_of(g.id if isinstance(g, Value) else g)


def value_row(g: Union[Value, int], infinitesimals: bool = True) -> dict[str, Any]:
    """One values-table row: the form's stable id, text, option ids and figures.

    Keys: ``id``, ``text``, ``left_ids``, ``right_ids`` (stable ids, CGSuite's
    option order), ``is_number``, ``number`` (text or None), ``mean``,
    ``temperature``, ``left_stop``, ``right_stop`` (texts such as ``3/4``),
    ``birthday`` (int), ``atomic_weight`` (text, or None where the form has
    none: it is not infinitesimal, or not atomic) and
    ``reduced_canonical_form`` (text); ``infinitesimals=False`` leaves those
    two out, for callers that need them rarely (they cost a heating by ``*``).
    """
    gid = g.id if isinstance(g, Value) else g
    lo, ro = sorted_options(gid)
    value = T.number_value(gid)
    left_stop, right_stop = stops(gid)
    row = {
        "id": _stable_of(gid),
        "text": to_text(gid),
        "left_ids": [_stable_of(x) for x in lo],
        "right_ids": [_stable_of(x) for x in ro],
        "is_number": value is not None,
        "number": None if value is None else number_text(value),
        "mean": number_text(T.normalize_number(mean(gid))),
        "temperature": number_text(T.normalize_number(temperature(gid))),
        "left_stop": number_text(left_stop),
        "right_stop": number_text(right_stop),
        "birthday": birthday(gid),
    }
    if infinitesimals:
        row["atomic_weight"] = atomic_weight_text(gid)
        row["reduced_canonical_form"] = to_text(reduced(gid))
    return row


def reduced_text(g: Union[Value, int]) -> str:
    """CGSuite's text of the reduced canonical form of ``g``."""
    return to_text(reduced(g.id if isinstance(g, Value) else g))


def atomic_weight_text(g: Union[Value, int]) -> str | None:
    """CGSuite's text of the atomic weight of ``g``, or None where it has none."""
    g = g.id if isinstance(g, Value) else g
    if not is_infinitesimal(g):
        return None
    try:
        return to_text(atomic_weight(g))
    except CGTError:
        return None
