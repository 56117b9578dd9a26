"""A 1.0 agent card read into the domain model (which speaks 0.3's terms): the reverse of
`card_builder`, for clients that describe any generation's card the same way."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import ValidationError

from a2a_core.domain import (
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
from a2a_core.protocol.v1.wire import card as wc
from a2a_core.protocol.v1.wire import security as ws


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
