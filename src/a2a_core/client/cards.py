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
from pydantic import TypeAdapter, ValidationError

from a2a_core.client.interfaces import Interface
from a2a_core.protocol.v1 import card as wc
from a2a_core.protocol.v1 import security as ws
from a2a_core.types import (
    AgentCapabilities,
    AgentCard,
    AgentExtension,
    AgentInterface,
    AgentProvider,
    AgentSkill,
    APIKeySecurityScheme,
    HTTPAuthSecurityScheme,
    OAuth2SecurityScheme,
    OAuthFlows,
    OpenIdConnectSecurityScheme,
    SecurityScheme,
)

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


def card_from_v1(card: wc.AgentCard) -> AgentCard:
    """A 1.0 card in the domain's (0.3) terms. Security schemes the domain has no type for
    (mutual TLS, an OAuth device-code flow) are left out."""
    first, *others = card.supported_interfaces
    caps = card.capabilities
    return AgentCard(
        name=card.name,
        description=card.description,
        url=first.url,
        version=card.version,
        capabilities=AgentCapabilities(
            streaming=caps.streaming,
            push_notifications=caps.push_notifications,
            extensions=[
                AgentExtension(
                    uri=e.uri or "", description=e.description, required=e.required, params=e.params
                )
                for e in caps.extensions or []
            ]
            or None,
        ),
        default_input_modes=card.default_input_modes,
        default_output_modes=card.default_output_modes,
        skills=[_skill(skill) for skill in card.skills],
        protocol_version=first.protocol_version,
        preferred_transport=first.protocol_binding,
        additional_interfaces=[AgentInterface(url=i.url, transport=i.protocol_binding) for i in others]
        or None,
        provider=AgentProvider(organization=card.provider.organization, url=card.provider.url)
        if card.provider
        else None,
        documentation_url=card.documentation_url,
        icon_url=card.icon_url,
        security=[_requirement(r) for r in card.security_requirements or []] or None,
        security_schemes=_schemes(card.security_schemes or {}) or None,
        supports_authenticated_extended_card=caps.extended_agent_card,
    )


def _skill(skill: wc.AgentSkill) -> AgentSkill:
    return AgentSkill(
        id=skill.id,
        name=skill.name,
        description=skill.description,
        tags=skill.tags,
        examples=skill.examples,
        input_modes=skill.input_modes,
        output_modes=skill.output_modes,
    )


def _requirement(requirement: ws.SecurityRequirement) -> dict[str, list[str]]:
    return {name: list(scopes.list_ or []) for name, scopes in (requirement.schemes or {}).items()}


def _schemes(schemes: Mapping[str, ws.SecurityScheme]) -> dict[str, SecurityScheme]:
    converted: dict[str, SecurityScheme] = {}
    for name, scheme in schemes.items():
        try:
            legacy = _scheme(scheme)
        except ValidationError:
            legacy = None  # a 1.0 flow without what 0.3 requires: not describable here
        if legacy is not None:
            converted[name] = legacy
    return converted


def _scheme(scheme: ws.SecurityScheme) -> SecurityScheme | None:
    if (key := scheme.api_key_security_scheme) is not None:
        return APIKeySecurityScheme.model_validate(
            {"name": key.name, "in": key.location, "description": key.description}
        )
    if (http := scheme.http_auth_security_scheme) is not None:
        return HTTPAuthSecurityScheme(
            scheme=http.scheme, bearer_format=http.bearer_format, description=http.description
        )
    if (oauth := scheme.oauth2_security_scheme) is not None:
        flows = {
            name: {**flow.model_dump(by_alias=True, exclude_none=True), "scopes": flow.scopes or {}}
            for name in ("authorization_code", "client_credentials", "implicit", "password")
            if (flow := getattr(oauth.flows, name)) is not None
        }
        if not flows:
            return None
        return OAuth2SecurityScheme(flows=OAuthFlows.model_validate(flows), description=oauth.description)
    if (oidc := scheme.open_id_connect_security_scheme) is not None:
        return OpenIdConnectSecurityScheme(
            open_id_connect_url=oidc.open_id_connect_url, description=oidc.description
        )
    return None


def verify_signatures(document: Mapping[str, Any], jwks: Mapping[str, Any]) -> dict[str, Any]:
    """The protected header of the card signature that ``jwks`` verifies (spec 8.4).

    Raises ValueError saying why none does (including: the card carries no signatures).
    """
    try:
        from a2a_core.protocol.v1.card_signing import CardSignatureError, verify_card
    except ImportError as error:
        raise ValueError(
            f"verifying card signatures needs {error.name}: pip install 'a2a-serverless[client,push]'"
        ) from None
    try:
        return verify_card(document, jwks)
    except CardSignatureError as error:
        raise ValueError(f"the card's signature does not verify: {error}") from None
