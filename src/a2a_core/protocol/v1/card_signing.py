"""Agent card signatures (spec 8.4): a JWS with detached payload over the RFC 8785 canonical card.

What is signed is the card as a 1.x client parses it, because that is what a 1.x verifier
canonicalizes (a2a-sdk 1.3 ``utils/signing.py`` and @a2a-js/sdk 1.3 ``canonicalizeAgentCard`` do
the same): the 1.0 fields only (the merged 0.3 fields are unknown to the proto and dropped),
defaults omitted, ``signatures`` removed, then every empty string, list and object removed
recursively, then RFC 8785. The protected header is ``{"alg", "typ": "JOSE", "kid", "jku"}``;
the signature comes from a push `Signer` (the KMS key in AWS), so the JWKS that verifies push
notifications verifies the card too.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import rfc8785
from pydantic import ValidationError

from a2a_core.protocol.v1.wire.card import AgentCard, AgentCardSignature
from a2a_core.protocol.v1.wire.protojson import dump

if TYPE_CHECKING:
    from a2a_core.push.signing import Signer

JOSE = "JOSE"


class CardSignatureError(Exception):
    """No signature of the card verifies; the message says why for each one."""


def canonical_payload(card: Mapping[str, Any] | AgentCard) -> bytes:
    """The bytes a card's signatures cover (the JWS payload)."""
    model = card if isinstance(card, AgentCard) else AgentCard.model_validate(card)
    view = dump(model)
    view.pop("signatures", None)
    return rfc8785.dumps(_without_empty(view) or {})


async def sign_card(
    card: Mapping[str, Any] | AgentCard, signer: Signer, *, jku: str | None = None
) -> AgentCardSignature:
    """A signature of ``card`` by ``signer``; ``jku`` is where its JWKS is published."""
    header: dict[str, str] = {"alg": signer.alg, "typ": JOSE, "kid": signer.kid}
    if jku:
        header["jku"] = jku
    protected = _b64(json.dumps(header, separators=(",", ":")).encode())
    signing_input = f"{protected}.{_b64(canonical_payload(card))}".encode("ascii")
    signature = await signer.sign(signing_input)
    return AgentCardSignature(protected=protected, signature=_b64(signature))


def verify_card(
    card: Mapping[str, Any], jwks: Mapping[str, Any], *, algorithms: Iterable[str] = ("ES256",)
) -> dict[str, Any]:
    """The protected header of the first of the card's signatures that a key in ``jwks`` verifies.

    Raises CardSignatureError when the card has no signature or none verifies.
    """
    from joserfc import jws
    from joserfc.errors import JoseError
    from joserfc.jwk import KeySet

    # Before reading the card as 1.0: a 0.2.5 card (no signatures in that generation) would
    # otherwise fail as a malformed 1.0 card over fields such as its securitySchemes.
    if not card.get("signatures"):
        raise CardSignatureError("the card has no signatures")
    try:
        parsed = AgentCard.model_validate(card)
        payload = _b64(canonical_payload(parsed))
        keys = KeySet.import_key_set(dict(jwks))  # type: ignore[arg-type]
    except (ValidationError, ValueError, RecursionError, JoseError) as error:
        raise CardSignatureError(f"the card or the key set cannot be read: {error}") from None
    allowed = list(algorithms)
    problems = []
    for index, entry in enumerate(parsed.signatures or ()):
        try:
            header = _header(entry.protected)
            token = f"{entry.protected}.{payload}.{entry.signature}"
            jws.deserialize_compact(token, keys, algorithms=allowed)
            return header
        except (CardSignatureError, JoseError, ValueError) as error:
            problems.append(f"signature {index}: {error or type(error).__name__}")
    raise CardSignatureError("; ".join(problems))


def _header(protected: str) -> dict[str, Any]:
    try:
        header = json.loads(base64.urlsafe_b64decode(protected + "=" * (-len(protected) % 4)))
    except ValueError:
        raise CardSignatureError("the protected header is not base64url JSON") from None
    if not isinstance(header, dict) or not isinstance(header.get("kid"), str):
        raise CardSignatureError("the protected header has no kid")
    return header


def _without_empty(value: Any) -> Any:
    """None for "", [] and {} (recursively), as the SDKs' ``_clean_empty``/``cleanEmpty`` do."""
    if isinstance(value, dict):
        kept = {key: cleaned for key, item in value.items() if (cleaned := _without_empty(item)) is not None}
        return kept or None
    if isinstance(value, list):
        items = [cleaned for item in value if (cleaned := _without_empty(item)) is not None]
        return items or None
    if value == "" or value is None:
        return None
    return value


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")
