"""How wide a dense solver holds each figure of the positions solved so far.

A dense solver keeps a Grundy value and a remoteness for every key of the
game's key space, so each byte a key is a byte of memory, page cache or disk
per key. The stored rows keep the type the game's bound asks for
(``value_dtype``), but a build holds the lower levels' figures, which are far
below the bounds, in one byte until a value does not fit: then it raises
``FigureOverflow`` before any file is written from it, and the build starts
that figure again wide (docs/scale.md, "Bytes a key: one a figure").
"""

from __future__ import annotations

from tablebase.errors import TablebaseError
from tablebase.games import ImpartialForm
from tablebase.lazy import np

FIGURES = ("grundy", "remoteness")
NARROW = np.uint8


class FigureOverflow(TablebaseError):
    """A figure held narrow met a value its type cannot hold: the build holds it wide and starts again."""

    def __init__(self, figure: str) -> None:
        super().__init__(figure)  # the only argument, so that the error crosses Dask's pickling whole
        self.figure = figure

    def __str__(self) -> str:
        return f"a {self.figure} above {np.iinfo(NARROW).max} does not fit the one byte it was held in"


def bound_dtype(game: ImpartialForm, figure: str) -> type:
    """The narrowest unsigned type of the figure's bound: a Grundy value is at most the number of moves,
    a remoteness at most ``max_remoteness``."""
    bound = game.max_moves if figure == "grundy" else game.max_remoteness
    return np.uint8 if bound < 2**8 else np.uint16 if bound < 2**16 else np.uint32


def held_dtypes(game: ImpartialForm, wide: frozenset[str] | None) -> dict[str, type]:
    """Each figure's type in the solver's arrays.

    ``wide`` None: every figure at its bound's type (nothing can overflow), as outside a build (verify,
    check-game).
    A set: the figures it names at their bound's type, the others in one byte,
    checked (``check``).
    """
    return {f: bound_dtype(game, f) if wide is None or f in wide else NARROW for f in FIGURES}


def check(figure: str, values: np.ndarray, held: type) -> None:
    """Raise ``FigureOverflow`` if any of ``values`` does not fit the type the figure is held in."""
    if len(values) and np.dtype(held).itemsize < values.dtype.itemsize and values.max() > np.iinfo(held).max:
        raise FigureOverflow(figure)


__all__ = ["FIGURES", "FigureOverflow", "bound_dtype", "check", "held_dtypes"]
