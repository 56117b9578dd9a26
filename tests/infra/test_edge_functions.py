"""The two edge functions in front of the function URL, run on the events CloudFront sends them:
the Lambda@Edge body hash (Python, imported as deployed) and the viewer-request CloudFront
Function (JavaScript, run by Node)."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import shutil
import subprocess
from typing import Any

import pytest

from a2a_core.cdk import edge_body_hash
from a2a_core.cdk.edge import BODY_HASH_SOURCE, VIEWER_REQUEST

BODY = b'{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"parts":[]}}}'


def origin_request(body: dict[str, Any] | None, method: str = "POST") -> dict[str, Any]:
    """An origin-request event with the body included, as CloudFront sends it."""
    request: dict[str, Any] = {
        "clientIp": "203.0.113.10",
        "method": method,
        "uri": "/",
        "querystring": "",
        "headers": {"host": [{"key": "Host", "value": "abc.lambda-url.us-east-1.on.aws"}]},
    }
    if body is not None:
        request["body"] = body
    return {"Records": [{"cf": {"config": {"eventType": "origin-request"}, "request": request}}]}


def sha256_header(result: dict[str, Any]) -> str:
    (header,) = result["headers"]["x-amz-content-sha256"]
    assert header["key"] == "x-amz-content-sha256"
    return str(header["value"])


@pytest.mark.parametrize(
    "body",
    [
        {
            "inputTruncated": False,
            "action": "read-only",
            "encoding": "base64",
            "data": base64.b64encode(BODY).decode(),
        },
        {"inputTruncated": False, "action": "read-only", "encoding": "text", "data": BODY.decode()},
    ],
)
def test_the_body_hash_is_added_before_cloudfront_signs(body: dict[str, Any]) -> None:
    event = origin_request(body)
    result = edge_body_hash.handler(copy.deepcopy(event), None)
    assert sha256_header(result) == hashlib.sha256(BODY).hexdigest()
    # Nothing else changes: the request goes on as it came.
    result["headers"].pop("x-amz-content-sha256")
    assert result == event["Records"][0]["cf"]["request"]


def test_a_request_without_a_body_gets_the_empty_hash() -> None:
    result = edge_body_hash.handler(origin_request(None, method="GET"), None)
    assert sha256_header(result) == hashlib.sha256(b"").hexdigest()


def test_a_viewers_own_hash_is_replaced_by_the_real_one() -> None:
    event = origin_request({"encoding": "text", "data": BODY.decode(), "inputTruncated": False})
    event["Records"][0]["cf"]["request"]["headers"]["x-amz-content-sha256"] = [
        {"key": "x-amz-content-sha256", "value": "0" * 64}
    ]
    assert sha256_header(edge_body_hash.handler(event, None)) == hashlib.sha256(BODY).hexdigest()


def test_a_body_cloudfront_truncated_is_refused_as_the_app_refuses_large_bodies() -> None:
    event = origin_request({"inputTruncated": True, "encoding": "base64", "data": "AAAA"})
    response = edge_body_hash.handler(event, None)
    assert response["status"] == "200"  # JSON-RPC errors travel with HTTP 200
    assert json.loads(response["body"]) == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32600,
            "message": "Request body exceeds the 1048576-byte limit",
            "data": {"maxBodyBytes": 1048576},
        },
    }


def test_the_deployed_source_is_small_enough_to_inline() -> None:
    # CloudFormation's inline ZipFile code stops at 4 KB.
    assert len(BODY_HASH_SOURCE.read_bytes()) < 4096


def run_viewer_request(headers: dict[str, dict[str, str]]) -> dict[str, Any]:
    node = shutil.which("node")
    assert node, "node is needed (make setup installs the CDK CLI with it)"
    event = {
        "version": "1.0",
        "context": {"eventType": "viewer-request"},
        "request": {"method": "POST", "uri": "/", "headers": headers},
    }
    script = f"{VIEWER_REQUEST}\nprocess.stdout.write(JSON.stringify(handler({json.dumps(event)})));"
    result = subprocess.run([node, "-e", script], capture_output=True, text=True, check=True, timeout=30)  # noqa: S603
    request: dict[str, Any] = json.loads(result.stdout)
    return request


def test_the_viewer_request_moves_a_bearer_token_out_of_the_signed_header() -> None:
    request = run_viewer_request(
        {"host": {"value": "agent.example.com"}, "authorization": {"value": "Bearer eyJ.token"}}
    )
    assert request["headers"] == {
        "host": {"value": "agent.example.com"},
        "x-forwarded-host": {"value": "agent.example.com"},
        "x-a2a-authorization": {"value": "Bearer eyJ.token"},
    }


def test_the_viewer_request_leaves_api_keys_alone() -> None:
    request = run_viewer_request({"host": {"value": "d111.cloudfront.net"}, "x-api-key": {"value": "a2a_k"}})
    assert request["headers"] == {
        "host": {"value": "d111.cloudfront.net"},
        "x-forwarded-host": {"value": "d111.cloudfront.net"},
        "x-api-key": {"value": "a2a_k"},
    }
