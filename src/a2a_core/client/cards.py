"""An agent's card, whatever its generation: the domain card callers see, its interfaces, its signatures.

A document with ``supportedInterfaces`` is read as a 1.0 card (ProtoJSON; fields it does not
define, such as the 0.3 ones a 1.x server merges in, are ignored) and described in the domain
model's terms: its first interface becomes ``url``/``preferredTransport``/``protocolVersion``
and the others ``additionalInterfaces``, as a 0.3 card would put them. Any other document is a
0.3 or 0.2.5 card, which the domain model is. Interface URLs are resolved against the card's own
URL, so a relative one works.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from pydantic import TypeAdapter

from a2a_core.client.interfaces import Interface
from a2a_core.domain import AgentCard
from a2a_core.protocol.v1.card_reader import card_from_v1
from a2a_core.protocol.v1.wire import card as wc

legacy_card: TypeAdapter[AgentCard] = TypeAdapter(AgentCard)


@dataclass(frozen=True)
class ReadCard:
    card: AgentCard
    interfaces: tuple[Interface, ...]
    document: Mapping[str, Any]  # as served: what signatures cover
    signature: dict[str, Any] | None = None  # the protected header that verified, when asked to


def read_card(document: object, card_url: str) -> ReadCard:
    """The card in ``document`` (parsed JSON) fetched from ``card_url``; ValueError if it is none."""
    if not isinstance(document, dict):
        raise ValueError("the card is not a JSON object")
    if "supportedInterfaces" in document:
        v1 = wc.AgentCard.model_validate(document)
        if not v1.supported_interfaces:
            raise ValueError("the card lists no supportedInterfaces")
        interfaces = tuple(
            Interface(_join(card_url, i.url), i.protocol_binding, i.protocol_version, i.tenant)
            for i in v1.supported_interfaces
        )
        return ReadCard(card_from_v1(v1), interfaces, document)
    card = legacy_card.validate_python(document)
    return ReadCard(card, interfaces_of(card, card_url), document)


def interfaces_of(card: AgentCard, card_url: str | None = None) -> tuple[Interface, ...]:
    """A 0.3 or 0.2.5 card's interfaces: its main one first, every one at its protocolVersion."""
    main = [(card.url, card.preferred_transport)]
    others = [(i.url, i.transport) for i in card.additional_interfaces or []]
    return tuple(
        Interface(_join(card_url, url) if card_url else url, transport, card.protocol_version)
        for url, transport in main + others
    )


def _join(base: str, url: str) -> str:
    return str(httpx.URL(base).join(url))


def verify_signatures(document: Mapping[str, Any], jwks: Mapping[str, Any]) -> dict[str, Any]:
    """The protected header of the card signature that ``jwks`` verifies (spec 8.4).

    Raises ValueError saying why none does (including: the card carries no signatures), or, for
    a card carrying both generations' fields, naming those whose 0.3 and 1.0 copies disagree: no
    signature covers both copies, so such a card may have been changed after signing
    (`a2a_core.protocol.v1.card_copies`).
    """
    try:
        from a2a_core.protocol.v1.card_copies import disagreements
        from a2a_core.protocol.v1.card_signing import CardSignatureError, verify_card
    except ImportError as error:
        raise ValueError(
            f"verifying card signatures needs {error.name}: pip install 'a2a-serverless[client,push]'"
        ) from None
    try:
        header = verify_card(document, jwks)
    except CardSignatureError as error:
        raise ValueError(f"the card's signature does not verify: {error}") from None
    disagree = disagreements(document)
    if disagree:
        raise ValueError(
            "the card's signature verifies, but its 0.3 and 1.0 copies of a field disagree (no "
            f"signature covers both; it may have been changed after signing): {'; '.join(disagree)}"
        )
    return header
