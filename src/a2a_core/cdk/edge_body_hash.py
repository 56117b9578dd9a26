"""Lambda@Edge, origin request: the SHA-256 of the body, for a function URL behind CloudFront.

CloudFront signs what it sends a function URL with origin access control (SigV4), and Lambda
accepts no unsigned payload: a POST must carry ``x-amz-content-sha256``, which CloudFront does not
compute. Clients that are not AWS-aware never send it, so this trigger adds it, just before
CloudFront signs the request. CloudFront hands an origin-request trigger at most 1 MB of the body;
a larger one cannot be hashed and is answered here with the app's own refusal of a body over its
limit (a JSON-RPC error, HTTP 200).

Deployed as inline code (self-contained, standard library only); `a2a_core.cdk.edge` reads this file.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

HEADER = "x-amz-content-sha256"
# What CloudFront exposes to an origin-request trigger that includes the body.
MAX_BODY_BYTES = 1024 * 1024


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    request: dict[str, Any] = event["Records"][0]["cf"]["request"]
    body = request.get("body") or {}
    if body.get("inputTruncated"):
        return too_large()
    data = body.get("data") or ""
    raw = base64.b64decode(data) if body.get("encoding") == "base64" else data.encode()
    request["headers"][HEADER] = [{"key": HEADER, "value": hashlib.sha256(raw).hexdigest()}]
    return request


def too_large() -> dict[str, Any]:
    error = {
        "code": -32600,
        "message": f"Request body exceeds the {MAX_BODY_BYTES}-byte limit",
        "data": {"maxBodyBytes": MAX_BODY_BYTES},
    }
    return {
        "status": "200",
        "statusDescription": "OK",
        "headers": {"content-type": [{"key": "Content-Type", "value": "application/json"}]},
        "body": json.dumps({"jsonrpc": "2.0", "id": None, "error": error}),
    }
