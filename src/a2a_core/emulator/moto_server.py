"""Start moto's server in-process on loopback, with the service's resources created."""

from __future__ import annotations

import io
import os
import threading
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # Loaded where used: the emulator's own process needs neither (it only serves).
    from a2a_core.aws.clients import AwsClients
    from a2a_core.aws.resources import ResourceNames

REGION = "us-east-1"


# moto accepts any credentials; these are given to the emulator's clients only, never put in the
# environment, where an agent's own AWS calls (a Bedrock model, say) would pick them up.
CREDENTIALS = ("testing", "testing")
# Connections each of the emulator's clients keeps: dev's API and its worker call it at once
# (each from threads of its own), more than botocore's 10, which would close the rest after use.
EMULATOR_CONNECTIONS = 32


@dataclass
class EmulatedAws:
    endpoint_url: str
    region: str
    clients: AwsClients
    names: ResourceNames
    _server: object
    credentials: tuple[str, str] = CREDENTIALS

    def stop(self) -> None:
        self._server.stop()  # type: ignore[attr-defined]


# Reentrant: a moto write may read through the backend's own methods while it holds the lock.
_ITEM_LOCK = threading.RLock()
_ITEM_CALLS = (
    "put_item",
    "update_item",
    "delete_item",
    "transact_write_items",
    "get_item",
    "batch_get_item",
    "query",
    "scan",
)


def _serialize_dynamodb_writes() -> None:
    """Make moto's writes atomic, as DynamoDB's are, for writers and readers alike.

    moto checks a condition and then stores the item without a lock, so two racing writers to
    one key could both "win" under its threaded server; and an update builds the item in steps, so
    a reader could see it half-written (its keys without its version, or a new version with the old
    body) and build a write on it. The task log's and the context store's concurrency rests on
    exactly one conditional write per version succeeding, on a state every reader sees whole.
    """
    from moto.dynamodb.models import DynamoDBBackend

    if getattr(DynamoDBBackend, "_a2a_serialized", False):
        return
    for name in _ITEM_CALLS:
        original = getattr(DynamoDBBackend, name)

        def locked(self: Any, *args: Any, __original: Any = original, **kwargs: Any) -> Any:
            with _ITEM_LOCK:
                return __original(self, *args, **kwargs)

        setattr(DynamoDBBackend, name, locked)
    DynamoDBBackend._a2a_serialized = True  # type: ignore[attr-defined]


def _list_services_once() -> None:
    """moto finds which service a request is for by listing its own package directory, a stat of
    each of its ~150 services, on every request and under a lock all requests share: that
    listing never changes while it runs, so it is taken once."""
    from moto import backends

    if getattr(backends, "_a2a_listed", False):
        return
    services = tuple(backends.list_of_moto_modules())
    setattr(backends, "list_of_moto_modules", lambda: services)  # noqa: B010
    setattr(backends, "_a2a_listed", True)  # noqa: B010


def _keep_alive_handler(base: Any) -> Any:
    """moto's request handler, keeping each client's connection open between its calls.

    werkzeug's development server closes the connection after every answer, because a request
    body the application left unread would be taken for the next request: so every AWS call
    paid for a new connection (and a new server thread), more than moto's own work on a small
    call. Here each body is read to its end after the answer (a chunked one still closes the
    connection), and answers go out without waiting for the client to acknowledge their headers
    (Nagle's algorithm)."""
    from werkzeug.wsgi import LimitedStream

    if getattr(base, "_a2a_keep_alive", False):
        return base

    class KeepAlive(base):  # type: ignore[misc]
        _a2a_keep_alive = True
        disable_nagle_algorithm = True
        _stream: Any = None  # the connection's input, while a request's body stands in for it
        _body: Any = None

        def make_environ(self) -> dict[str, Any]:
            environ: dict[str, Any] = super().make_environ()
            self._stream = self._body = None
            if not environ.get("wsgi.input_terminated"):  # not chunked: its length is known
                self._stream = vars(self)["rfile"]  # set up by the base handler per connection
                self._body = LimitedStream(self._stream, int(self.headers.get("Content-Length") or 0))
                environ["wsgi.input"] = self._body
                # werkzeug, closing every connection, discards whatever the client sent past
                # this request once it has answered: with the connection kept, that is the next
                # request. It finds nothing to discard here.
                self.rfile = io.BytesIO()
            return environ

        def run_wsgi(self) -> None:
            try:
                super().run_wsgi()
            finally:
                if self._stream is not None:
                    self.rfile = self._stream
            if self._body is None:
                self.close_connection = True
            else:
                self._body.exhaust()

        def send_header(self, keyword: str, value: str) -> None:
            if keyword.lower() == "connection" and value.lower() == "close":
                return
            super().send_header(keyword, value)

    return KeepAlive


def start_emulator(prefix: str | None = None, region: str = REGION, *, port: int = 0) -> EmulatedAws:
    """moto on 127.0.0.1 (``port``; 0 picks a free one), with table, queues and bucket created."""
    server = start_moto(port)
    host, port = server.get_host_and_port()
    return connect(f"http://{host}:{port}", region, server, prefix)


def start_moto(port: int = 0) -> Any:
    """moto's threaded server on 127.0.0.1 in this process, its DynamoDB writes made atomic and
    its connections kept open between calls."""
    import logging

    from moto.moto_server import threaded_moto_server
    from moto.server import ThreadedMotoServer

    from a2a_core.emulator.moto_queries import partition_queries

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one access-log line per AWS call
    partition_queries()  # first: the lock then covers its bookkeeping of each write too
    _serialize_dynamodb_writes()
    _list_services_once()
    handler = _keep_alive_handler(getattr(threaded_moto_server, "MotoRequestHandler"))  # noqa: B009
    setattr(threaded_moto_server, "MotoRequestHandler", handler)  # noqa: B010 (what its server starts with)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    return server


def connect(endpoint: str, region: str, server: object, prefix: str | None = None) -> EmulatedAws:
    """The emulator at ``endpoint`` (``server``: what stops it), with the service's resources
    created on it."""
    # Recent botocore adds account-based endpoints that moto's streams do not expect.
    os.environ.setdefault("AWS_ACCOUNT_ID_ENDPOINT_MODE", "disabled")
    from a2a_core.aws.clients import build_clients

    # botocore's clients: dev's journal and its pollers hook into botocore's events.
    clients = build_clients(
        region, endpoint, credentials=CREDENTIALS, sdk="botocore", connections=EMULATOR_CONNECTIONS
    )
    return EmulatedAws(endpoint, region, clients, create_resources(clients, prefix, region), server)


def create_resources(clients: AwsClients, prefix: str | None, region: str = REGION) -> ResourceNames:
    """A fresh, uniquely named set of the service's resources on the emulator."""
    from a2a_core.aws.resources import create_all

    return create_all(
        dynamodb=clients.dynamodb,
        sqs=clients.sqs,
        s3=clients.s3,
        prefix=prefix or f"a2a-{uuid.uuid4().hex[:8]}",
        region=region,
    )
