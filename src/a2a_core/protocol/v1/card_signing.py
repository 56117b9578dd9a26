"""Agent card signatures (spec 8.4): JWSs with detached payload over canonical forms of the card.

A served card carries two signatures by the same key, one for each way verifiers canonicalize it
(each verifier accepts a card when any one of its signatures verifies):

1. over the card as a 1.x client parses it, which a2a-sdk 1.3 (``utils/signing.py``) and
   @a2a-js/sdk 1.3 (``canonicalizeAgentCard``) verify: the 1.0 fields only (the merged 0.3
   fields are unknown to the proto and dropped), defaults omitted, ``signatures`` removed, then
   every empty string, list and object removed recursively, then RFC 8785 (`canonical_payload`);
2. over the card as a2a-sdk 0.3 parses it (``utils/helpers.canonicalize_agent_card``): the 0.3
   fields only, 0.3's defaults and None omitted, empties removed, then ``json.dumps`` with sorted
   keys, compact, ASCII (`canonical_payload_v0_3`). a2a-sdk 0.3.26 refused a card signed over the
   1.0 form alone ("No valid signature found").

Neither form covers the whole document: the 1.0 form leaves out the 0.3-only fields (``url``,
``preferredTransport``, ``additionalInterfaces``, ``protocolVersion``,
``capabilities.stateTransitionHistory``, ``supportsAuthenticatedExtendedCard``, the 0.3 keys of
each ``securitySchemes`` entry and ``security``), the 0.3 form the 1.0-only ones
(``supportedInterfaces``, ``securityRequirements``, ``capabilities.extendedAgentCard``, the 1.0
member of each ``securitySchemes`` entry), and both drop empty values (a security requirement
without scopes, ``{"apiKey": []}``, is not covered at all). A verifier that accepts either
signature and then reads a field from the copy the verified form left out could be misled;
`a2a_core.protocol.v1.card_copies` finds where the two copies disagree, and our client refuses
such a card. The protected header is ``{"alg", "typ": "JOSE", "kid", "jku"}``; the signatures
come from a push `Signer` (the KMS key in AWS), so the JWKS that verifies push notifications
verifies the card too.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import rfc8785
from pydantic import ValidationError

from a2a_core.generations import V0_3
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


def canonical_payload_v0_3(document: Mapping[str, Any]) -> bytes:
    """The bytes a2a-sdk 0.3 checks a card's signatures against: ``document`` (a served card,
    the 0.3 fields merged in) read as a 0.3 card (the module doc says how)."""
    from a2a_core.domain import AgentCard as Card03  # the domain card is 0.3-shaped

    card = Card03.model_validate(document)
    view = card.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True)
    # The domain card's protocolVersion defaults to 0.2.5; 0.3's model leaves out its own default.
    view.pop("protocolVersion", None)
    if card.protocol_version != V0_3.card_version:
        view["protocolVersion"] = card.protocol_version
    return json.dumps(_without_empty(view) or {}, separators=(",", ":"), sort_keys=True).encode()


async def sign_card(
    card: Mapping[str, Any] | AgentCard, signer: Signer, *, jku: str | None = None
) -> AgentCardSignature:
    """A signature of ``card`` (its 1.0 form) by ``signer``; ``jku`` is where its JWKS is published."""
    return await _sign(canonical_payload(card), signer, jku)


async def sign_card_v0_3(
    document: Mapping[str, Any], signer: Signer, *, jku: str | None = None
) -> AgentCardSignature:
    """A signature of the served ``document``'s 0.3 form, which a2a-sdk 0.3 verifies."""
    return await _sign(canonical_payload_v0_3(document), signer, jku)


async def _sign(payload: bytes, signer: Signer, jku: str | None) -> AgentCardSignature:
    header: dict[str, str] = {"alg": signer.alg, "typ": JOSE, "kid": signer.kid}
    if jku:
        header["jku"] = jku
    protected = _b64(json.dumps(header, separators=(",", ":")).encode())
    signing_input = f"{protected}.{_b64(payload)}".encode("ascii")
    signature = await signer.sign(signing_input)
    return AgentCardSignature(protected=protected, signature=_b64(signature))


def verify_card(
    card: Mapping[str, Any], jwks: Mapping[str, Any], *, algorithms: Iterable[str] = ("ES256",)
) -> dict[str, Any]:
    """The protected header of the first of the card's signatures that a key in ``jwks`` verifies
    over the card's 1.0 form (as 1.x verifiers check it).

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
