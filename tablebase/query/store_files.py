"""An object store's files as DuckDB reads them: an fsspec filesystem (DuckDB's ``register_filesystem`` takes one)
whose every read is the store's own (``store.bucket.Bucket``): pyarrow's S3 client, the reader's address and
credentials, and a request that times out or finds the store away tried again, backing off, as everywhere
else. Read only; it knows no more than the files DuckDB asks for by their ``s3://BUCKET/KEY`` paths.
"""

from __future__ import annotations

from typing import Any

from fsspec.spec import AbstractBufferedFile, AbstractFileSystem

BLOCK = 4 * 2**20  # bytes read at a time (DuckDB asks for a footer, then column chunks)


class StoreFiles(AbstractFileSystem):
    """The files under a Bucket, read by ranges; ``s3://`` paths of its bucket only."""

    protocol = ("s3",)
    cachable = False  # one per reader's session: another bucket or credentials must not share it

    def __init__(self, bucket: Any, sizes: dict[str, int] | None = None) -> None:
        """``sizes``: the files the manifests record, by path, with their sizes: each lies under a name that
        carries its hash and is never written with other bytes, so neither its size nor its age is asked."""
        super().__init__()
        self.bucket = bucket
        self.sizes = {self._strip_protocol(path): size for path, size in (sizes or {}).items()}

    def _name(self, path: str) -> str:
        """A path's name relative to the bucket's prefix (as the Bucket's operations take it)."""
        path = self._strip_protocol(path)
        base = self.bucket.path("")
        if not path.startswith(base):
            raise FileNotFoundError(path)
        return path[len(base):]

    def info(self, path: str, **kwargs: Any) -> dict[str, Any]:
        size = self.sizes.get(self._strip_protocol(path))
        if size is None:
            size = self.bucket.size(self._name(path))
        if size is None:
            raise FileNotFoundError(path)
        return {"name": self._strip_protocol(path), "size": size, "type": "file"}

    def modified(self, path: str) -> Any:
        from datetime import datetime, timezone

        when = 0.0 if self._strip_protocol(path) in self.sizes else self.bucket.modified(self._name(path))
        if when is None:
            raise FileNotFoundError(path)
        return datetime.fromtimestamp(when, timezone.utc)

    def ls(self, path: str, detail: bool = True, **kwargs: Any) -> list[Any]:
        found = self.info(path)  # a file names itself: views name files, never folders
        return [found] if detail else [found["name"]]

    def glob(self, path: str, **kwargs: Any) -> list[str]:
        return [self._strip_protocol(path)] if self.exists(path) else []

    def _open(self, path: str, mode: str = "rb", block_size: Any = None, autocommit: bool = True,
              cache_options: Any = None, **kwargs: Any) -> "StoreFile":
        if mode != "rb":
            raise PermissionError(f"{path}: read only")
        return StoreFile(self, path, mode, block_size or BLOCK, size=self.info(path)["size"])


class StoreFile(AbstractBufferedFile):
    """One file, read a block at a time by ranged GETs."""

    def _fetch_range(self, start: int, end: int) -> bytes:
        if end <= start:
            return b""
        return self.fs.bucket.read_range(self.fs._name(self.path), start, end - start)
