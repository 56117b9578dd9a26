"""The JWT issuer the ``A2A_JWT_*`` settings name, checked in one place for both token checkers:
the app checking tokens itself (dev, a function URL) and the REST API's authorizer function."""

from __future__ import annotations

from typing import TYPE_CHECKING

from a2a_core.settings import ENV_PREFIX, Settings, SettingsError

if TYPE_CHECKING:
    from a2a_core.auth.bearer import TokenValidator

_ISSUER, _AUDIENCE = f"{ENV_PREFIX}JWT_ISSUER", f"{ENV_PREFIX}JWT_AUDIENCE"
_URL, _FILE = f"{ENV_PREFIX}JWT_JWKS_URL", f"{ENV_PREFIX}JWT_JWKS_FILE"


def token_validator(settings: Settings, *, checker: str, jwks_file: bool = True) -> TokenValidator:
    """The validator for the configured issuer; raises `SettingsError` naming every variable that
    is missing, or the one that is malformed. ``checker`` says who checks tokens (for the
    message); ``jwks_file``: whether the issuer's keys may come from a file rather than its URL
    (the authorizer function fetches them from the URL only)."""
    from joserfc.errors import JoseError

    from a2a_core.auth.bearer import Jwks, TokenValidator

    issuer, audience, url, path = _required(settings, checker, jwks_file)
    try:
        jwks = Jwks(url=url) if url else Jwks.from_file(path or "")
    except (OSError, ValueError, JoseError) as error:
        raise SettingsError(f"{_FILE} {path!r} is not a readable JWKS: {error}") from None
    try:
        return TokenValidator(
            jwks,
            issuer=issuer,
            audience=audience,
            algorithms=settings.jwt_algorithms,
            leeway=settings.jwt_leeway_seconds,
        )
    except ValueError as error:
        raise SettingsError(f"{ENV_PREFIX}JWT_ALGORITHMS: {error}") from None


def _required(settings: Settings, checker: str, jwks_file: bool) -> tuple[str, str, str | None, str | None]:
    """Issuer, audience and where the keys are (a URL, or a file when allowed)."""
    s = settings
    path = s.jwt_jwks_file if jwks_file else None
    if s.jwt_jwks_url and path:
        raise SettingsError(
            f"{checker} reads the issuer's keys from exactly one of {_URL} and {_FILE}: unset one"
        )
    keys = f"{_URL} (or {_FILE})" if jwks_file else _URL
    given = {_ISSUER: s.jwt_issuer, _AUDIENCE: s.jwt_audience, keys: s.jwt_jwks_url or path}
    missing = [name for name, value in given.items() if not value]
    if missing or not s.jwt_issuer or not s.jwt_audience:
        raise SettingsError(
            f"{checker} needs {_ISSUER}, {_AUDIENCE} and {keys}; missing: {', '.join(missing)}"
        )
    return s.jwt_issuer, s.jwt_audience, s.jwt_jwks_url, path
