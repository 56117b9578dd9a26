"""Auth configuration: the start-up checks, `a2a-serverless dev`'s local credentials, the card."""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from a2a_core.auth import CredentialsRejectedError, NoAuthenticator, Principal, build_authenticator
from a2a_core.auth.bearer import Jwks, TokenValidator
from a2a_core.auth.testing import LocalIssuer
from a2a_core.dev.auth import dev_auth
from a2a_core.dev.console import banner
from a2a_core.domain import AgentSkill, to_wire
from a2a_core.protocol.card import CardBuilder
from a2a_core.protocol.v0.card import CardDocuments
from a2a_core.settings import Settings, SettingsError

pytestmark = pytest.mark.anyio

SKILL = AgentSkill(id="s", name="S", description="d", tags=[])


def test_none_needs_the_explicit_opt_out() -> None:
    with pytest.raises(SettingsError, match="A2A_ALLOW_UNAUTHENTICATED=true"):
        build_authenticator(Settings())
    assert isinstance(build_authenticator(Settings(allow_unauthenticated=True)), NoAuthenticator)


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"jwt_issuer": "https://issuer/"}, "A2A_JWT_AUDIENCE"),
        (
            {"jwt_issuer": "i", "jwt_audience": "a", "jwt_jwks_url": "https://x/", "jwt_jwks_file": "f"},
            "exactly one",
        ),
        ({"jwt_issuer": "i", "jwt_audience": "a", "jwt_jwks_file": "/nonexistent/jwks.json"}, "A2A_JWT_"),
        (
            {
                "jwt_issuer": "i",
                "jwt_audience": "a",
                "jwt_jwks_url": "https://x/",
                "jwt_algorithms": ["HS256"],
            },
            "HS256",
        ),
    ],
)
def test_an_incomplete_or_unsafe_jwt_configuration_stops_start_up(
    fields: dict[str, Any], problem: str
) -> None:
    with pytest.raises(SettingsError, match=problem):
        build_authenticator(Settings(auth_mode="jwt", **fields))


def test_an_empty_algorithm_list_stops_start_up() -> None:
    # Issue 22 item 17: [] used to start and fall back to the JWT library's defaults.
    with pytest.raises(SettingsError, match=r"A2A_JWT_ALGORITHMS: .*at least one algorithm"):
        Settings.from_env({"A2A_AUTH_MODE": "jwt", "A2A_JWT_ALGORITHMS": "[]"})
    with pytest.raises(ValueError, match="no algorithms"):
        TokenValidator(Jwks(url="https://issuer.example/jwks"), issuer="i", audience="a", algorithms=[])


async def test_jwt_without_local_validation_accepts_only_gateway_verified_tokens() -> None:
    authenticator = build_authenticator(Settings(auth_mode="jwt"))
    token = LocalIssuer().mint("alice")
    with pytest.raises(CredentialsRejectedError, match="checked by API Gateway"):
        await authenticator.authenticate({}, {"authorization": f"Bearer {token}"})


def test_api_keys_come_from_json_and_never_show_in_the_settings() -> None:
    settings = Settings.from_env({"A2A_AUTH_MODE": "api_key", "A2A_API_KEYS": '{"ci": "s3cr3t-value"}'})
    assert settings.api_keys["ci"].get_secret_value() == "s3cr3t-value"
    assert "s3cr3t-value" not in repr(settings)
    assert "s3cr3t-value" not in str(settings.model_dump())


def test_principal_keys_never_collide_across_kinds() -> None:
    assert Principal("anonymous", "anonymous").key == "anonymous"
    assert Principal("api_key", "anonymous").key == "api_key:anonymous"
    assert Principal("jwt", "https://i/|alice").key == "jwt:https://i/|alice"
    assert Principal("iam", "arn:aws:iam::1:user/a").key == "iam:arn:aws:iam::1:user/a"


# a2a-serverless dev


def test_dev_defaults_to_none_and_says_so_loudly() -> None:
    auth = dev_auth(Settings())
    assert auth.settings.allow_unauthenticated
    assert "NONE - anyone who can reach this port" in banner("http://127.0.0.1:8000/", "memory", auth)


