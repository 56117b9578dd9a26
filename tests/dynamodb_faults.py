"""DynamoDB faults injected into botocore, for the fault-injection tests (`fault_injection`).

Each DynamoDB call draws a fault with probability ``rate`` (from a seeded generator), in one of
the enabled modes:

- ``retried``: the call's first HTTP request fails with an error botocore retries (a 500
  ``InternalServerError``, a ``ThrottlingException`` or a ``ProvisionedThroughputExceeded``); for a
  write, ``landed_share`` of these are sent first, so the write lands and only its answer is lost.
- ``surfaced``: the call raises to our code, as an error does once botocore's retries are spent or
  when botocore does not retry it (``TransactionConflictException``, ``InternalServerError``,
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

from botocore.awsrequest import AWSResponse, HTTPHeaders
from botocore.retries.standard import ExponentialBackoff

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


class _Raw:
    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self._body


def _error(url: str, code: str, status: int) -> tuple[AWSResponse, dict[str, Any]]:
    body = json.dumps({"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": "injected fault"})
    headers = {"Content-Type": "application/x-amz-json-1.0", "x-amzn-RequestId": str(uuid.uuid4())}
    parsed = {
        "Error": {"Code": code, "Message": "injected fault"},
        "ResponseMetadata": {"HTTPStatusCode": status, "HTTPHeaders": headers},
    }
    return AWSResponse(url, status, HTTPHeaders.from_dict(headers), _Raw(body.encode())), parsed


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
        events = client.meta.events
        events.register("before-call.dynamodb", self._before_call)
        events.register("before-send.dynamodb", lambda request, **_: self._before_send(client, request))
        events.register("after-call.dynamodb", self._after_call)

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

    def _before_call(self, model: Any, params: dict[str, Any], context: dict[str, Any], **_: Any) -> Any:
        fault = self._draw(model.name in WRITES)
        if fault is None:
            return None
        mode, landed, error = fault
        if mode == "retried":
            self._pending.fault = (landed, error)
        elif landed:
            context["a2a_fault_after"] = error
        else:
            return _error(params["url"], *error)
        return None

    def _before_send(self, client: Any, request: Any) -> AWSResponse | None:
        fault = getattr(self._pending, "fault", None)
        if fault is None:
            return None
        self._pending.fault = None  # the first request only: botocore's retries go through
        landed, (code, status) = fault
        if landed:
            client._endpoint.http_session.send(request).content  # noqa: B018 (read it whole)
        return _error(request.url, code, status)[0]

    def _after_call(
        self, http_response: Any, parsed: dict[str, Any], context: dict[str, Any], **_: Any
    ) -> None:
        error = context.pop("a2a_fault_after", None)
        self._pending.fault = None
        if error is None:
            return
        code, status = error
        http_response.status_code = status
        parsed.clear()
        parsed.update(_error(http_response.url, code, status)[1])


@contextlib.contextmanager
def scaled_throttle_backoff(scale: float) -> Iterator[None]:
    """botocore's waits before retrying a throttled call (0.5 s on average, first) times ``scale``:
    which errors it retries, and how often, stay as they are."""
    config: dict[str, float] = ExponentialBackoff._DEFAULT_BACKOFF_CONFIG  # type: ignore[attr-defined]
    saved = dict(config)
    config["throttling_base_scale"] = saved["throttling_base_scale"] * scale
    try:
        yield
    finally:
        config.update(saved)
