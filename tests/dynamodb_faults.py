"""DynamoDB faults injected into the lean AWS client (`a2a_core.aws.json_client`), the one the
deployed functions call DynamoDB through, for the fault-injection tests (`fault_injection`).

Each DynamoDB call draws a fault with probability ``rate`` (from a seeded generator), in one of
the enabled modes:

- ``retried``: the call's first HTTP request fails with an error the client retries (a 500
  ``InternalServerError``, a ``ThrottlingException`` or a ``ProvisionedThroughputExceeded``); for a
  write, ``landed_share`` of these are sent first, so the write lands and only its answer is lost.
- ``surfaced``: the call raises to our code, as an error does once the client's retries are spent
  or when it does not retry it (``TransactionConflictException``, ``InternalServerError``,
  ``ThrottlingException``); for a write, ``landed_share`` of these are raised after the write
  landed.
"""

from __future__ import annotations

import contextlib
import json
import random
import threading
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from a2a_core.aws import json_client
from a2a_core.aws.http_pool import HttpResponse
from a2a_core.aws.json_client import AwsJsonClient

MODES = ("retried", "surfaced")
WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})
RETRIED = (
    ("InternalServerError", 500),
    ("ThrottlingException", 400),
    ("ProvisionedThroughputExceededException", 400),
)
SURFACED = (
    ("TransactionConflictException", 400),
    ("InternalServerError", 500),
    ("ThrottlingException", 400),
)


def _error(code: str, status: int) -> HttpResponse:
    body = json.dumps({"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": "injected fault"})
    headers = {"content-type": "application/x-amz-json-1.0", "x-amzn-requestid": str(uuid.uuid4())}
    return HttpResponse(status, headers, body.encode())


def _answer(code: str, status: int) -> dict[str, Any]:
    return {
        "Error": {"Code": code, "Message": "injected fault"},
        "ResponseMetadata": {"HTTPStatusCode": status, "HTTPHeaders": {}, "RetryAttempts": 0},
    }


class DynamoDBFaults:
    """Faults for every DynamoDB client it is attached to; ``enabled`` pauses them (checks)."""

    def __init__(self, rate: float, modes: Sequence[str], seed: int, *, landed_share: float = 0.3) -> None:
        unknown = set(modes) - set(MODES)
        if unknown or not modes:
            raise ValueError(f"modes must be some of {MODES}, not {list(modes)}")
        self.rate = rate
        self.modes = tuple(modes)
        self.landed_share = landed_share
        self.enabled = True
        self.injected: Counter[str] = Counter()  # "<mode>:<landed|lost>:<code>"
        self.calls = 0
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._pending = threading.local()  # a retried fault for the call running on this thread

    def attach(self, client: Any) -> None:
        """Inject into ``client`` (an `AwsJsonClient`, as `build_clients` makes DynamoDB's)."""
        assert isinstance(client, AwsJsonClient), f"not the lean client: {client!r}"
        send = client.transport

        def transport(method: str, headers: dict[str, str], body: bytes) -> HttpResponse:
            fault = getattr(self._pending, "fault", None)
            if fault is None:
                return send(method, headers, body)
            self._pending.fault = None  # the first request only: the client's retries go through
            landed, (code, status) = fault
            if landed:
                send(method, headers, body)
            return _error(code, status)

        client.transport = transport
        client.before_call.append(self._before_call)
        client.after_call.append(self._after_call)

    def _draw(self, write: bool) -> tuple[str, bool, tuple[str, int]] | None:
        with self._lock:
            self.calls += 1
            if not self.enabled or self._random.random() >= self.rate:
                return None
            mode = self._random.choice(self.modes)
            landed = write and self._random.random() < self.landed_share
            error = self._random.choice(RETRIED if mode == "retried" else SURFACED)
            self.injected[f"{mode}:{'landed' if landed else 'lost'}:{error[0]}"] += 1
            return mode, landed, error

    def _before_call(self, operation: str, params: dict[str, Any]) -> dict[str, Any] | None:
        self._pending.after = None
        fault = self._draw(operation in WRITES)
        if fault is None:
            return None
        mode, landed, error = fault
        if mode == "retried":
            self._pending.fault = (landed, error)
        elif landed:
            self._pending.after = error
        else:
            return _answer(*error)
        return None

    def _after_call(self, operation: str, params: dict[str, Any], answer: dict[str, Any]) -> None:
        error = getattr(self._pending, "after", None)
        self._pending.fault = self._pending.after = None
        if error is None:
            return
        answer.clear()
        answer.update(_answer(*error))


@contextlib.contextmanager
def scaled_throttle_backoff(scale: float) -> Iterator[None]:
    """The client's waits before retrying a throttled call (0.5 s on average, first) times
    ``scale``: which errors it retries, and how often, stay as they are."""
    saved = json_client.BACKOFF["throttling"]
    json_client.BACKOFF["throttling"] = saved * scale
    try:
        yield
    finally:
        json_client.BACKOFF["throttling"] = saved
