"""A tablebase under a prefix of an S3-protocol object store: read, listed and written through pyarrow's S3
filesystem, with botocore for what that cannot do (``Bucket.client``). Address, region and credentials come from
the standard AWS variables and files, or storage options (``places.OPTIONS``); failures are one line, and a
store that does not answer is waited for a while (``Bucket._call``).
"""

from __future__ import annotations

import os
import re
import time
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

from tablebase.errors import StoreError
from tablebase.store.location import Conflict, Entry, Location, Tagged, Unanswered

# An outage of a store's restart or failover is waited out, and a lock renewal that waits this long still
# lands within its lease (lock.LEASE less the quarter between renewals): a waiting build keeps its lock.
RETRY_SECONDS = 60.0
FIRST_CONTACT_SECONDS = 5.0
DELETES = 1000  # keys a DeleteObjects request takes at most
UPLOAD_BLOCK = 8 * 2**20  # bytes of a local file sent at a time
# The storage options pyarrow's S3FileSystem takes under the same names.
ARROW_OPTIONS = ("access_key", "secret_key", "session_token", "anonymous", "connect_timeout", "request_timeout",
                 "force_virtual_addressing")
T = TypeVar("T")

# What a refusal's code means: pyarrow spells AWS's errors in capitals (``AWS Error ACCESS_DENIED``), botocore as
# the store sent them (``AccessDenied``).
UNANSWERED = {"NETWORK_CONNECTION", "SLOW_DOWN", "SERVICE_UNAVAILABLE", "INTERNAL_FAILURE", "REQUEST_TIMEOUT",
              "THROTTLING", "SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout", "500", "502", "503",
              "504"}
REFUSED = {"ACCESS_DENIED", "INVALID_ACCESS_KEY_ID", "SIGNATURE_DOES_NOT_MATCH", "EXPIRED_TOKEN", "AccessDenied",
           "InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken", "403", "NO_CREDENTIALS"}
NO_BUCKET = {"NO_SUCH_BUCKET", "NoSuchBucket"}
CONFLICT = {"PreconditionFailed", "ConditionalRequestConflict", "412", "409"}
MISSING = {"NoSuchKey", "404", "NotFound"}
_ARROW_CODE = re.compile(r"AWS Error (\w+)")
_LIVE: weakref.WeakSet = weakref.WeakSet()  # every Bucket of this process, whose clients a fork must not keep
# The stores (by address) that have answered this process: a Bucket that Dask unpickles for each task is new, and
# would otherwise give a worker that has long been writing there only a first contact's wait in an outage.
_ANSWERED: set[str] = set()


