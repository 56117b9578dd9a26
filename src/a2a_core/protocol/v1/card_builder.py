"""The 1.0 agent card, built from the same card the 0.2.5 builder makes, with the 0.3 fields merged in.

One document at ``/.well-known/agent-card.json`` must satisfy three generations of clients:

- 1.x clients read ``supportedInterfaces``: JSON-RPC 1.0 (preferred), HTTP+JSON 1.0 and JSON-RPC
  0.3, all at the base URL, and ignore every field the proto does not define;
- 0.3 clients read ``protocolVersion``, ``url``, ``preferredTransport``, ``additionalInterfaces``,
  ``supportsAuthenticatedExtendedCard`` and 0.3-style ``security``/``securitySchemes``;
- so the 0.3 fields are merged into the 1.0 ProtoJSON exactly as a2a-sdk 1.3's
  ``agent_card_to_dict`` does: a key the 1.0 card lacks is added, objects are merged key by key,
  and lists element by element (so each ``securitySchemes`` entry holds both the 1.0 oneof
  member and the 0.3 ``type``/``in``/... keys).
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from a2a_core.domain import (
    AgentCard,
    AgentInterface,
    AgentSkill,
    APIKeySecurityScheme,
    HTTPAuthSecurityScheme,
    OAuth2SecurityScheme,
    OAuthFlows,
    OpenIdConnectSecurityScheme,
    SecurityScheme,
    to_wire,
)
from a2a_core.generations import HTTP_JSON, JSONRPC, V0_3, V1_0, V1_1
from a2a_core.protocol.v1.wire import card as wc
from a2a_core.protocol.v1.wire import security as ws
from a2a_core.protocol.v1.wire.protojson import dump

if TYPE_CHECKING:
    from a2a_core.protocol.card import CardBuilder
    from a2a_core.push.signing import Signer


def supported_interfaces(url: str, tenant: str | None = None) -> list[wc.AgentInterface]:
    """Every binding this server answers at ``url``, in preference order: 1.0's, then 0.3's (whose
    card 0.2.5 clients do not read: theirs is ``/.well-known/agent.json``), then the 1.1 draft's
    (last: a client that takes the first entry of a binding it speaks gets 1.0, and one that
    knows 1.1 finds it; the draft says nothing of cards yet). The 1.x ones name the ``tenant`` it
    serves, if any (0.3 has no tenants). HTTP+JSON's URL has no trailing slash: clients append
    ``/message:send`` to it, some without looking (``//message:send``)."""
    return [
        wc.AgentInterface(
            url=url.rstrip("/") if binding == HTTP_JSON else url,
            protocol_binding=binding,
            protocol_version=generation.version,
            tenant=tenant if generation is not V0_3 else None,
        )
        for generation in (V1_0, V0_3, V1_1)
        for binding in generation.bindings
    ]


def card_to_v1(card: AgentCard, *, tenant: str | None = None) -> wc.AgentCard:
    """The 1.0 card for a domain card (whose ``url`` is the base URL every interface shares)."""
    caps = card.capabilities
    return wc.AgentCard(
        name=card.name,
        description=card.description,
        supported_interfaces=supported_interfaces(card.url, tenant),
        version=card.version,
        capabilities=wc.AgentCapabilities(
            streaming=caps.streaming,
            push_notifications=caps.push_notifications,
            extensions=[wc.AgentExtension.model_validate(to_wire(e)) for e in caps.extensions or []] or None,
            extended_agent_card=True if card.supports_authenticated_extended_card else None,
        ),
        default_input_modes=list(card.default_input_modes),
        default_output_modes=list(card.default_output_modes),
        skills=[_skill(skill) for skill in card.skills],
        provider=wc.AgentProvider(url=card.provider.url, organization=card.provider.organization)
        if card.provider
        else None,
        documentation_url=card.documentation_url,
        icon_url=card.icon_url,
        security_schemes={name: security_scheme_to_v1(s) for name, s in card.security_schemes.items()}
        if card.security_schemes
        else None,
        security_requirements=[requirement_to_v1(r) for r in card.security] if card.security else None,
    )


def _skill(skill: AgentSkill) -> wc.AgentSkill:
    return wc.AgentSkill(
        id=skill.id,
        name=skill.name,
        description=skill.description,
        tags=list(skill.tags),
        examples=skill.examples,
        input_modes=skill.input_modes,
        output_modes=skill.output_modes,
    )


def requirement_to_v1(requirement: dict[str, list[str]]) -> ws.SecurityRequirement:
    return ws.SecurityRequirement(
        schemes={name: ws.StringList(list=list(scopes)) for name, scopes in requirement.items()}
    )


def security_scheme_to_v1(scheme: SecurityScheme) -> ws.SecurityScheme:
    """A 0.x (OpenAPI ``type``-tagged) scheme as the 1.0 oneof."""
    if isinstance(scheme, APIKeySecurityScheme):
        member = ws.APIKeySecurityScheme(
            location=scheme.in_, name=scheme.name, description=scheme.description
        )
        return ws.SecurityScheme(api_key_security_scheme=member)
    if isinstance(scheme, HTTPAuthSecurityScheme):
        http = ws.HTTPAuthSecurityScheme(
            scheme=scheme.scheme, bearer_format=scheme.bearer_format, description=scheme.description
        )
        return ws.SecurityScheme(http_auth_security_scheme=http)
    if isinstance(scheme, OAuth2SecurityScheme):
        oauth = ws.OAuth2SecurityScheme(flows=_flows(scheme.flows), description=scheme.description)
        return ws.SecurityScheme(oauth2_security_scheme=oauth)
    assert isinstance(scheme, OpenIdConnectSecurityScheme)
    oidc = ws.OpenIdConnectSecurityScheme(
        open_id_connect_url=scheme.open_id_connect_url, description=scheme.description
    )
    return ws.SecurityScheme(open_id_connect_security_scheme=oidc)


def _flows(flows: OAuthFlows) -> ws.OAuthFlows:
    """1.0 has one flow per scheme (a oneof): the first the 0.x scheme sets, in the proto's order."""
    for name in ("authorization_code", "client_credentials", "implicit", "password"):
        flow = getattr(flows, name)
        if flow is not None:
            return ws.OAuthFlows.model_validate({name: to_wire(flow)})
    raise ValueError("an OAuth2 security scheme needs at least one flow")


def legacy_fields(card: AgentCard) -> dict[str, Any]:
    """The card as a 0.3 client reads it."""
    legacy = card.model_copy(
        update={
            "protocol_version": V0_3.card_version,
            "preferred_transport": JSONRPC,
            # 0.3 best practice: list the preferred interface here too.
            "additional_interfaces": [AgentInterface(url=card.url, transport=JSONRPC)],
            "supports_authenticated_extended_card": card.supports_authenticated_extended_card or None,
        }
    )
    return to_wire(legacy)


def card_document(
    card: AgentCard, signatures: list[wc.AgentCardSignature] | None = None, *, tenant: str | None = None
) -> dict[str, Any]:
    """The JSON served at ``/.well-known/agent-card.json``: 1.0 ProtoJSON, 0.3 fields merged in."""
    v1 = card_to_v1(card, tenant=tenant)
    if signatures:
        v1 = v1.model_copy(update={"signatures": signatures})
    return merge(dump(v1), legacy_fields(card))


def merge(target: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """a2a-sdk 1.3's merge: add missing keys, merge objects by key and lists by position."""
    for key, value in extra.items():
        if key not in target:
            target[key] = value
        elif isinstance(value, dict) and isinstance(target[key], dict):
            merge(target[key], value)
        elif isinstance(value, list) and isinstance(target[key], list):
            for mine, theirs in zip(target[key], value, strict=False):
                if isinstance(mine, dict) and isinstance(theirs, dict):
                    merge(mine, theirs)
    return target


class CardDocuments:
    """The served card documents (public and extended), built once per URL, signed when a
    ``signer`` is given (the push key: its JWKS at ``/.well-known/jwks.json`` verifies them)."""

    def __init__(self, builder: CardBuilder, *, signer: Signer | None = None) -> None:
        self.builder = builder
        self.signer = signer
        self._cache: dict[tuple[str, bool], bytes] = {}

    async def card_json(self, url: str) -> bytes:
        return await self._document(url, extended=False)

    async def extended_card_json(self, url: str) -> bytes:
        """The card for authenticated callers: the public one plus ``extended_skills``."""
        return await self._document(url, extended=True)

    async def _document(self, url: str, *, extended: bool) -> bytes:
        body = self._cache.get((url, extended))
        if body is None:
            extra = self.builder.settings.extended_skills if extended else None
            card = self.builder.card(url, extra_skills=extra)
            tenant = self.builder.settings.tenant
            signatures = await self._signatures(card, url) if self.signer is not None else None
            body = json.dumps(card_document(card, signatures, tenant=tenant)).encode()
            if len(self._cache) < 32:  # a handful of host names reach one function
                self._cache[(url, extended)] = body
        return body

    async def _signatures(self, card: AgentCard, url: str) -> list[wc.AgentCardSignature]:
        """One signature over the card's 1.0 form and one over its 0.3 form (`card_signing`)."""
        from a2a_core.protocol.v1.card_signing import sign_card, sign_card_v0_3

        assert self.signer is not None
        tenant = self.builder.settings.tenant
        jku = url.rstrip("/") + "/.well-known/jwks.json"
        return list(
            await asyncio.gather(
                sign_card(card_to_v1(card, tenant=tenant), self.signer, jku=jku),
                sign_card_v0_3(card_document(card, tenant=tenant), self.signer, jku=jku),
            )
        )
