"""Receiver side: check that a push notification really comes from the agent, unaltered.

A webhook receiver verifies a notification in a few lines::

    from a2a_core.push.verify import RemoteJwks, verify_notification

    jwks = RemoteJwks("https://agent.example.com/.well-known/jwks.json")  # once, at start-up
    agent, hook = "https://agent.example.com/", "https://hooks.example.com/a2a"  # iss and aud
    claims = verify_notification(headers, body, jwks=jwks, audience=hook, issuer=agent, expected_token=token)

It checks the ES256 signature against the agent's published key (by ``kid``; an unknown kid makes
`RemoteJwks` fetch again, so rotated keys work), ``iss``, ``aud``, ``exp``, the token's age
(``iat``), the SHA-256 of the body bytes, the notification id, and the
``X-A2A-Notification-Token`` when one is expected. Failures raise a `NotificationRejectedError`
subclass saying what was wrong. This module needs only ``joserfc`` (and ``httpx`` for
`RemoteJwks`), nothing of the server.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from joserfc import jws
from joserfc.errors import JoseError
from joserfc.jwk import ECKey

ALGORITHM = "ES256"
SIGNATURE_HEADER = "x-a2a-signature"
TOKEN_HEADER = "x-a2a-notification-token"  # noqa: S105 (a header name)
ID_HEADER = "x-a2a-notification-id"

JwksDocument = Mapping[str, Any]
# A JWKS document, or a source of one: called with refresh=True when a kid is not in it.
JwksSource = JwksDocument | Callable[[bool], JwksDocument]


class NotificationRejectedError(Exception):
    """The notification must not be trusted; the message says why."""


class MissingSignatureError(NotificationRejectedError):
    pass


class InvalidSignatureError(NotificationRejectedError):
    pass


class InvalidClaimsError(NotificationRejectedError):
    pass


class BodyMismatchError(NotificationRejectedError):
    pass


class TokenMismatchError(NotificationRejectedError):
    pass


def verify_notification(
    headers: Mapping[str, str],
    body: bytes,
    *,
    jwks: JwksSource,
    audience: str,
    issuer: str,
    max_age: float = 300.0,
    expected_token: str | None = None,
    leeway: float = 30.0,
    now: Callable[[], float] = time.time,
) -> dict[str, Any]:
    """The notification's verified JWT claims; raises `NotificationRejectedError` otherwise.

    ``headers`` is any mapping of the request headers (case does not matter); ``body`` the raw
    request body bytes, exactly as received (parse it only after this returns). ``audience`` is
    your webhook URL exactly as you configured it; ``issuer`` the agent's URL.
    """
    lower = {key.lower(): value for key, value in headers.items()}
    if expected_token is not None:
        received = lower.get(TOKEN_HEADER, "")
        if not hmac.compare_digest(received.encode(), expected_token.encode()):
            raise TokenMismatchError("X-A2A-Notification-Token is missing or wrong")
    token = _token(lower)
    header = _header(token)
    key = _key(jwks, header["kid"])
    try:
        payload = jws.deserialize_compact(token, key, algorithms=[ALGORITHM]).payload
    except JoseError as error:
        raise InvalidSignatureError(f"signature does not verify: {error}") from None
    try:
        claims = json.loads(payload)
    except ValueError:
        raise InvalidClaimsError("JWT payload is not JSON") from None
    if not isinstance(claims, dict):
        raise InvalidClaimsError("JWT payload is not a JSON object")
    _check_claims(claims, audience=audience, issuer=issuer, max_age=max_age, leeway=leeway, now=now())
    if not hmac.compare_digest(str(claims.get("body_sha256", "")), hashlib.sha256(body).hexdigest()):
        raise BodyMismatchError("the body does not match the signed body_sha256")
    notification_id = lower.get(ID_HEADER)
    if notification_id is not None and notification_id != claims["jti"]:
        raise InvalidClaimsError("X-A2A-Notification-Id does not match the signed jti")
    return claims


class RemoteJwks:
    """The agent's JWKS fetched over HTTPS, cached for ``ttl`` seconds; thread-safe.

    Called with ``refresh=True`` (the verifier does, on an unknown kid) it fetches again, at most
    once per ``min_refresh`` seconds so forged kids cannot make it hammer the agent.
    """

    def __init__(
        self, url: str, *, ttl: float = 300.0, min_refresh: float = 10.0, timeout: float = 5.0
    ) -> None:
        self.url = url
        self.ttl = ttl
        self.min_refresh = min_refresh
        self.timeout = timeout
        self._lock = threading.Lock()
        self._document: JwksDocument = {"keys": []}
        self._fetched = float("-inf")

    def __call__(self, refresh: bool = False) -> JwksDocument:
        with self._lock:
            age = time.monotonic() - self._fetched
            if age > self.ttl or (refresh and age > self.min_refresh):
                self._document = self._fetch()
                self._fetched = time.monotonic()
            return self._document

    def _fetch(self) -> JwksDocument:
        import httpx

        response = httpx.get(self.url, timeout=self.timeout, follow_redirects=False)
        response.raise_for_status()
        document = response.json()
        if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
            raise NotificationRejectedError(f"{self.url} did not return a JWKS document")
        return document


def _token(headers: Mapping[str, str]) -> str:
    token = headers.get(SIGNATURE_HEADER)
    if token is None:
        scheme, _, value = headers.get("authorization", "").partition(" ")
        token = value.strip() if scheme.lower() == "bearer" else None
    if not token:
        raise MissingSignatureError("no agent JWT in X-A2A-Signature or Authorization: Bearer")
    return token


def _header(token: str) -> dict[str, Any]:
    try:
        encoded = token.split(".")[0]
        header = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    except (ValueError, IndexError):
        raise InvalidSignatureError("the JWT header cannot be read") from None
    if not isinstance(header, dict):
        raise InvalidSignatureError("the JWT header is not a JSON object")
    if header.get("alg") != ALGORITHM:
        raise InvalidSignatureError(f"JWT alg {header.get('alg')!r} is not {ALGORITHM}")
    if not isinstance(header.get("kid"), str):
        raise InvalidSignatureError("the JWT header has no kid")
    return header


def _key(source: JwksSource, kid: str) -> ECKey:
    document = source(False) if callable(source) else source
    jwk = _find(document, kid)
    if jwk is None and callable(source):
        jwk = _find(source(True), kid)
    if jwk is None:
        raise InvalidSignatureError(f"kid {kid!r} is not among the agent's published keys")
    try:
        return ECKey.import_key(jwk)
    except (JoseError, ValueError) as error:
        raise InvalidSignatureError(f"published key {kid!r} is not a usable EC key: {error}") from None


def _find(document: JwksDocument, kid: str) -> dict[str, Any] | None:
    keys = document.get("keys")
    if not isinstance(keys, list):
        return None
    return next((k for k in keys if isinstance(k, dict) and k.get("kid") == kid), None)


def _check_claims(
    claims: dict[str, Any], *, audience: str, issuer: str, max_age: float, leeway: float, now: float
) -> None:
    if claims.get("iss") != issuer:
        raise InvalidClaimsError(f"iss {claims.get('iss')!r} is not the expected issuer {issuer!r}")
    aud = claims.get("aud")
    if aud != audience and not (isinstance(aud, list) and audience in aud):
        raise InvalidClaimsError(f"aud {aud!r} is not this webhook ({audience!r})")
    exp, iat = claims.get("exp"), claims.get("iat")
    if not isinstance(exp, int | float) or not isinstance(iat, int | float):
        raise InvalidClaimsError("the JWT lacks numeric exp and iat")
    if now > exp + leeway:
        raise InvalidClaimsError("the JWT has expired")
    if iat > now + leeway:
        raise InvalidClaimsError("the JWT was issued in the future")
    if now - iat > max_age + leeway:
        raise InvalidClaimsError(f"the JWT is older than {max_age:.0f} s")
    for name in ("jti", "taskId", "body_sha256"):
        if not isinstance(claims.get(name), str):
            raise InvalidClaimsError(f"the JWT lacks the {name} claim")