class Bucket(Location):
    """``s3://BUCKET/PREFIX``: files are objects under the prefix, stored under names that carry their hash."""

    hashed_names = True

    def __init__(self, url: str, bucket: str, prefix: str, options: dict[str, Any]) -> None:
        self.url = url
        self.bucket = bucket
        self.prefix = prefix
        self.options = options
        self.retry_seconds = options.get("retry_seconds", RETRY_SECONDS)
        self.endpoint = options.get("endpoint_url") or os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get(
            "AWS_ENDPOINT_URL") or _profile("endpoint_url")
        self.region = options.get("region") or os.environ.get("AWS_REGION") or os.environ.get(
            "AWS_DEFAULT_REGION") or _profile("region") or ("us-east-1" if self.endpoint else None)
        self._fs: Any = None
        self._client: Any = None
        _LIVE.add(self)

    def __getstate__(self) -> dict[str, Any]:
        """A Bucket sent to a worker (Dask pickles a task's arguments) travels without its clients: each process
        makes its own at first use, on its own host, from the same options and that host's AWS variables."""
        return {**self.__dict__, "_fs": None, "_client": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        _LIVE.add(self)

    def forget_clients(self) -> None:
        """Let go of both clients: the next request makes them anew (after a fork: a client's connections and
        threads belong to the parent)."""
        self._fs = None
        self._client = None

    # -- the two clients, made at first use: the same address and region, credentials from the same sources --
    @property
    def fs(self) -> Any:
        """pyarrow's S3 filesystem: a file is one PUT (a large one a multipart upload), whole or absent."""
        if self._fs is None:
            import pyarrow.fs

            region = self.region
            if region is None:  # AWS itself: the bucket's region, asked once
                region = self._call("find the bucket's region", "", lambda: pyarrow.fs.resolve_s3_region(self.bucket))
            given = {key: self.options[key] for key in ARROW_OPTIONS if key in self.options}
            # Opened lazily, a small file is written in one PUT rather than a multipart upload of three requests.
            self._fs = pyarrow.fs.S3FileSystem(region=region, endpoint_override=self.endpoint,
                                               allow_delayed_open=True, **given)
        return self._fs

    @property
    def client(self) -> Any:
        """botocore's S3 client, for what pyarrow's filesystem cannot do: the conditional writes of commits and
        locks (``If-None-Match: *``, ``If-Match``: refused with 412), a read that returns the version's ETag
        with its bytes, and deletes (pyarrow's writes an empty marker object for a folder it empties, in
        three requests a file)."""
        if self._client is None:
            import botocore.session
            from botocore import UNSIGNED
            from botocore.config import Config

            addressing = "virtual" if self.options.get("force_virtual_addressing") else (
                "path" if self.endpoint else "auto")
            config = Config(
                region_name=self.region, connect_timeout=self.options.get("connect_timeout", 60),
                read_timeout=self.options.get("request_timeout", 60), retries={"mode": "standard", "max_attempts": 3},
                s3={"addressing_style": addressing},
                # checksums only where the protocol asks for them: S3-compatible servers refuse others' trailers
                request_checksum_calculation="when_required", response_checksum_validation="when_required",
                **({"signature_version": UNSIGNED} if self.options.get("anonymous") else {}))
            self._client = botocore.session.Session().create_client(
                "s3", endpoint_url=self.endpoint, config=config, aws_access_key_id=self.options.get("access_key"),
                aws_secret_access_key=self.options.get("secret_key"),
                aws_session_token=self.options.get("session_token"))
        return self._client

    def key(self, name: str) -> str:
        return f"{self.prefix}/{name}" if self.prefix else name

    def path(self, name: str) -> str:
        return f"{self.bucket}/{self.key(name)}"

    # -- the operations --
    def write(self, name: str, data: bytes, durable: bool = True) -> None:
        def put() -> None:
            with self.fs.open_output_stream(self.path(name)) as out:
                out.write(data)

        self._call("write", name, put)

    def upload(self, name: str, path: Any) -> None:
        def put() -> None:  # a large file goes as a multipart upload, which shows nothing until it completes
            with open(path, "rb") as source, self.fs.open_output_stream(self.path(name)) as out:
                for block in iter(lambda: source.read(UPLOAD_BLOCK), b""):
                    out.write(block)

        self._call("write", name, put)

    def read_if_there(self, name: str) -> bytes | None:
        def get() -> bytes:
            with self.fs.open_input_stream(self.path(name)) as source:
                return source.read()

        try:
            return self._call("read", name, get)
        except FileNotFoundError:
            return None

    def folders(self, prefix: str = "") -> list[str]:
        import pyarrow.fs

        top = self.path(prefix).rstrip("/") if prefix else f"{self.bucket}/{self.prefix}".rstrip("/")
        selector = pyarrow.fs.FileSelector(top, recursive=False, allow_not_found=True)
        infos = self._call("list", prefix, lambda: self.fs.get_file_info(selector))
        return sorted(info.base_name for info in infos if info.type == pyarrow.fs.FileType.Directory)

    def input_file(self, name: str) -> Any:
        return self._call("read", name, lambda: self.fs.open_input_file(self.path(name)))

    def read_range(self, name: str, offset: int, length: int) -> bytes:
        def get() -> bytes:  # one ranged GET
            with self.fs.open_input_file(self.path(name)) as source:
                return source.read_at(length, offset)

        return self._call("read", name, get)

    def read_tagged(self, name: str) -> Tagged | None:
        def get() -> Tagged | None:
            try:
                got = self.client.get_object(Bucket=self.bucket, Key=self.key(name))
            except Exception as error:
                if _code(error) in MISSING:
                    return None
                raise
            data = got["Body"].read()
            return Tagged(data, got["ETag"], _now(got) - got["LastModified"].timestamp())

        return self._call("read", name, get)

    def create(self, name: str, data: bytes) -> str:
        return self._put("create", name, data, IfNoneMatch="*")

    def replace(self, name: str, data: bytes, tag: str) -> str:
        return self._put("replace", name, data, IfMatch=tag)

    def _put(self, what: str, name: str, data: bytes, **condition: str) -> str:
        """One conditional PUT. A refusal after a try whose answer was lost may be the store refusing that try's
        own write: where the object now holds these very bytes, the write was made."""
        try:
            return self._call(what, name, lambda: self.client.put_object(
                Bucket=self.bucket, Key=self.key(name), Body=data, **condition)["ETag"])
        except Conflict:
            found = self.read_tagged(name)
            if found is not None and found.data == data:
                return found.tag
            raise

    def list(self, prefix: str = "") -> dict[str, Entry]:
        import pyarrow.fs

        top = self.path(prefix).rstrip("/") if prefix else f"{self.bucket}/{self.prefix}".rstrip("/")
        selector = pyarrow.fs.FileSelector(top, recursive=True, allow_not_found=True)
        infos = self._call("list", prefix, lambda: self.fs.get_file_info(selector))
        base = len(self.path(""))
        now = time.time()
        return {info.path[base:]: Entry(info.size, now - info.mtime_ns / 1e9) for info in infos
                if info.type == pyarrow.fs.FileType.File}

    def delete(self, names: list[str]) -> None:
        for start in range(0, len(names), DELETES):
            batch = {"Objects": [{"Key": self.key(n)} for n in names[start:start + DELETES]], "Quiet": True}
            done = self._call("delete", names[start], lambda: self.client.delete_objects(
                Bucket=self.bucket, Delete=batch))
            failed = [e for e in done.get("Errors", []) if e.get("Code") not in MISSING]
            if failed:
                raise StoreError(f"{self.where(failed[0]['Key'])}: cannot delete it: {failed[0].get('Code')}")

    def size(self, name: str) -> int | None:
        import pyarrow.fs

        info = self._call("look at", name, lambda: self.fs.get_file_info(self.path(name)))
        return info.size if info.type == pyarrow.fs.FileType.File else None

    def modified(self, name: str) -> float | None:
        import pyarrow.fs

        info = self._call("look at", name, lambda: self.fs.get_file_info(self.path(name)))
        return info.mtime_ns / 1e9 if info.type == pyarrow.fs.FileType.File else None

    def check(self) -> None:
        import pyarrow.fs

        info = self._call("look at", "", lambda: self.fs.get_file_info(self.bucket))
        if info.type != pyarrow.fs.FileType.Directory:
            raise StoreError(self._no_bucket())

    def uploads(self, prefix: str) -> list[tuple[str, str, float]]:
        """The multipart uploads begun under a prefix and never completed nor aborted (a writer killed while it
        sent a large file): (name, upload id, age in seconds) each. The store shows no part of them as a file."""
        found = []
        for page in self._call("list the uploads of", prefix, lambda: list(
                self.client.get_paginator("list_multipart_uploads").paginate(
                    Bucket=self.bucket, Prefix=self.key(prefix)))):
            now = _now(page)
            for upload in page.get("Uploads", []):
                name = upload["Key"][len(self.key("")):]
                found.append((name, upload["UploadId"], now - upload["Initiated"].timestamp()))
        return found

    def abort(self, name: str, upload: str) -> None:
        """Abort an upload ``uploads`` found: the store drops the parts it holds."""
        try:
            self._call("abort the upload of", name, lambda: self.client.abort_multipart_upload(
                Bucket=self.bucket, Key=self.key(name), UploadId=upload))
        except StoreError as error:
            if "NoSuchUpload" not in str(error):  # completed or aborted since it was listed
                raise

    # -- the store's answers --
    def _call(self, what: str, name: str, action: Callable[[], T]) -> T:
        """``action()``, tried again with backoff while the store does not answer: for ``retry_seconds`` once it
        has answered this process, for ``FIRST_CONTACT_SECONDS`` before (a wrong address is said at once, an
        outage waited out). Any other refusal is a StoreError of one line at once (``Conflict`` for a
        conditional write's)."""
        waited_from = None
        delay = 0.1
        while True:
            try:
                result = action()
            except FileNotFoundError:
                _ANSWERED.add(self._address())
                raise
            except Exception as error:
                code = _code(error)
                if code is None:
                    raise
                if code not in UNANSWERED:
                    _ANSWERED.add(self._address())
                    raise self._refusal(error, code, what, name) from None
                now = time.monotonic()
                waited_from = now if waited_from is None else waited_from
                answered = self._address() in _ANSWERED
                limit = self.retry_seconds if answered else min(self.retry_seconds, FIRST_CONTACT_SECONDS)
                if now + delay - waited_from > limit:
                    raise Unanswered(f"{self.where(name)}: cannot {what} it: the store at {self._address()} did not "
                                     f"answer in {now - waited_from:.0f} s ({_detail(error)})") from None
                time.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            _ANSWERED.add(self._address())
            return result

    def _refusal(self, error: Exception, code: str, what: str, name: str) -> StoreError:
        where = self.where(name)
        if code in CONFLICT or (what == "replace" and code in MISSING):  # nothing there is no version read
            return Conflict(f"{where}: the store refused a conditional write ({code})")
        if code in REFUSED:
            return StoreError(f"{where}: the store at {self._address()} refused the credentials ({code}): check "
                              "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, and that they may use "
                              "this bucket")
        if code in NO_BUCKET:
            return StoreError(self._no_bucket())
        if code == "NotImplemented":
            return StoreError(f"{where}: the store at {self._address()} does not take conditional writes "
                              "(If-None-Match, If-Match), which tablebase commits tables with")
        return StoreError(f"{where}: cannot {what} it: {_detail(error)}")

    def _no_bucket(self) -> str:
        return f"{self.url}: the store at {self._address()} has no bucket {self.bucket!r}"

    def _address(self) -> str:
        return self.endpoint or f"AWS ({self.region or 'the bucket region'})"


def _forget_every_client() -> None:
    for bucket in list(_LIVE):
        bucket.forget_clients()


# pyarrow's S3 client and botocore's hold connections (and pyarrow's, threads of the AWS SDK) that a forked child
# must not use: a worker forked from a process that read the store makes its own.
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_every_client)


