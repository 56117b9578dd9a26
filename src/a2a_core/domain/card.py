"""The agent card served at /.well-known/agent.json, with its skills and security schemes."""

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from a2a_core import generations
from a2a_core.domain._base import DEFER, A2ABaseModel


class AgentExtension(A2ABaseModel):
    """A declaration of an extension supported by an Agent."""

    uri: str
    description: str | None = None
    required: bool | None = None
    params: dict[str, Any] | None = None


class AgentCapabilities(A2ABaseModel):
    """Defines optional capabilities supported by an agent."""

    streaming: bool | None = None
    push_notifications: bool | None = None
    state_transition_history: bool | None = None
    extensions: list[AgentExtension] | None = None


class AgentInterface(A2ABaseModel):
    """A combination of a target url and the transport to use to interact with the agent there."""

    url: str
    transport: str


class AgentProvider(A2ABaseModel):
    """Represents the service provider of an agent."""

    organization: str
    url: str


class AgentSkill(A2ABaseModel):
    """Represents a unit of capability that an agent can perform."""

    id: str
    name: str
    description: str
    tags: list[str]
    examples: list[str] | None = None
    input_modes: list[str] | None = None
    output_modes: list[str] | None = None


class SecuritySchemeBase(A2ABaseModel):
    """Base properties shared by all security schemes."""

    description: str | None = None


class APIKeySecurityScheme(SecuritySchemeBase):
    """API Key security scheme."""

    type: Literal["apiKey"] = "apiKey"
    name: str
    in_: Literal["cookie", "header", "query"] = Field(alias="in")


class HTTPAuthSecurityScheme(SecuritySchemeBase):
    """HTTP Authentication security scheme."""

    type: Literal["http"] = "http"
    scheme: str
    bearer_format: str | None = None


class AuthorizationCodeOAuthFlow(A2ABaseModel):
    """Configuration details for the OAuth authorization code flow."""

    authorization_url: str
    token_url: str
    scopes: dict[str, str]
    refresh_url: str | None = None


class ClientCredentialsOAuthFlow(A2ABaseModel):
    """Configuration details for the OAuth client credentials flow."""

    token_url: str
    scopes: dict[str, str]
    refresh_url: str | None = None


class ImplicitOAuthFlow(A2ABaseModel):
    """Configuration details for the OAuth implicit flow."""

    authorization_url: str
    scopes: dict[str, str]
    refresh_url: str | None = None


class PasswordOAuthFlow(A2ABaseModel):
    """Configuration details for the OAuth resource owner password flow."""

    token_url: str
    scopes: dict[str, str]
    refresh_url: str | None = None


class OAuthFlows(A2ABaseModel):
    """Allows configuration of the supported OAuth Flows."""

    authorization_code: AuthorizationCodeOAuthFlow | None = None
    client_credentials: ClientCredentialsOAuthFlow | None = None
    implicit: ImplicitOAuthFlow | None = None
    password: PasswordOAuthFlow | None = None


class OAuth2SecurityScheme(SecuritySchemeBase):
    """OAuth2.0 security scheme configuration."""

    type: Literal["oauth2"] = "oauth2"
    flows: OAuthFlows


class OpenIdConnectSecurityScheme(SecuritySchemeBase):
    """OpenID Connect security scheme configuration."""

    type: Literal["openIdConnect"] = "openIdConnect"
    open_id_connect_url: str


SecurityScheme = Annotated[
    APIKeySecurityScheme | HTTPAuthSecurityScheme | OAuth2SecurityScheme | OpenIdConnectSecurityScheme,
    Field(discriminator="type"),
]

security_scheme_adapter: TypeAdapter[
    APIKeySecurityScheme | HTTPAuthSecurityScheme | OAuth2SecurityScheme | OpenIdConnectSecurityScheme
] = TypeAdapter(SecurityScheme, config=DEFER)


class AgentCard(A2ABaseModel):
    """Who the agent is, what it can do, which modalities it speaks and how clients authenticate."""

    name: str
    description: str
    url: str
    version: str
    capabilities: AgentCapabilities
    default_input_modes: list[str]
    default_output_modes: list[str]
    skills: list[AgentSkill]
    protocol_version: str = generations.V0_2.card_version
    preferred_transport: str = generations.JSONRPC
    additional_interfaces: list[AgentInterface] | None = None
    provider: AgentProvider | None = None
    documentation_url: str | None = None
    icon_url: str | None = None
    security: list[dict[str, list[str]]] | None = None
    security_schemes: dict[str, SecurityScheme] | None = None
    supports_authenticated_extended_card: bool | None = None
