"""Notification JWTs (ES256) and the public keys that verify them (JWKS): the `Signer` port and
its in-process adapter (the AWS adapter, ``KmsSigner``, signs with a KMS key).

Every notification carries a JWT the agent signs: ``iss`` (the agent's URL), ``aud`` (the webhook
URL as configured), ``iat``/``exp`` (valid for minutes), ``jti`` (the notification's event id,
the same on every retry of it, so a receiver can drop duplicates), ``taskId`` and
``body_sha256`` (hex SHA-256 of the exact body bytes). The JWS is assembled here and only its
signature comes from a `Signer`, so the private key can stay inside KMS.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from a2a_core.push.der import ecdsa_signature_to_raw

# Only the in-process LocalSigner (dev, tests) needs cryptography: KMS holds the deployed keys and
# its DER answers are read by `a2a_core.push.der`, so the API and push functions ship without it.
if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric import ec

ALGORITHM = "ES256"


class Signer(ABC):
    """Signs JWS inputs with one P-256 key, identified by ``kid``."""

    alg: ClassVar[str] = ALGORITHM
    kid: str

    @abstractmethod
    async def sign(self, signing_input: bytes) -> bytes:
        """The ES256 signature of ``signing_input``: raw ``r || s``, 64 bytes, as JWS wants it."""

    @abstractmethod
    async def public_jwk(self) -> dict[str, Any]:
        """The public key as a JWK with ``kid``, ``alg`` and ``use``; cached by implementations."""


class LocalSigner(Signer):
    """An in-process key for local development and tests (the dev server makes one per run).

    ``kid`` is the key's RFC 7638 thumbprint.
    """

    def __init__(self, private_key: ec.EllipticCurvePrivateKey | None = None) -> None:
        from cryptography.hazmat.primitives.asymmetric import ec

        self._key = private_key or ec.generate_private_key(ec.SECP256R1())
        public = self._key.public_key()
        self.kid = thumbprint(ec_jwk(public, ""))
        self._public = ec_jwk(public, self.kid)

    async def sign(self, signing_input: bytes) -> bytes:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec

        return ecdsa_signature_to_raw(self._key.sign(signing_input, ec.ECDSA(hashes.SHA256())))

    async def public_jwk(self) -> dict[str, Any]:
        return dict(self._public)

    def private_pem(self) -> bytes:
        """The key as unencrypted PKCS#8 PEM, for a local store that keeps it between runs."""
        from cryptography.hazmat.primitives import serialization

        return self._key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )


async def encode_jwt(signer: Signer, claims: dict[str, Any]) -> str:
    """A compact JWS of ``claims`` with header ``{"alg": "ES256", "typ": "JWT", "kid": ...}``."""
    header = {"alg": signer.alg, "typ": "JWT", "kid": signer.kid}
    signing_input = f"{_b64_json(header)}.{_b64_json(claims)}"
    signature = await signer.sign(signing_input.encode("ascii"))
    return f"{signing_input}.{b64url(signature)}"


def notification_claims(
    *, issuer: str, audience: str, event_id: str, task_id: str, body: bytes, now: float, ttl: int
) -> dict[str, Any]:
    issued = int(now)
    return {
        "iss": issuer,
        "aud": audience,
        "iat": issued,
        "exp": issued + ttl,
        "jti": event_id,
        "taskId": task_id,
        "body_sha256": hashlib.sha256(body).hexdigest(),
    }


async def jwks(signers: Iterable[Signer]) -> dict[str, Any]:
    """The JWKS document served at ``/.well-known/jwks.json``: every key a receiver may meet."""
    keys = await asyncio.gather(*(signer.public_jwk() for signer in signers))
    return {"keys": list(keys)}


def thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638 thumbprint of an EC JWK (SHA-256, base64url)."""
    canonical = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"))
    return b64url(hashlib.sha256(canonical.encode()).digest())


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64_json(value: dict[str, Any]) -> str:
    return b64url(json.dumps(value, separators=(",", ":")).encode())


def ec_jwk(key: ec.EllipticCurvePublicKey, kid: str) -> dict[str, Any]:
    numbers = key.public_numbers()
    return point_jwk(numbers.x, numbers.y, kid)


def point_jwk(x: int, y: int, kid: str) -> dict[str, Any]:
    return {
        "kty": "EC",
        "crv": "P-256",
        "x": b64url(x.to_bytes(32, "big")),
        "y": b64url(y.to_bytes(32, "big")),
        "kid": kid,
        "alg": ALGORITHM,
        "use": "sig",
    }
