"""What the Lambda runtime hands an API function: API Gateway proxy events and a context object.

Shared by the benchmarks that call a handler in process (`warm_latency`, `aws_cost`): REST API
events (payload 1.0, Mangum's ``APIGateway`` handler) and HTTP API events (payload 2.0), for any
method and path, with extra headers (``A2A-Version`` for the 1.0 bindings).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

DOMAIN = "abc123def4.execute-api.us-east-1.amazonaws.com"
API_ID = DOMAIN.split(".")[0]


@dataclass
class FakeLambdaContext:
    """What the Lambda runtime passes as ``context`` (the attributes Mangum's types declare)."""

    aws_request_id: str = "00000000-0000-0000-0000-000000000000"
    function_name: str = "a2a-api"
    function_version: str = "$LATEST"
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:a2a-api"
    memory_limit_in_mb: int = 1024
    log_group_name: str = "/aws/lambda/a2a-api"
    log_stream_name: str = "2025/01/01/[$LATEST]0123456789abcdef0123456789abcdef"
    identity: Any = None
    client_context: Any = None
    deadline_ms: int = field(default_factory=lambda: int(time.time() * 1000) + 30_000)

    def get_remaining_time_in_millis(self) -> int:
        return max(0, self.deadline_ms - int(time.time() * 1000))


def _headers(request_id: str, extra: Mapping[str, str]) -> dict[str, str]:
    return {
        "accept": "application/json",
        "content-type": "application/json",
        "Host": DOMAIN,
        "User-Agent": "a2a-bench/1.0",
        "X-Amzn-Trace-Id": f"Root=1-00000000-{request_id.replace('-', '')[:24]}",
        "X-Forwarded-For": "203.0.113.10",
        "X-Forwarded-Port": "443",
        "X-Forwarded-Proto": "https",
        **extra,
    }


def rest_event(
    body: dict[str, Any] | None,
    request_id: str,
    *,
    method: str = "POST",
    path: str = "/",
    headers: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """An API Gateway REST API proxy-integration event (payload format 1.0). Paths other than
    ``/`` come through the stack's ``{proxy+}`` resource, as API Gateway would route them."""
    all_headers = _headers(request_id, headers or {})
    if body is None:
        all_headers.pop("content-type")
    resource = "/" if path == "/" else "/{proxy+}"
    now = time.time()
    return {
        "resource": resource,
        "path": path,
        "httpMethod": method,
        "headers": all_headers,
        "multiValueHeaders": {name: [value] for name, value in all_headers.items()},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": None if path == "/" else {"proxy": path.lstrip("/")},
        "stageVariables": None,
        "requestContext": {
            "resourceId": "abcdef1234",
            "resourcePath": resource,
            "httpMethod": method,
            "extendedRequestId": request_id[:16],
            "requestTime": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "path": f"/prod{path}",
            "accountId": "123456789012",
            "protocol": "HTTP/1.1",
            "stage": "prod",
            "domainPrefix": API_ID,
            "requestTimeEpoch": int(now * 1000),
            "requestId": request_id,
            "identity": {"sourceIp": "203.0.113.10", "userAgent": "a2a-bench/1.0"},
            "domainName": DOMAIN,
            "apiId": API_ID,
        },
        "body": None if body is None else json.dumps(body),
        "isBase64Encoded": False,
    }


def http_event(body: dict[str, Any], request_id: str) -> dict[str, Any]:
    """An API Gateway HTTP API proxy-integration event (payload format 2.0) for ``POST /``."""
    now = time.time()
    return {
        "version": "2.0",
        "routeKey": "ANY /",
        "rawPath": "/",
        "rawQueryString": "",
        "headers": {
            "accept": "application/json",
            "content-type": "application/json",
            "host": DOMAIN,
            "user-agent": "a2a-bench/1.0",
            "x-amzn-trace-id": f"Root=1-00000000-{request_id.replace('-', '')[:24]}",
            "x-forwarded-for": "203.0.113.10",
            "x-forwarded-port": "443",
            "x-forwarded-proto": "https",
        },
        "requestContext": {
            "accountId": "123456789012",
            "apiId": API_ID,
            "domainName": DOMAIN,
            "domainPrefix": API_ID,
            "http": {
                "method": "POST",
                "path": "/",
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.10",
                "userAgent": "a2a-bench/1.0",
            },
            "requestId": request_id,
            "routeKey": "ANY /",
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
        },
        "body": json.dumps(body),
        "isBase64Encoded": False,
    }