def _code(error: Exception) -> str | None:
    """The store's code for a failure of either client, None for one that is not the store's."""
    module = type(error).__module__ or ""
    if module.startswith("botocore"):
        import botocore.exceptions as be

        if isinstance(error, be.ClientError):
            said = error.response.get("Error", {})
            return str(said.get("Code") or error.response.get("ResponseMetadata", {}).get("HTTPStatusCode"))
        if isinstance(error, (be.EndpointConnectionError, be.ConnectionClosedError, be.ConnectTimeoutError,
                              be.ReadTimeoutError, be.HTTPClientError)):
            return "NETWORK_CONNECTION"
        if isinstance(error, be.NoCredentialsError):
            return "NO_CREDENTIALS"
        return None
    if isinstance(error, OSError):
        found = _ARROW_CODE.search(str(error))
        return found.group(1) if found else None
    return None


def _now(answer: dict) -> float:
    """The time by the store's clock, from an answer's ``Date``: ages of its objects are measured by it, so that
    no two hosts' clocks need agree. This host's where the answer has none."""
    from email.utils import parsedate_to_datetime  # only where a store answered

    try:
        return parsedate_to_datetime(answer["ResponseMetadata"]["HTTPHeaders"]["date"]).timestamp()
    except (KeyError, TypeError, ValueError):
        return time.time()


def _detail(error: Exception) -> str:
    """What went wrong, in a few words: the text after pyarrow's ``operation:``, or botocore's message."""
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    text = text.split(" operation: ", 1)[-1]
    return re.sub(r"\s*\((Request ID|Service): [^)]*\)", "", text).strip()[:200]


def _profile(key: str) -> str | None:
    """A value of the AWS configuration file's profile (``AWS_PROFILE``, else ``default``), where botocore
    is installed to read it."""
    try:
        import botocore.session
        from botocore.exceptions import ProfileNotFound
    except ImportError:
        return None
    try:
        return botocore.session.Session().get_scoped_config().get(key)
    except ProfileNotFound as error:
        raise StoreError(f"AWS_PROFILE: {error}") from None
