"""A real S3-protocol server for the tests: moto's, in a thread of the test run, on loopback.

The server checks credentials as a store does: one user made through its IAM
API, with a policy that allows everything in S3, and its key; any other key
is refused (``InvalidAccessKeyId``), and so is a wrong secret
(``SignatureDoesNotMatch``). It keeps its objects while it is stopped, so a
test can take it away for a few seconds and bring it back (``down``). The
tests' oracle of what the bucket holds is ``keys``: botocore's own listing,
none of the store's code.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

BUCKET = "tables"
REGION = "us-east-1"


class S3Server:
    def __init__(self) -> None:
        from moto.server import ThreadedMotoServer

        self.port = _free_port("127.0.0.1")
        self.endpoint = f"http://127.0.0.1:{self.port}"
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # a line a request, in every failure's report
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self._server.start()
        self._up = True
        iam = self._client("iam", "setup", "setup")
        iam.create_user(UserName="tablebase")
        policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
        iam.put_user_policy(UserName="tablebase", PolicyName="s3", PolicyDocument=json.dumps(policy))
        key = iam.create_access_key(UserName="tablebase")["AccessKey"]
        self.access_key, self.secret_key = key["AccessKeyId"], key["SecretAccessKey"]
        self.client().create_bucket(Bucket=BUCKET)
        # From here on every request is checked against the users the server knows.
        request = urllib.request.Request(f"{self.endpoint}/moto-api/reset-auth", data=b"0", method="POST",
                                         headers={"Content-Type": "text/plain"})
        urllib.request.urlopen(request, timeout=10).read()

    def _client(self, service: str, access_key: str, secret_key: str) -> Any:
        import botocore.session

        return botocore.session.Session().create_client(
            service, endpoint_url=self.endpoint, region_name=REGION, aws_access_key_id=access_key,
            aws_secret_access_key=secret_key)

    def client(self) -> Any:
        """botocore's S3 client with the user's key."""
        return self._client("s3", self.access_key, self.secret_key)

    def env(self) -> dict[str, str]:
        """The standard AWS variables that name this server and its user; no configuration file is read."""
        return {"AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": self.access_key,
                "AWS_SECRET_ACCESS_KEY": self.secret_key, "AWS_REGION": REGION, "AWS_DEFAULT_REGION": REGION,
                "AWS_CONFIG_FILE": "/nonexistent/aws-config", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/aws-creds",
                "AWS_EC2_METADATA_DISABLED": "true"}

    def keys(self, prefix: str = "") -> dict[str, bytes]:
        """Every object under a prefix of the bucket, by key, with its bytes."""
        client = self.client()
        found = {}
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix):
            for item in page.get("Contents", []):
                found[item["Key"]] = client.get_object(Bucket=BUCKET, Key=item["Key"])["Body"].read()
        return found

    def uploads(self, prefix: str = "") -> list[str]:
        """The keys of multipart uploads begun and not completed nor aborted."""
        listed = self.client().list_multipart_uploads(Bucket=BUCKET, Prefix=prefix)
        return [u["Key"] for u in listed.get("Uploads", [])]

    @contextmanager
    def also_on(self, address: str) -> Iterator[str]:
        """The same server also listening at another address (the bridge of ``tests/hosts.py``'s hosts) while
        the block runs: its endpoint there. moto keeps one state a process, so the bucket and user are these."""
        from moto.server import ThreadedMotoServer

        port = _free_port(address)
        other = ThreadedMotoServer(ip_address=address, port=port, verbose=False)
        other.start()
        try:
            yield f"http://{address}:{port}"
        finally:
            other.stop()

    @property
    def up(self) -> bool:
        """Whether the server is serving now (``down`` stops it for a while)."""
        return self._up

    def stop(self) -> None:
        if self._up:
            self._server.stop()
            self._up = False

    def start(self) -> None:
        if not self._up:
            self._server.start()
            self._up = True

    @contextmanager
    def down(self, seconds: float) -> Iterator[None]:
        """The server stopped now and started again ``seconds`` later, while the block runs."""
        self.stop()
        timer = threading.Timer(seconds, self.start)
        timer.start()
        try:
            yield
        finally:
            timer.join()
            self.start()

    def wait_up(self, timeout: float = 10) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                urllib.request.urlopen(f"{self.endpoint}/moto-api/", timeout=1).read()
                return
            except OSError:
                time.sleep(0.1)
        raise TimeoutError(f"the S3 server at {self.endpoint} did not come back")


def _free_port(address: str) -> int:
    with socket.socket() as probe:
        probe.bind((address, 0))
        return probe.getsockname()[1]


def write_parts(location: Any, table: str, generation: int, parts: int = 2) -> dict[str, dict]:
    """The files of rows of a table's generation, written and not committed: level ``generation``, whose part
    ``p`` holds the keys ``generation * 1000 + 10 * p`` to ``+ 9``. Their records, by name."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    from tablebase.store.placed import put_file

    records = {}
    for part in range(parts):
        keys = list(range(generation * 1000 + 10 * part, generation * 1000 + 10 * part + 10))
        sink = io.BytesIO()
        pq.write_table(pa.table({"key": pa.array(keys, pa.int64()), "level": pa.array([0] * 10, pa.int32())}), sink)
        name = f"rows/{generation:07d}-{generation:07d}.{part:05d}.parquet"
        records[name] = put_file(location, table, name, sink.getvalue(), rows=len(keys))
    return records


def commit(location: Any, table: str, generation: int, parts: int = 2) -> Any:
    """A table's generation written and committed; the writer's ``Head``."""
    from tablebase.store.commits import Head
    from tablebase.store.manifest import Manifest

    head = Head(location, table)
    head.load()
    files = write_parts(location, table, generation, parts)
    head.save(Manifest(table=table, game="chomp", kind="impartial", params={"generation": generation},
                       version="test", partition_rows=10, files=files))
    return head


def seen(location: Any, table: str) -> tuple[int, list[int]] | None:
    """What a reader sees of a table: the generation its manifest says, and the keys of the files it records."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tablebase.store import commits, placed

    manifest = commits.load(location, table)
    if manifest is None:
        return None
    keys = []
    for name, record in manifest.files.items():
        data = placed.open_file(location, table, name, record)
        keys += pq.read_table(pa.BufferReader(data)).column("key").to_pylist()
    return manifest.params["generation"], sorted(keys)


def keys_of(generation: int, parts: int = 2) -> list[int]:
    """The keys a generation's files hold (``write_parts``): the oracle of what a reader sees."""
    return [generation * 1000 + 10 * part + i for part in range(parts) for i in range(10)]


@dataclass
class Exchange:
    """One client's connection through the proxy, as the proxy saw it: the client's port, and of the last
    request begun on it its line, the length of its body (``x-amz-decoded-content-length`` where it is sent in
    aws-chunked framing, which adds to it, else ``Content-Length``), the bytes of its body passed on so far,
    whether the store began to answer it; whether the connection has closed."""

    port: int
    line: str = ""
    length: int | None = None
    body: int = 0
    answered: bool = False
    closed: bool = False

    def cut(self) -> bool:
        """Whether its last request was cut off: the connection closed before the whole body was passed on
        and before any answer."""
        return self.closed and not self.answered and self.length is not None and self.body < self.length


class Proxy:
    """A TCP proxy on loopback in front of the S3 server, to make it slow as a store far away can be: an answer
    held back ``delay`` seconds (only the first ``delayed`` answers, if set; only every ``every``-th, if set),
    what a client sends cut to ``rate`` bytes a second (only in requests whose line holds ``slowed``, if set).
    ``answers`` counts the answers it held back or let through, ``held`` those it held back; ``asked`` records
    when each request began (monotonic seconds); ``sent`` and ``received`` count the bytes a client sent and
    was sent; ``exchanges`` holds each connection's ``Exchange``. Stopped with ``close``."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.delay, self.delayed, self.every, self.rate = 0.0, None, None, None
        self.slowed: str | None = None
        self.held = 0
        self.answers, self.asked = 0, []
        self.exchanges: list[Exchange] = []
        self.sent = self.received = 0
        self._lock = threading.Lock()
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self.port = self._listener.getsockname()[1]
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self._open = True
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while self._open:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                client.close()
                continue
            answering = [False]  # within an answer on this connection: only its first bytes wait
            exchange = Exchange(client.getpeername()[1])
            with self._lock:
                self.exchanges.append(exchange)
            threading.Thread(target=self._pipe, args=(client, server, True, answering, exchange), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, False, answering, exchange),
                             daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, asking: bool, answering: list[bool],
              exchange: Exchange) -> None:
        try:
            while True:
                data = source.recv(1 << 16)
                if not data:
                    break
                with self._lock:
                    if asking:
                        self.sent += len(data)
                    else:
                        self.received += len(data)
                if asking:
                    if data[:4] in (b"GET ", b"PUT ", b"POST", b"HEAD", b"DELE"):
                        answering[0] = False
                        head, _, body = data.partition(b"\r\n\r\n")
                        length = re.search(rb"(?im)^x-amz-decoded-content-length:\s*(\d+)", head) or re.search(
                            rb"(?im)^content-length:\s*(\d+)", head)
                        exchange.line = head.split(b"\r\n", 1)[0].decode("latin-1")
                        exchange.length = int(length.group(1)) if length else None
                        exchange.body, exchange.answered = len(body), False
                        with self._lock:
                            self.asked.append(time.monotonic())
                    else:
                        exchange.body += len(data)
                    if self.rate and (self.slowed is None or self.slowed in exchange.line):
                        time.sleep(len(data) / self.rate)
                elif data.startswith(b"HTTP/1.1 100 "):  # "go on" to a client that waits to send its body
                    pass
                elif not answering[0]:
                    answering[0] = exchange.answered = True
                    with self._lock:
                        self.answers += 1
                        wait = self.delay if (self.delayed is None or self.answers <= self.delayed) and (
                            self.every is None or self.answers % self.every == 0) else 0.0
                        self.held += wait > 0
                    time.sleep(wait)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            exchange.closed = True
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                end.close()

    def close(self) -> None:
        self._open = False
        self._listener.close()
