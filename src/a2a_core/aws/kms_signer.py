"""`Signer` on AWS KMS: push notifications signed by a key whose private half never leaves KMS.

KMS errors (unreachable, throttled, access denied, a disabled key) surface as
`SignerUnavailableError`, like every AWS adapter's errors, never as botocore's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from a2a_core.aws.calls import kms_call
from a2a_core.push.der import ecdsa_signature_to_raw, p256_public_point
from a2a_core.push.signing import Signer, point_jwk

if TYPE_CHECKING:
    from mypy_boto3_kms import KMSClient

# KMS signs at most 4,096 bytes of RAW message: push JWTs fit, a signed agent card may not.
_KMS_MAX_MESSAGE = 4096


class KmsSigner(Signer):
    """A KMS key (``ECC_NIST_P256``, ``SIGN_VERIFY``): the private key never leaves KMS.

    ``kid`` is the key id as configured, so the API (which publishes the key) and the push
    function (which signs) agree on it without asking KMS. Needs ``kms:Sign`` to sign and
    ``kms:GetPublicKey`` to publish.
    """

    def __init__(self, client: KMSClient | Callable[[], KMSClient], key_id: str) -> None:
        """``client`` may be a factory, called on first use (keeps it off the API's cold start)."""
        self._client_or_factory = client
        self._client: KMSClient | None = None
        self.kid = key_id
        self._jwk: dict[str, Any] | None = None

    @property
    def client(self) -> KMSClient:
        if self._client is None:
            source = self._client_or_factory
            self._client = source() if callable(source) else source
        return self._client

    async def sign(self, signing_input: bytes) -> bytes:
        # A longer input is hashed here and sent as its SHA-256 DIGEST: the same ES256 signature.
        digest = len(signing_input) > _KMS_MAX_MESSAGE
        response = await kms_call(
            self.client.sign,
            KeyId=self.kid,
            Message=hashlib.sha256(signing_input).digest() if digest else signing_input,
            MessageType="DIGEST" if digest else "RAW",
            SigningAlgorithm="ECDSA_SHA_256",
        )
        return ecdsa_signature_to_raw(response["Signature"])

    async def public_jwk(self) -> dict[str, Any]:
        if self._jwk is None:
            response = await kms_call(self.client.get_public_key, KeyId=self.kid)
            try:
                x, y = p256_public_point(response["PublicKey"])
            except ValueError as error:
                raise ValueError(f"KMS key {self.kid}: {error}") from None
            self._jwk = point_jwk(x, y, self.kid)
        return dict(self._jwk)
