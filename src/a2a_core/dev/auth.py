"""Auth for ``a2a-serverless dev``: the deployed modes, checked in-app, with local credentials.

- none: allowed without ``A2A_ALLOW_UNAUTHENTICATED`` (it is a laptop), announced loudly;
- api_key: the keys in ``A2A_API_KEYS``, or a fresh random key printed at start-up;
- jwt: the issuer in ``A2A_JWT_*``, or a throwaway `LocalIssuer` whose tokens are printed;
- iam: refused: only API Gateway can verify SigV4 signatures.
"""

from __future__ import annotations

import atexit
import os
import secrets
import shlex
import shutil
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
        if "allow_unauthenticated" in settings.model_fields_set and not settings.allow_unauthenticated:
            raise SettingsError(
                "A2A_ALLOW_UNAUTHENTICATED is false but the auth mode is none: pass --auth api_key or "
                "--auth jwt, or unset A2A_ALLOW_UNAUTHENTICATED"
            )
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
        ids = sorted(settings.api_keys)
        # The curl example reads the first key from an owner-only file: a key the developer chose
        # is not printed (terminals end up in screenshots and logs), yet the example works as is.
        header = _private_file(
            "x-api-key-header", f"x-api-key: {settings.api_keys[ids[0]].get_secret_value()}\n"
        )
        return DevAuth(
            settings,
            [
                f"Auth:       API key (x-api-key header); key ids from A2A_API_KEYS: {', '.join(ids)}",
                f"Key file:   {header} (key {ids[0]!r} as a curl header, readable by you only)",
            ],
            f"-H {shlex.quote('@' + header)} ",
        )
    key = secrets.token_urlsafe(24)
    return DevAuth(
        settings.model_copy(update={"api_keys": {"dev": SecretStr(key)}}),
        [f"Auth:       API key (x-api-key header); a key for this run (id 'dev'): {key}"],
        f"-H 'x-api-key: {key}' ",
    )


def _jwt(settings: Settings) -> DevAuth:
    if settings.jwt_issuer or settings.jwt_jwks_url or settings.jwt_jwks_file:
        return DevAuth(
            settings,
            [
                f"Auth:       JWT bearer tokens from {settings.jwt_issuer}",
                "Token:      set A2A_TOKEN to one of its tokens for the curl example",
            ],
            '-H "authorization: Bearer $A2A_TOKEN" ',
        )
    partial = sorted(
        f"A2A_{name.upper()}"
        for name in ("jwt_audience", "jwt_algorithms")
        if name in settings.model_fields_set
    )
    if partial:  # the local issuer would replace them
        raise SettingsError(
            f"{', '.join(partial)} set without an issuer: set A2A_JWT_ISSUER and A2A_JWT_JWKS_URL (or "
            "A2A_JWT_JWKS_FILE), or unset them to use dev's local test issuer"
        )
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


def _private_file(name: str, content: str) -> str:
    directory = tempfile.mkdtemp(prefix="a2a-dev-")  # 0700
    path = os.path.join(directory, name)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as out:
        out.write(content)
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    return path
