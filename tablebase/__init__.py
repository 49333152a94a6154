"""tablebase: build, store and query position databases of combinatorial games."""

__version__ = "0.1.0"
