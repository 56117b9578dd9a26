"""Agent card signatures: JWS over the RFC 8785 canonical 1.0 card, checked against a2a-sdk 1.3."""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed

from a2a_core.aws.kms_signer import KmsSigner
from a2a_core.domain import AgentSkill
from a2a_core.protocol.card import CardBuilder
from a2a_core.protocol.v1.card_builder import card_document, card_to_v1
from a2a_core.protocol.v1.card_signing import CardSignatureError, canonical_payload, sign_card, verify_card
from a2a_core.push.signing import LocalSigner, jwks
from a2a_core.settings import Settings

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parents[2] / "fixtures" / "a2a_v1"
URL = "https://agent.example.com/"


async def signed_document(signer: LocalSigner, **settings: Any) -> dict[str, Any]:
    card = CardBuilder(Settings(**settings), streaming=True, push_notifications=True).card(URL)
    signature = await sign_card(card_to_v1(card), signer, jku=URL + ".well-known/jwks.json")
    return card_document(card, [signature])


async def test_a_signed_card_verifies_against_the_push_jwks() -> None:
    signer = LocalSigner()
    document = await signed_document(signer, auth_mode="api_key")
    header = verify_card(document, await jwks([signer]))
    assert header["kid"] == signer.kid
    protected = document["signatures"][0]["protected"]
    decoded = json.loads(base64.urlsafe_b64decode(protected + "=" * (-len(protected) % 4)))
    assert decoded == {"alg": "ES256", "typ": "JOSE", "kid": signer.kid, "jku": URL + ".well-known/jwks.json"}


@pytest.mark.parametrize(
    "tamper",
    [
        lambda card: card.update(name="Someone else"),
        lambda card: card["skills"].append({"id": "x", "name": "x", "description": "x", "tags": ["x"]}),
        lambda card: card["capabilities"].update(pushNotifications=False),
        lambda card: card["supportedInterfaces"][0].update(url="https://evil.example.com/"),
    ],
)
async def test_a_changed_card_does_not_verify(tamper: Any) -> None:
    signer = LocalSigner()
    document = await signed_document(signer)
    tamper(document)
    with pytest.raises(CardSignatureError, match="signature 0"):
        verify_card(document, await jwks([signer]))


async def test_the_signature_covers_the_1_0_view_only() -> None:
    # What a 1.x verifier checks; the merged 0.3 fields are outside the proto and unsigned, so a
    # 0.3 client that needs integrity must re-derive them from the signed 1.0 fields.
    signer = LocalSigner()
    document = await signed_document(signer)
    document["protocolVersion"] = "9.9"
    verify_card(document, await jwks([signer]))


async def test_other_keys_missing_signatures_and_bad_headers_fail() -> None:
    signer, other = LocalSigner(), LocalSigner()
    document = await signed_document(signer)
    with pytest.raises(CardSignatureError):
        verify_card(document, await jwks([other]))
    with pytest.raises(CardSignatureError, match="no signatures"):
        verify_card({k: v for k, v in document.items() if k != "signatures"}, await jwks([signer]))
    broken = copy.deepcopy(document)
    broken["signatures"][0]["protected"] = "!!!"
    with pytest.raises(CardSignatureError, match="protected header"):
        verify_card(broken, await jwks([signer]))
    broken["signatures"][0]["protected"] = base64.urlsafe_b64encode(b'{"alg":"ES256"}').decode()
    with pytest.raises(CardSignatureError, match="has no kid"):
        verify_card(broken, await jwks([signer]))
    with pytest.raises(CardSignatureError):
        verify_card(document, await jwks([signer]), algorithms=["RS256"])
    with pytest.raises(CardSignatureError, match="cannot be read"):
        verify_card(document, {"keys": "nope"})


async def test_a_0_2_5_card_has_no_signatures_rather_than_an_unreadable_one() -> None:
    # 0.2.5 cards have no signatures field, and their shape is not the 1.0 card's: the answer
    # is that there is nothing to verify, not a 1.0 validation error about the card's fields.
    legacy = (
        CardBuilder(Settings(), streaming=True, push_notifications=True)
        .card(URL)
        .model_dump(mode="json", by_alias=True, exclude_none=True)
    )
    legacy["securitySchemes"] = {"apiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"}}
    with pytest.raises(CardSignatureError, match=r"^the card has no signatures$"):
        verify_card(legacy, await jwks([LocalSigner()]))


