"""The public agent card, built from `Settings` and the capabilities that are enabled.

Two generations of the same card: ``/.well-known/agent.json`` is the 0.2.5 card 0.2.x clients
read, ``/.well-known/agent-card.json`` (the path 0.3 introduced) says ``protocolVersion:
"0.3.0"``. Our JSON-RPC methods are the 0.3 ones, and what 0.3 adds to the card is for what we do
not serve (signatures, per-skill security, other transports), so the two differ only in the
version and the ``additionalInterfaces`` list. A 1.x client (a2a-sdk 1.3) takes a 0.3 card as
"use the 0.3 compatibility transport"; a card saying 0.2.5 is one it cannot use at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from a2a_core.domain import (
    AgentCapabilities,
    AgentCard,
    AgentExtension,
    AgentSkill,
    APIKeySecurityScheme,
    HTTPAuthSecurityScheme,
    to_wire,
)
from a2a_core.generations import JSONRPC, V0_2
from a2a_core.settings import Settings


def security_scheme(auth_mode: str) -> tuple[str, APIKeySecurityScheme | HTTPAuthSecurityScheme] | None:
    """The card's ``securitySchemes`` entry for an auth mode (name, scheme); None for none.

    IAM has no scheme of its own in the card's OpenAPI terms: as in API Gateway's own OpenAPI
    export, it is an apiKey in the Authorization header (carrying the SigV4 signature).
    """
    if auth_mode == "api_key":
        return "apiKey", APIKeySecurityScheme(
            name="x-api-key", in_="header", description="API key in the x-api-key header"
        )
    if auth_mode == "jwt":
        return "bearer", HTTPAuthSecurityScheme(
            scheme="bearer", bearer_format="JWT", description="OAuth 2.0 / OpenID Connect access token (JWT)"
        )
    if auth_mode == "iam":
        return "sigv4", APIKeySecurityScheme(
            name="Authorization",
            in_="header",
            description="AWS Signature Version 4 (IAM): sign each request for the execute-api service",
        )
    return None


# The 0.2.5 card has no field for what a FilePart's uri may be; an informational extension says it.
FILE_URI_EXTENSION = "urn:a2a-serverless:file-uri-schemes:v1"


def file_uri_extension(schemes: list[str]) -> AgentExtension:
    return AgentExtension(
        uri=FILE_URI_EXTENSION,
        description="FilePart uri values must use one of these schemes: "
        + (", ".join(schemes) or "none (send file contents as bytes)"),
        required=False,
        params={"fileUriSchemes": list(schemes)},
    )


class CardBuilder:
    def __init__(self, settings: Settings, *, streaming: bool, push_notifications: bool) -> None:
        self.settings = settings
        self.capabilities = AgentCapabilities(
            streaming=streaming,
            push_notifications=push_notifications,
            state_transition_history=True,
            extensions=[file_uri_extension(settings.file_uri_schemes)],
        )
        self._cache: dict[str, bytes] = {}
        self._extended_cache: dict[str, bytes] = {}
        # Served only behind auth: an extended card anyone can fetch would be the public card.
        self.extended = settings.auth_mode != "none" and bool(settings.extended_skills)

    def card(self, url: str, *, extra_skills: list[AgentSkill] | None = None) -> AgentCard:
        """The agent described (as the 0.2.5 card, which the 1.0 card is built from), its
        endpoint at ``url``."""
        s = self.settings
        security = security_scheme(s.auth_mode)
        return AgentCard(
            protocol_version=V0_2.card_version,
            preferred_transport=JSONRPC,
            name=s.name,
            description=s.description,
            version=s.version,
            url=url,
            provider=s.provider,
            documentation_url=s.documentation_url,
            capabilities=self.capabilities,
            default_input_modes=list(s.default_input_modes),
            default_output_modes=list(s.default_output_modes),
            skills=[*s.skills, *(extra_skills or [])],
            security_schemes={security[0]: security[1]} if security else None,
            security=[{security[0]: []}] if security else None,
            supports_authenticated_extended_card=True if self.extended else None,
        )

    def card_json(self, url: str) -> bytes:
        """The 0.2.5 card as served; cached per URL (a handful: one per host name it is reached by)."""
        return _cached(self._cache, url, lambda: self.card(url))

    def extended_card_json(self, url: str) -> bytes:
        """The 0.2.5 card for authenticated callers: the public one plus ``extended_skills`` (0.3
        and 1.0 callers get the 1.0 document, `a2a_core.protocol.v1.card_builder`)."""
        extra = self.settings.extended_skills
        return _cached(self._extended_cache, url, lambda: self.card(url, extra_skills=extra))


def _cached(cache: dict[str, bytes], key: str, build: Callable[[], AgentCard]) -> bytes:
    body = cache.get(key)
    if body is None:
        body = json.dumps(to_wire(build())).encode()
        if len(cache) < 32:
            cache[key] = body
    return body


def public_url(configured: str | None, scope: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    """The JSON-RPC endpoint URL as the caller reached it, unless one is configured.

    Behind API Gateway the stage is part of the path the client used (``/prod/``) but not of the
    path Lambda sees, so it is taken from the event's request context. An HTTP API's ``$default``
    stage, a custom domain and a function URL (``<id>.lambda-url.<region>.on.aws``) have none.
    """
    if configured:
        return configured.rstrip("/") + "/"
    event = scope.get("aws.event")
    if isinstance(event, dict):
        context = event.get("requestContext") or {}
        domain = context.get("domainName")
        stage = context.get("stage")
        if domain:
            on_default_host = domain.endswith(".amazonaws.com")
            prefix = f"/{stage}" if on_default_host and stage and stage != "$default" else ""
            return f"https://{domain}{prefix}/"
    proto = headers.get("x-forwarded-proto", scope.get("scheme", "http")).split(",")[0].strip()
    host = headers.get("x-forwarded-host") or headers.get("host")
    if not host:
        server = scope.get("server") or ("127.0.0.1", 80)
        host = f"{server[0]}:{server[1]}"
    root = str(scope.get("root_path", "")).rstrip("/")
    return f"{proto}://{host.split(',')[0].strip()}{root}/"
