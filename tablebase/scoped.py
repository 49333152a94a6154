"""A context variable set for a ``with`` block: in this context, and in the threads it hands work to
(Dask's and the server's copy the context they run a call in)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

Value = TypeVar("Value")


@contextmanager
def scoped(var: ContextVar[Value], value: Value) -> Iterator[Value]:
    """``var`` set to ``value`` inside the block, as it was after it."""
    token = var.set(value)
    try:
        yield value
    finally:
        var.reset(token)
