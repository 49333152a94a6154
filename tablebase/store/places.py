"""What ``--out`` and ``--db`` take, read: a folder's path or ``s3://BUCKET/PREFIX``, and its storage options
(``OPTIONS``), as a ``Location``; anything else refused in one line, before anything is written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from tablebase.errors import UsageError
from tablebase.store.bucket import Bucket
from tablebase.store.location import Folder, Location

# The options of an object store, by name: what each takes (``str``, ``bool`` or ``float``).
OPTIONS: dict[str, type] = {
    "endpoint_url": str,  # the store's address, http(s)://HOST:PORT (default: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL)
    "region": str,  # default: AWS_REGION, AWS_DEFAULT_REGION, the profile's region
    "access_key": str,
    "secret_key": str,
    "session_token": str,
    "anonymous": bool,  # no credentials: a public bucket, read only
    "connect_timeout": float,
    "request_timeout": float,
    "force_virtual_addressing": bool,
    "retry_seconds": float,  # how long an unreachable store is waited for (``bucket.RETRY_SECONDS``)
}
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")


def is_url(where: str | os.PathLike) -> bool:
    """Whether a place is given as a URL (``SCHEME://...``) rather than a folder's path."""
    return _SCHEME.match(os.fspath(where)) is not None


def location_of(where: str | os.PathLike, options: Mapping[str, Any] | None = None) -> Location:
    """The place ``--out`` or ``--db`` names: a folder, or ``s3://BUCKET/PREFIX``; UsageError in one line for a
    URL of another scheme, a bad bucket or prefix, or an option the place does not take."""
    text = os.fspath(where)
    found = _SCHEME.match(text)
    scheme = found.group(1).lower() if found else None
    if scheme == "s3":
        bucket, prefix = _bucket_and_prefix(text, text[found.end():])
        return Bucket(text, bucket, prefix, _parsed(options or {}))
    if scheme not in (None, "file"):
        raise UsageError(f"{text}: unknown scheme {scheme}://; give a folder, or s3://BUCKET/PREFIX for an object "
                         "store")
    if options:
        raise UsageError(f"{text} is a folder: storage options ({', '.join(sorted(options))}) are for an object store")
    if scheme == "file":
        path = text[found.end():]
        if not path.startswith("/"):
            raise UsageError(f"{text}: a file:// URL names an absolute path, file:///PATH")
        return Folder(path)
    return Folder(text)


def _bucket_and_prefix(text: str, rest: str) -> tuple[str, str]:
    bucket, _, prefix = rest.partition("/")
    if "@" in bucket:
        raise UsageError(f"{text}: credentials do not go in the URL; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
    if not _BUCKET.match(bucket):
        raise UsageError(f"{text}: {bucket!r} is not a bucket's name (3 to 63 lower-case letters, digits, '.' and "
                         "'-'): give s3://BUCKET/PREFIX")
    prefix = prefix.strip("/")
    parts = prefix.split("/") if prefix else []
    if any(p in ("", ".", "..") or not p.isprintable() or "?" in p or "#" in p for p in parts):
        raise UsageError(f"{text}: the prefix must be names separated by single '/', without '.', '..', '?' or '#' "
                         "(options go in --storage-option)")
    return bucket, prefix


def storage_options(pairs: list[str]) -> dict[str, str]:
    """``KEY=VALUE`` words (``--storage-option``) as a mapping; UsageError in one line for one without ``=``."""
    options = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            raise UsageError(f"--storage-option {pair!r}: give KEY=VALUE, KEY one of {', '.join(OPTIONS)}")
        options[key.strip()] = value
    return options


def _parsed(options: Mapping[str, Any]) -> dict[str, Any]:
    """Options given as text (the command line) or as TOML values, each as the type ``OPTIONS`` gives it."""
    parsed: dict[str, Any] = {}
    for key, value in options.items():
        kind = OPTIONS.get(key)
        if kind is None:
            raise UsageError(f"unknown storage option {key!r}: the options are {', '.join(OPTIONS)}")
        parsed[key] = _as(kind, key, value)
    if ("access_key" in parsed) != ("secret_key" in parsed):
        raise UsageError("storage options access_key and secret_key go together: give both, or neither (then the "
                         "AWS variables and files give them)")
    return parsed


_TRUE, _FALSE = {"true", "yes", "1", "on"}, {"false", "no", "0", "off"}


def _as(kind: type, key: str, value: Any) -> Any:
    if kind is bool:
        if isinstance(value, bool):
            return value
        if str(value).lower() in _TRUE | _FALSE:
            return str(value).lower() in _TRUE
        raise UsageError(f"storage option {key}={value!r}: give true or false")
    if kind is float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = -1.0
        if isinstance(value, bool) or not number >= 0:
            raise UsageError(f"storage option {key}={value!r}: give a number of seconds, 0 or more")
        return number
    if not isinstance(value, str):
        raise UsageError(f"storage option {key}={value!r}: give a text")
    return value
