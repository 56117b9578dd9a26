"""KmsSigner on moto's KMS: signatures verify against the key KMS publishes, and KMS failures
surface as the signer's domain error, never as botocore's."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import load_der_public_key
from mypy_boto3_kms import KMSClient

from a2a_core.aws.kms_signer import KmsSigner
from a2a_core.compose.aws import build_kms_client
from a2a_core.core.errors import SignerUnavailableError
from a2a_core.emulator.moto_server import EmulatedAws
from a2a_core.settings import Settings

pytestmark = pytest.mark.anyio


@pytest.fixture
def kms(local_aws: EmulatedAws) -> KMSClient:
    return build_kms_client(Settings(aws_region=local_aws.region, aws_endpoint_url=local_aws.endpoint_url))


async def test_a_signature_verifies_against_the_key_kms_publishes(kms: KMSClient) -> None:
    key_id = kms.create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["KeyId"]
    signer = KmsSigner(kms, key_id)
    signature = await signer.sign(b"header.claims")
    public = load_der_public_key(kms.get_public_key(KeyId=key_id)["PublicKey"])
    assert isinstance(public, ec.EllipticCurvePublicKey)
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    public.verify(encode_dss_signature(r, s), b"header.claims", ec.ECDSA(hashes.SHA256()))
    assert (await signer.public_jwk())["kid"] == key_id


async def test_a_key_kms_does_not_have_is_a_signer_unavailable_error(kms: KMSClient) -> None:
    signer = KmsSigner(kms, "11111111-2222-3333-4444-555555555555")
    with pytest.raises(SignerUnavailableError):
        await signer.sign(b"header.claims")
    with pytest.raises(SignerUnavailableError):
        await signer.public_jwk()
