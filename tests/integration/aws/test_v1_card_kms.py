"""The push KMS key (on moto's KMS) signs the 1.0 agent card, and the published JWKS verifies it."""

from __future__ import annotations

import json

import pytest

from a2a_core.aws.kms_signer import KmsSigner
from a2a_core.compose.aws import build_kms_client
from a2a_core.emulator.moto_server import EmulatedAws
from a2a_core.protocol.card import CardBuilder
from a2a_core.protocol.v1.card_builder import CardDocuments
from a2a_core.protocol.v1.card_signing import CardSignatureError, verify_card
from a2a_core.push.signing import jwks
from a2a_core.settings import Settings

pytestmark = pytest.mark.anyio

URL = "https://agent.example.com/"


async def test_a_card_signed_by_kms_verifies_with_the_kms_public_key(local_aws: EmulatedAws) -> None:
    settings = Settings(
        aws_endpoint_url=local_aws.endpoint_url, aws_region=local_aws.region, auth_mode="api_key"
    )
    kms = build_kms_client(settings)
    key_id = kms.create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["KeyId"]
    signer = KmsSigner(kms, key_id)
    documents = CardDocuments(CardBuilder(settings, streaming=True, push_notifications=True), signer=signer)
    card = json.loads(await documents.card_json(URL))
    published = await jwks([signer])
    assert verify_card(card, published)["kid"] == key_id
    card["description"] = "changed"
    with pytest.raises(CardSignatureError):
        verify_card(card, published)
