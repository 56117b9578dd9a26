"""1.0 security schemes (a oneof per scheme, OpenAPI 3.2 terms), OAuth flows and requirements."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field, model_validator

from a2a_core.protocol.v1.wire.protojson import (
    ImplicitBool,
    ProtoModel,
    RequiredStr,
    Str,
    StrList,
    check_oneof,
    unset_if_empty,
)

# Proto maps: an empty one is not sent (so a REQUIRED `scopes` may be absent: no scopes).
Scopes = Annotated[dict[str, str] | None, AfterValidator(unset_if_empty)]


class StringList(ProtoModel):
    list_: StrList = Field(default=None, alias="list")


class SecurityRequirement(ProtoModel):
    """Scheme name -> the scopes it needs (``{"schemes": {"oauth": {"list": ["read"]}}}``)."""

    schemes: Annotated[dict[str, StringList] | None, AfterValidator(unset_if_empty)] = None


class APIKeySecurityScheme(ProtoModel):
    location: RequiredStr
    name: RequiredStr
    description: Str = None


class HTTPAuthSecurityScheme(ProtoModel):
    scheme: RequiredStr
    description: Str = None
    bearer_format: Str = None


class AuthorizationCodeOAuthFlow(ProtoModel):
    authorization_url: RequiredStr
    token_url: RequiredStr
    refresh_url: Str = None
    scopes: Scopes = None
    pkce_required: ImplicitBool = None


class ClientCredentialsOAuthFlow(ProtoModel):
    token_url: RequiredStr
    refresh_url: Str = None
    scopes: Scopes = None


class ImplicitOAuthFlow(ProtoModel):
    authorization_url: Str = None
    refresh_url: Str = None
    scopes: Scopes = None


class PasswordOAuthFlow(ProtoModel):
    token_url: Str = None
    refresh_url: Str = None
    scopes: Scopes = None


class DeviceCodeOAuthFlow(ProtoModel):
    device_authorization_url: RequiredStr
    token_url: RequiredStr
    refresh_url: Str = None
    scopes: Scopes = None


OAUTH_FLOWS = ("authorization_code", "client_credentials", "implicit", "password", "device_code")


class OAuthFlows(ProtoModel):
    authorization_code: AuthorizationCodeOAuthFlow | None = None
    client_credentials: ClientCredentialsOAuthFlow | None = None
    implicit: ImplicitOAuthFlow | None = None
    password: PasswordOAuthFlow | None = None
    device_code: DeviceCodeOAuthFlow | None = None

    @model_validator(mode="after")
    def _one_flow(self) -> OAuthFlows:
        check_oneof(self, "flow", OAUTH_FLOWS)
        return self


class OAuth2SecurityScheme(ProtoModel):
    flows: OAuthFlows
    description: Str = None
    oauth2_metadata_url: Str = None


class OpenIdConnectSecurityScheme(ProtoModel):
    open_id_connect_url: RequiredStr
    description: Str = None


class MutualTlsSecurityScheme(ProtoModel):
    description: Str = None


SCHEMES = (
    "api_key_security_scheme",
    "http_auth_security_scheme",
    "oauth2_security_scheme",
    "open_id_connect_security_scheme",
    "mtls_security_scheme",
)


class SecurityScheme(ProtoModel):
    api_key_security_scheme: APIKeySecurityScheme | None = None
    http_auth_security_scheme: HTTPAuthSecurityScheme | None = None
    oauth2_security_scheme: OAuth2SecurityScheme | None = None
    open_id_connect_security_scheme: OpenIdConnectSecurityScheme | None = None
    mtls_security_scheme: MutualTlsSecurityScheme | None = None

    @model_validator(mode="after")
    def _one_scheme(self) -> SecurityScheme:
        check_oneof(self, "scheme", SCHEMES)
        return self
