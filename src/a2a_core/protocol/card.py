"""The agent as every generation's card describes it: built once from `Settings` and the
capabilities that are enabled, as the domain's card (shaped like 0.2.5's, like the rest of the
domain model).

Each generation's card document is built from it beside that generation's codec:
`a2a_core.protocol.v0.card` serves it as the 0.2.5 card (``/.well-known/agent.json``, and the
extended one at ``/agent/authenticatedExtendedCard``), `a2a_core.protocol.v1.card_builder` as
the 1.0 card with the 0.3 fields merged in (``/.well-known/agent-card.json``), which 0.3 and 1.x
clients read.
"""

from __future__ import annotations

import re

from a2a_core.domain import (
    AgentCapabilities,
    AgentCard,
    AgentExtension,
    AgentSkill,
    APIKeySecurityScheme,
    HTTPAuthSecurityScheme,
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


def default_skill(settings: Settings) -> AgentSkill:
    """The skill a card lists when none is configured: the agent itself, by its name and
    description. Every generation's card requires skills, and a2a-sdk 1.3 warns on an empty
    list (and on a skill without tags); its modes are the card's (fasta2a requires them)."""
    slug = re.sub(r"[^a-z0-9]+", "-", settings.name.lower()).strip("-") or "agent"
    return AgentSkill(
        id=slug,
        name=settings.name,
        description=settings.description,
        tags=[slug],
        input_modes=list(settings.default_input_modes),
        output_modes=list(settings.default_output_modes),
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
        # Served only behind auth: an extended card anyone can fetch would be the public card.
        self.extended = settings.auth_mode != "none" and bool(settings.extended_skills)

    def card(self, url: str, *, extra_skills: list[AgentSkill] | None = None) -> AgentCard:
        """The agent described, its endpoint at ``url`` (``extra_skills``: the extended card's)."""
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
            skills=[*(s.skills or [default_skill(s)]), *(extra_skills or [])],
            security_schemes={security[0]: security[1]} if security else None,
            security=[{security[0]: []}] if security else None,
            supports_authenticated_extended_card=True if self.extended else None,
        )