async def test_dev_api_key_mode_makes_and_prints_a_key() -> None:
    auth = dev_auth(Settings(auth_mode="api_key"))
    key = auth.settings.api_keys["dev"].get_secret_value()
    text = banner("http://127.0.0.1:8000/", "memory", auth)
    assert key in text
    assert f"-H 'x-api-key: {key}'" in text  # the curl example works as printed
    principal = await build_authenticator(auth.settings).authenticate({}, {"x-api-key": key})
    assert principal.key == "api_key:dev"


def test_dev_api_key_mode_does_not_print_configured_keys() -> None:
    settings = Settings.from_env({"A2A_AUTH_MODE": "api_key", "A2A_API_KEYS": '{"ci": "s3cr3t-value"}'})
    text = banner("http://127.0.0.1:8000/", "memory", dev_auth(settings))
    assert "ci" in text
    assert "s3cr3t-value" not in text


async def test_dev_jwt_mode_runs_a_local_issuer_and_prints_how_to_mint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    auth = dev_auth(Settings(auth_mode="jwt"))
    token = next(line.split()[1] for line in auth.lines if line.startswith("Token:"))
    authenticator = build_authenticator(auth.settings)
    assert (await authenticator.authenticate({}, {"authorization": f"Bearer {token}"})).id.endswith(
        "|dev-user"
    )
    # The printed command mints with the same key, from another process.
    directory = Path(auth.settings.jwt_jwks_file or "").parent
    assert f"LocalIssuer.load('{directory}').mint('alice')" in "\n".join(auth.lines)
    minted = LocalIssuer.load(directory).mint("alice")
    assert (await authenticator.authenticate({}, {"authorization": f"Bearer {minted}"})).id.endswith("|alice")
    assert (directory / "issuer.json").stat().st_mode & 0o077 == 0  # the private key is owner-only


def test_dev_refuses_iam() -> None:
    with pytest.raises(SettingsError, match="only behind API Gateway"):
        dev_auth(Settings(auth_mode="iam"))


# The card mirrors the mode.


def _card(**settings: Any) -> dict[str, Any]:
    builder = CardBuilder(Settings(**settings), streaming=True, push_notifications=False)
    card: dict[str, Any] = json.loads(CardDocuments(builder).card_json("https://agent.example/"))
    return card


def test_an_open_agent_declares_no_security() -> None:
    card = _card()
    assert "securitySchemes" not in card
    assert "security" not in card


@pytest.mark.parametrize(
    ("mode", "name", "scheme"),
    [
        ("api_key", "apiKey", {"type": "apiKey", "name": "x-api-key", "in": "header"}),
        ("jwt", "bearer", {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}),
        ("iam", "sigv4", {"type": "apiKey", "name": "Authorization", "in": "header"}),
    ],
)
def test_the_card_declares_the_auth_mode(mode: str, name: str, scheme: dict[str, str]) -> None:
    card = _card(auth_mode=mode)
    assert card["security"] == [{name: []}]
    declared = card["securitySchemes"][name]
    assert {k: v for k, v in declared.items() if k != "description"} == scheme
    assert declared["description"]


def test_the_extended_card_is_announced_only_with_auth_and_extra_skills() -> None:
    assert _card(auth_mode="api_key", extended_skills=[to_wire(SKILL)])["supportsAuthenticatedExtendedCard"]
    assert "supportsAuthenticatedExtendedCard" not in _card(auth_mode="api_key")
    assert "supportsAuthenticatedExtendedCard" not in _card(extended_skills=[to_wire(SKILL)])


def test_the_dev_command_refuses_iam_at_start_up(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from a2a_core.cli import main

    monkeypatch.setenv("A2A_AUTH_MODE", "iam")
    assert main(["dev", "--port", "0", "--backend", "memory"]) == 2
    assert "only behind API Gateway" in capsys.readouterr().err


def test_the_dev_command_takes_the_auth_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    import a2a_core.cli
    import a2a_core.cli.dev

    seen: list[str] = []

    def run_dev(args: argparse.Namespace) -> int:
        seen.append(args.auth)
        return 0

    monkeypatch.setattr(a2a_core.cli.dev, "run", run_dev)
    assert a2a_core.cli.main(["dev", "--auth", "jwt"]) == 0
    with pytest.raises(SystemExit):
        a2a_core.cli.main(["dev", "--auth", "iam"])  # not a local mode
    assert seen == ["jwt"]
