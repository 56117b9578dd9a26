"""The shipped receiver-side verifier against JWTs made by the agent's signer."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import pytest

from a2a_core.push.signing import LocalSigner, encode_jwt, jwks, notification_claims
from a2a_core.push.verify import (
    BodyMismatchError,
    InvalidClaimsError,
    InvalidSignatureError,
    MissingSignatureError,
    TokenMismatchError,
    verify_notification,
)

pytestmark = pytest.mark.anyio

ISSUER = "https://agent.example.com/"
HOOK = "https://hooks.example.com/a2a"
BODY = b'{"id":"t1","kind":"task"}'


async def signed(
    signer: LocalSigner, body: bytes = BODY, *, now: float | None = None, **overrides: Any
) -> str:
    claims = notification_claims(
        issuer=ISSUER,
        audience=HOOK,
        event_id="t1:7",
        task_id="t1",
        body=body,
        now=time.time() if now is None else now,
        ttl=300,
    )
    return await encode_jwt(signer, {**claims, **overrides})


def verify(headers: dict[str, str], body: bytes, keys: dict[str, Any], **options: Any) -> dict[str, Any]:
    return verify_notification(headers, body, jwks=keys, audience=HOOK, issuer=ISSUER, **options)


async def test_a_genuine_notification_verifies_from_either_header() -> None:
    signer = LocalSigner()
    keys = await jwks([signer])
    token = await signed(signer)
    for headers in (
        {"Authorization": f"Bearer {token}"},
        {"x-a2a-signature": token, "Authorization": "Basic x"},
    ):
        claims = verify(headers | {"X-A2A-Notification-Id": "t1:7"}, BODY, keys)
        assert claims["jti"] == "t1:7"
        assert claims["taskId"] == "t1"
        assert claims["exp"] - claims["iat"] == 300


async def test_the_jwt_header_names_the_published_key() -> None:
    signer = LocalSigner()
    header = json.loads(base64.urlsafe_b64decode((await signed(signer)).split(".")[0] + "=="))
    assert header == {"alg": "ES256", "typ": "JWT", "kid": signer.kid}
    [published] = (await jwks([signer]))["keys"]
    assert published == await signer.public_jwk()
    assert {k: published[k] for k in ("kty", "crv", "kid", "alg", "use")} == {
        "kty": "EC",
        "crv": "P-256",
        "kid": signer.kid,
        "alg": "ES256",
        "use": "sig",
    }


async def test_a_changed_body_or_token_or_signature_is_rejected() -> None:
    signer = LocalSigner()
    keys = await jwks([signer])
    token = await signed(signer)
    with pytest.raises(BodyMismatchError):
        verify({"Authorization": f"Bearer {token}"}, BODY.replace(b"t1", b"t2"), keys)
    with pytest.raises(TokenMismatchError):
        verify(
            {"Authorization": f"Bearer {token}", "X-A2A-Notification-Token": "guess"},
            BODY,
            keys,
            expected_token="s3cret",
        )
    with pytest.raises(TokenMismatchError):
        verify({"Authorization": f"Bearer {token}"}, BODY, keys, expected_token="s3cret")
    forged = await signed(LocalSigner())  # another key claiming to be ours
    forged = ".".join([token.split(".")[0], *forged.split(".")[1:]])
    with pytest.raises(InvalidSignatureError, match="does not verify"):
        verify({"Authorization": f"Bearer {forged}"}, BODY, keys)
    with pytest.raises(MissingSignatureError):
        verify({}, BODY, keys)


async def test_claims_for_someone_else_or_out_of_date_are_rejected() -> None:
    signer = LocalSigner()
    keys = await jwks([signer])
    cases = [
        (await signed(signer, aud="https://other.example.com/"), "aud"),
        (await signed(signer, iss="https://impostor.example.com/"), "iss"),
        (await signed(signer, now=time.time() - 3600), "expired"),
        (await signed(signer, now=time.time() - 200, exp=time.time() + 600), "older than 60"),
        (await signed(signer, now=time.time() + 600), "future"),
    ]
    for token, reason in cases:
        with pytest.raises(InvalidClaimsError, match=reason):
            verify({"Authorization": f"Bearer {token}"}, BODY, keys, max_age=60, leeway=5)
    token = await signed(signer)
    with pytest.raises(InvalidClaimsError, match="Notification-Id"):
        verify({"Authorization": f"Bearer {token}", "X-A2A-Notification-Id": "t1:8"}, BODY, keys)


async def test_unsigned_or_symmetric_tokens_are_rejected() -> None:
    signer = LocalSigner()
    keys = await jwks([signer])
    payload = (await signed(signer)).split(".")[1]
    for alg in ("none", "HS256"):
        header = base64.urlsafe_b64encode(json.dumps({"alg": alg, "kid": signer.kid}).encode()).rstrip(b"=")
        with pytest.raises(InvalidSignatureError, match="alg"):
            verify({"Authorization": f"Bearer {header.decode()}.{payload}."}, BODY, keys)


async def test_an_unknown_kid_refreshes_the_key_source_once_so_rotated_keys_verify() -> None:
    old, new = LocalSigner(), LocalSigner()
    documents = [await jwks([old]), await jwks([old, new])]
    calls: list[bool] = []

    def source(refresh: bool) -> dict[str, Any]:
        calls.append(refresh)
        return documents[1] if refresh else documents[0]

    token = await signed(new)
    assert (
        verify_notification(
            {"Authorization": f"Bearer {token}"}, BODY, jwks=source, audience=HOOK, issuer=ISSUER
        )["jti"]
        == "t1:7"
    )
    assert calls == [False, True]
    with pytest.raises(InvalidSignatureError, match="not among"):
        verify({"Authorization": f"Bearer {await signed(LocalSigner())}"}, BODY, documents[1])
