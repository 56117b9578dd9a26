"""AWS Signature Version 4 for the JSON protocol's requests (`a2a_core.aws.json_client`).

The same signature botocore's ``SigV4Auth`` computes for a request with these headers at this
time (a test compares the two): a JSON-protocol request is a POST to ``/`` with no query string,
so the canonical request is the method, ``/``, the signed headers and the body's SHA-256.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import NamedTuple

ALGORITHM = "AWS4-HMAC-SHA256"


class Credentials(NamedTuple):
    access_key: str
    secret_key: str
    token: str | None = None


def sign(
    credentials: Credentials,
    *,
    region: str,
    service: str,
    host: str,
    headers: Mapping[str, str],
    body: bytes,
    amz_date: str,
) -> dict[str, str]:
    """``headers`` with ``Host``, ``X-Amz-Date``, ``X-Amz-Security-Token`` (temporary
    credentials) and ``Authorization`` added: every header given is signed. ``amz_date`` is the
    request time as ``YYYYMMDDTHHMMSSZ`` (UTC); ``host`` the URL's host (with a non-default port)."""
    signed = {**headers, "Host": host, "X-Amz-Date": amz_date}
    if credentials.token:
        signed["X-Amz-Security-Token"] = credentials.token
    canonical = {name.lower(): " ".join(value.split()) for name, value in signed.items()}
    names = ";".join(sorted(canonical))
    request = "\n".join(
        [
            "POST",
            "/",
            "",
            "".join(f"{name}:{canonical[name]}\n" for name in sorted(canonical)),
            names,
            hashlib.sha256(body).hexdigest(),
        ]
    )
    scope = f"{amz_date[:8]}/{region}/{service}/aws4_request"
    to_sign = f"{ALGORITHM}\n{amz_date}\n{scope}\n{hashlib.sha256(request.encode()).hexdigest()}"
    key = _signing_key(credentials.secret_key, amz_date[:8], region, service)
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    signed["Authorization"] = ", ".join(
        [
            f"{ALGORITHM} Credential={credentials.access_key}/{scope}",
            f"SignedHeaders={names}",
            f"Signature={signature}",
        ]
    )
    return signed


def _signing_key(secret: str, date: str, region: str, service: str) -> bytes:
    key = f"AWS4{secret}".encode()
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key