async def test_one_good_signature_among_several_is_enough() -> None:
    signer, retired = LocalSigner(), LocalSigner()
    document = await signed_document(signer)
    stale = await sign_card(document, retired)
    document["signatures"].insert(0, stale.model_dump(by_alias=True, exclude_none=True))
    assert verify_card(document, await jwks([signer]))["kid"] == signer.kid


def test_the_committed_fixture_verifies_and_matches_a2a_sdks_canonical_form() -> None:
    # signed_card.json was built by make_signed_card.py; make_sdk13_reference.py had a2a-sdk 1.3
    # parse it, verify its signature and print the canonical payload it computed.
    document = json.loads((FIXTURES / "signed_card.json").read_text())
    keys = json.loads((FIXTURES / "signed_card_jwks.json").read_text())
    sdk_payload = json.loads((FIXTURES / "sdk13_card_canonical_payload.json").read_text())["payload"]
    assert canonical_payload(document) == sdk_payload.encode()
    assert verify_card(document, keys)["alg"] == "ES256"


def test_canonical_form_is_rfc_8785() -> None:
    params = {"b": 1e21, "a": 0.1, "c": [1, 2.5], "\u00e9": None}
    card = {
        "name": "é",
        "description": '\u2028"',
        "version": "1",
        "capabilities": {"extensions": [{"uri": "u", "params": params}]},
    }
    assert (
        canonical_payload(card)
        == (
            '{"capabilities":{"extensions":[{"params":{"a":0.1,"b":1e+21,"c":[1,2.5]},"uri":"u"}]},'
            '"description":"\u2028\\"","name":"é","version":"1"}'
        ).encode()
    )


def test_empty_values_are_left_out_as_both_sdks_do_not_as_the_spec_example_shows() -> None:
    # Spec 8.4.1's example keeps the REQUIRED-but-empty description and skills; a2a-sdk 1.3 and
    # @a2a-js/sdk 1.3 (the verifiers clients run) drop every empty value, so we sign what they check.
    example = {
        "name": "Example Agent",
        "description": "",
        "capabilities": {"streaming": False, "pushNotifications": False, "extensions": []},
        "skills": [],
    }
    assert (
        canonical_payload(example)
        == b'{"capabilities":{"pushNotifications":false,"streaming":false},"name":"Example Agent"}'
    )


class _DigestKms:
    """KMS's Sign as documented: RAW up to 4,096 bytes, DIGEST for a SHA-256 digest (moto, the
    emulator the suite uses elsewhere, does not implement DIGEST)."""

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.calls: list[str] = []

    def sign(self, *, KeyId: str, Message: bytes, MessageType: str, SigningAlgorithm: str) -> dict[str, Any]:
        assert SigningAlgorithm == "ECDSA_SHA_256"
        self.calls.append(MessageType)
        if MessageType == "RAW":
            assert len(Message) <= 4096
            return {"Signature": self.key.sign(Message, ec.ECDSA(hashes.SHA256()))}
        assert len(Message) == 32
        return {"Signature": self.key.sign(Message, ec.ECDSA(Prehashed(hashes.SHA256())))}

    def get_public_key(self, *, KeyId: str) -> dict[str, Any]:
        der = self.key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        return {"PublicKey": der}


async def test_kms_signs_a_card_too_large_for_raw_as_a_digest() -> None:
    kms = _DigestKms()
    signer = KmsSigner(kms, "key-1")  # type: ignore[arg-type]
    skills = [AgentSkill(id=f"s{i}", name=f"Skill {i}", description="x" * 200, tags=["t"]) for i in range(20)]
    card = CardBuilder(Settings(skills=skills), streaming=True, push_notifications=True).card(URL)
    assert len(canonical_payload(card_to_v1(card))) > 4096
    document = card_document(card, [await sign_card(card_to_v1(card), signer)])
    small = CardBuilder(Settings(), streaming=True, push_notifications=True).card(URL)
    small_document = card_document(small, [await sign_card(card_to_v1(small), signer)])
    keys = await jwks([signer])
    verify_card(document, keys)
    verify_card(small_document, keys)
    assert kms.calls == ["DIGEST", "RAW"]
