"""Auth for ``a2a-serverless dev``: the deployed modes, checked in-app, with local credentials.

- none: allowed without ``A2A_ALLOW_UNAUTHENTICATED`` (it is a laptop), announced loudly;
- api_key: the keys in ``A2A_API_KEYS``, or a fresh random key printed at start-up;
- jwt: the issuer in ``A2A_JWT_*``, or a throwaway `LocalIssuer` whose tokens are printed;
- iam: refused: only API Gateway can verify SigV4 signatures.
"""

from __future__ import annotations

import secrets
import sys
import tempfile
from dataclasses import dataclass, field

from pydantic import SecretStr

from a2a_core.settings import Settings, SettingsError


@dataclass(frozen=True)
class DevAuth:
    settings: Settings
    lines: list[str] = field(default_factory=list)  # for the start-up banner
    curl_header: str = ""  # what the banner's curl example sends to authenticate


def dev_auth(settings: Settings) -> DevAuth:
    mode = settings.auth_mode
    if mode == "none":
        return DevAuth(
            settings.model_copy(update={"allow_unauthenticated": True}),
            ["Auth:       NONE - anyone who can reach this port can call the agent (try --auth api_key|jwt)"],
        )
    if mode == "api_key":
        return _api_key(settings)
    if mode == "jwt":
        return _jwt(settings)
    raise SettingsError(
        "auth mode iam works only behind API Gateway, which verifies SigV4 signatures; locally use "
        "--auth api_key or --auth jwt"
    )


def _api_key(settings: Settings) -> DevAuth:
    if settings.api_keys:
        ids = ", ".join(sorted(settings.api_keys))
        return DevAuth(
            settings, [f"Auth:       API key (x-api-key header); key ids from A2A_API_KEYS: {ids}"]
        )
    key = secrets.token_urlsafe(24)
    return DevAuth(
        settings.model_copy(update={"api_keys": {"dev": SecretStr(key)}}),
        [f"Auth:       API key (x-api-key header); a key for this run (id 'dev'): {key}"],
        f"-H 'x-api-key: {key}' ",
    )


def _jwt(settings: Settings) -> DevAuth:
    if settings.jwt_issuer or settings.jwt_jwks_url or settings.jwt_jwks_file:
        return DevAuth(settings, [f"Auth:       JWT bearer tokens from {settings.jwt_issuer}"])
    from a2a_core.auth.testing import LocalIssuer

    issuer = LocalIssuer()
    directory = tempfile.mkdtemp(prefix="a2a-dev-issuer-")
    local = settings.model_copy(update=issuer.settings(directory))
    token = issuer.mint("dev-user")
    mint = (
        f'{sys.executable} -c "from a2a_core.auth.testing import LocalIssuer; '
        f"print(LocalIssuer.load('{directory}').mint('alice'))\""
    )
    return DevAuth(
        local,
        [
            f"Auth:       JWT bearer tokens from a local test issuer ({issuer.issuer}, keys in {directory})",
            f"Token:      {token}  (sub dev-user, valid 1 h)",
            f"Mint more:  {mint}",
        ],
        f"-H 'authorization: Bearer {token}' ",
    )
