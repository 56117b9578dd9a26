"""A small client for the AWS services on the request path: DynamoDB, SQS and KMS (and Secrets
Manager and SSM, which the worker reads its secrets from at cold start).

All of them speak AWS's JSON protocol: a signed POST to ``/`` naming the operation in
``X-Amz-Target`` (``DynamoDB_20120810.PutItem``, ``AmazonSQS.SendMessage``, ``TrentService.Sign``,
``secretsmanager.GetSecretValue``) with the operation's parameters as the JSON body, and the
result, or an error, as JSON back. `AwsJsonClient` takes and returns exactly what botocore's
low-level client for the service does (``client.put_item(TableName=..., Item=...)`` -> the parsed
answer, with ``ResponseMetadata``; blobs as bytes), so the adapters cannot tell them apart. It
costs a few milliseconds of a cold start where importing botocore and building its two clients
cost ~90 (`bench/botocore_steps.py`, `bench/cold_start.py`).

Like botocore's ``standard`` retry mode: up to ``max_attempts`` attempts; throttling (those error
codes, HTTP 429), transient errors (HTTP 500/502/503/504, ``RequestTimeout``..., no answer) and a
DynamoDB answer whose CRC32 does not match are retried after ``rand(0, 1) * min(scale * 2 **
(attempt - 1), 20)`` seconds (scale 1 s for throttling, 50 ms otherwise, 25 ms for DynamoDB),
or the ``x-amz-retry-after`` the service asks for; a retry quota (500, 5 per throttling retry,
14 per other, 1 back per success) stops retry storms. Each attempt is signed anew. Errors are
`a2a_core.aws.errors`' (``AwsServiceError.response`` as botocore's ``ClientError.response``).

Hooks, for benchmarks and fault injection: each of ``before_call`` may answer instead of AWS
(``(operation, params) -> response or None``; a response with ``Error`` is raised), each of
``after_call`` sees the parsed answer, and ``transport`` sends every attempt.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import random
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from a2a_core.aws.credentials import CredentialChain
from a2a_core.aws.errors import AwsConnectionError, AwsServiceError
from a2a_core.aws.http_pool import HttpPool, HttpResponse
from a2a_core.aws.sigv4 import sign


@dataclass(frozen=True)
class Service:
    name: str  # the endpoint's prefix and the signing name
    target: str  # X-Amz-Target's prefix
    json_version: str  # application/x-amz-json-<this>
    blobs: frozenset[str] = frozenset()  # top-level answer fields that are base64 blobs


SERVICES = {
    "dynamodb": Service("dynamodb", "DynamoDB_20120810", "1.0"),
    "sqs": Service("sqs", "AmazonSQS", "1.0"),
    "kms": Service("kms", "TrentService", "1.1", frozenset({"Signature", "PublicKey", "Plaintext"})),
    # The worker's secrets, read once per cold start (a2a_core.aws.secrets).
    "secretsmanager": Service("secretsmanager", "secretsmanager", "1.1", frozenset({"SecretBinary"})),
    "ssm": Service("ssm", "AmazonSSM", "1.1"),
    # RunTask, from the run queue's consumer, for turns longer than Lambda allows (ecs_launcher).
    "ecs": Service("ecs", "AmazonEC2ContainerServiceV20141113", "1.1"),
}
THROTTLING_CODES = frozenset(
    {
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "RequestThrottledException",
        "TooManyRequestsException",
        "ProvisionedThroughputExceededException",
        "TransactionInProgressException",
        "RequestLimitExceeded",
        "BandwidthLimitExceeded",
        "LimitExceededException",
        "RequestThrottled",
        "SlowDown",
        "PriorRequestNotComplete",
        "EC2ThrottledException",
    }
)
TRANSIENT_CODES = frozenset({"RequestTimeout", "RequestTimeoutException", "PriorRequestNotComplete"})
TRANSIENT_STATUS = frozenset({500, 502, 503, 504})
# The backoff's scale in seconds (a test may shorten it, as botocore's can be).
BACKOFF = {"throttling": 1.0, "transient": 0.05, "dynamodb": 0.025, "max": 20.0}
USER_AGENT = "a2a-serverless"
_sleep = time.sleep  # between attempts (calls run in threads)
# botocore clients' attributes that are not operations: asking for one finds botocore's missing.
_BOTOCORE_ONLY = frozenset({"meta", "exceptions", "close", "can_paginate", "get_paginator", "get_waiter"})

Transport = Callable[[str, dict[str, str], bytes], HttpResponse]
BeforeCall = Callable[[str, dict[str, Any]], "dict[str, Any] | None"]
AfterCall = Callable[[str, dict[str, Any], dict[str, Any]], None]


class AwsJsonClient:
    def __init__(
        self,
        service: str,
        region: str,
        endpoint_url: str,
        *,
        credentials: CredentialChain | None = None,
        connect_timeout: float = 2,
        read_timeout: float = 10,
        max_attempts: int = 4,
    ) -> None:
        self.service = SERVICES[service]
        self.region = region
        self.endpoint_url = endpoint_url
        self.credentials = credentials or CredentialChain()
        self.max_attempts = max_attempts
        self.pool = HttpPool(endpoint_url, connect_timeout=connect_timeout, read_timeout=read_timeout)
        self.transport: Transport = self.pool.send
        self.before_call: list[BeforeCall] = []
        self.after_call: list[AfterCall] = []
        self._quota = _RetryQuota()

    def __getattr__(self, name: str) -> Callable[..., dict[str, Any]]:
        """``client.put_item(**params)``: the operation ``PutItem``, as botocore names methods."""
        if name.startswith("_") or name in _BOTOCORE_ONLY:
            raise AttributeError(f"{type(self).__name__} has no {name!r} (botocore's clients have)")
        operation = "".join(word.capitalize() for word in name.split("_"))

        def call(**params: Any) -> dict[str, Any]:
            return self.call(operation, params)

        call.__name__ = name
        return call

    def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        for hook in self.before_call:
            answer = hook(operation, params)
            if answer is not None:
                return self._finish(operation, params, answer)
        body = json.dumps(params, separators=(",", ":"), default=_base64).encode()
        headers = {
            "Content-Type": f"application/x-amz-json-{self.service.json_version}",
            "X-Amz-Target": f"{self.service.target}.{operation}",
        }
        attempt = 1
        while True:
            answer, retry_after, throttled = self._attempt(operation, headers, body, attempt)
            if retry_after is None or attempt >= self.max_attempts or not self._quota.take(throttled):
                break
            _sleep(retry_after)
            attempt += 1
        if "Error" not in answer:
            self._quota.give(attempt)
        return self._finish(operation, params, answer)

    def reset(self) -> None:
        """Forget the open connections and the credentials found (after a SnapStart restore)."""
        self.pool.reset()
        self.credentials.reset()

    def _attempt(
        self, operation: str, headers: dict[str, str], body: bytes, attempt: int
    ) -> tuple[dict[str, Any], float | None, bool]:
        """One signed request: (the answer, the delay before a retry or None, throttled)."""
        signed = sign(
            self.credentials(),
            region=self.region,
            service=self.service.name,
            host=self.pool.netloc,
            headers=headers,
            body=body,
            amz_date=time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()),
        )
        signed["User-Agent"] = USER_AGENT  # unsigned, as botocore leaves it: proxies may rewrite it
        trace = os.environ.get("_X_AMZN_TRACE_ID")  # the invocation's, set by the Lambda runtime
        if trace and "AWS_LAMBDA_FUNCTION_NAME" in os.environ:
            # As botocore does: SQS hands the trace on to the worker (AWSTraceHeader), which joins
            # the API request's X-Ray trace, and Lambda's loop detection follows it.
            signed["X-Amzn-Trace-Id"] = quote(trace, safe="-=;:+&[]{}\"',")
        try:
            response = self.transport("POST", signed, body)
        except (OSError, http.client.HTTPException) as error:  # unreachable, reset, timed out, garbled
            failure = {"Error": {"Code": type(error).__name__, "Message": str(error)}, "_no_answer": True}
            return failure, self._delay(attempt, throttled=False), False
        answer = self._parse(response, attempt)
        code = answer.get("Error", {}).get("Code")
        if code is None:
            return answer, None, False
        throttled = code in THROTTLING_CODES or response.status == 429
        transient = code in TRANSIENT_CODES or response.status in TRANSIENT_STATUS or code == "CRC32Mismatch"
        if not (throttled or transient):
            return answer, None, False
        delay = self._delay(attempt, throttled=throttled)
        asked = response.headers.get("x-amz-retry-after")
        if asked is not None and asked.isdigit():
            delay = max(delay, min(int(asked) / 1000, delay + 5))
        return answer, delay, throttled

    def _parse(self, response: HttpResponse, attempt: int) -> dict[str, Any]:
        metadata = {
            "RequestId": response.headers.get("x-amzn-requestid", ""),
            "HTTPStatusCode": response.status,
            "HTTPHeaders": response.headers,
            "RetryAttempts": attempt - 1,
        }
        expected = response.headers.get("x-amz-crc32")
        if expected is not None and expected.isdigit() and zlib.crc32(response.body) != int(expected):
            error = {"Code": "CRC32Mismatch", "Message": "the answer's CRC32 does not match its body"}
            return {"Error": error, "ResponseMetadata": metadata}
        try:
            parsed: dict[str, Any] = json.loads(response.body) if response.body else {}
        except ValueError:
            parsed = {}
        if response.status < 300:
            return {**self._blobs(parsed), "ResponseMetadata": metadata}
        kind = str(parsed.pop("__type", "") or parsed.pop("code", "") or response.status)
        message = parsed.pop("message", None) or parsed.pop("Message", None) or ""
        error = {"Code": kind.rpartition("#")[2], "Message": message}
        # SQS answers in JSON for clients of its older query protocol too: its query error code.
        query_error = response.headers.get("x-amzn-query-error")
        if query_error:
            error["QueryErrorCode"] = error["Code"]
            error["Code"], _, error["Type"] = query_error.partition(";")
        return {**self._blobs(parsed), "Error": error, "ResponseMetadata": metadata}

    def _blobs(self, parsed: dict[str, Any]) -> dict[str, Any]:
        if self.service.name == "dynamodb":
            return {key: _attribute_blobs(value) for key, value in parsed.items()}
        for key in self.service.blobs & parsed.keys():
            parsed[key] = base64.b64decode(parsed[key])
        return parsed

    def _delay(self, attempt: int, *, throttled: bool) -> float:
        if throttled:
            scale = BACKOFF["throttling"]
        else:
            scale = BACKOFF["dynamodb"] if self.service.name == "dynamodb" else BACKOFF["transient"]
        ceiling: float = min(scale * 2 ** (attempt - 1), BACKOFF["max"])
        return random.random() * ceiling  # noqa: S311 (jitter, not secrecy)

    def _finish(self, operation: str, params: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        no_answer = answer.pop("_no_answer", False)
        for hook in self.after_call:
            hook(operation, params, answer)
        if no_answer:
            error = answer["Error"]
            raise AwsConnectionError(
                f"{operation} on {self.endpoint_url}: {error['Code']}: {error['Message']}"
            )
        if "Error" in answer:
            raise AwsServiceError(operation, answer)
        return answer


class _RetryQuota:
    """botocore's retry quota: retries draw from 500; a call that succeeds gives 1 back, or, after
    retries, what its last retry drew."""

    def __init__(self, capacity: int = 500) -> None:
        self._capacity = self._left = capacity
        self._last_cost = threading.local()
        self._lock = threading.Lock()

    def take(self, throttled: bool) -> bool:
        cost = 5 if throttled else 14
        with self._lock:
            if self._left < cost:
                return False
            self._left -= cost
        self._last_cost.value = cost
        return True

    def give(self, attempts: int) -> None:
        back = 1 if attempts == 1 else getattr(self._last_cost, "value", 1)
        with self._lock:
            self._left = min(self._capacity, self._left + back)


def _base64(value: object) -> str:
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _attribute_blobs(value: Any) -> Any:
    """DynamoDB's answer with its binary attribute values (``B``, ``BS``) as bytes."""
    if isinstance(value, dict):
        if len(value) == 1:
            ((kind, inner),) = value.items()
            if kind == "B" and isinstance(inner, str):
                return {"B": base64.b64decode(inner)}
            if kind == "BS" and isinstance(inner, list):
                return {"BS": [base64.b64decode(item) for item in inner]}
        return {key: _attribute_blobs(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_attribute_blobs(item) for item in value]
    return value
