from __future__ import annotations

import pytest

from a2a_core.compose.agent import load_agent
from a2a_core.settings import Settings, SettingsError


def test_defaults_need_no_environment() -> None:
    settings = Settings.from_env({})
    assert settings.max_body_bytes == 6 * 1024 * 1024
    assert settings.default_blocking is True
    assert settings.agent == "a2a_core.examples.echo:agent"


def test_values_come_from_prefixed_variables_with_json_for_structures() -> None:
    settings = Settings.from_env(
        {
            "A2A_NAME": "Travel Agent",
            "A2A_DEFAULT_BLOCKING": "false",
            "A2A_BLOCKING_TIMEOUT_SECONDS": "10",
            "A2A_SKILLS": '[{"id": "book", "name": "Book", "description": "Trips", "tags": ["travel"]}]',
            "UNRELATED": "ignored",
        }
    )
    assert settings.name == "Travel Agent"
    assert settings.default_blocking is False
    assert settings.blocking_timeout_seconds == 10
    assert settings.skills[0].id == "book"


def test_overrides_win_and_none_overrides_are_ignored() -> None:
    settings = Settings.from_env({"A2A_AGENT": "pkg.mod:a"}, agent=None, name="X")
    assert settings.agent == "pkg.mod:a"
    assert settings.name == "X"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"A2A_SKILLS": "[not json"}, "A2A_SKILLS must be JSON"),
        ({"A2A_MAX_BODY_BYTES": "0"}, "A2A_MAX_BODY_BYTES"),
        ({"A2A_BLOCKING_TIMEOUT_SECONDS": "60"}, "A2A_BLOCKING_TIMEOUT_SECONDS"),
        ({"A2A_BACKEND": "redis"}, "A2A_BACKEND"),
        ({"A2A_TENANT": "acme/eu"}, "A2A_TENANT"),
        # /tasks/tasks would be task "tasks"; /healthz/... never reaches the REST API's proxy.
        ({"A2A_TENANT": "tasks"}, "A2A_TENANT: .*'tasks' cannot be a tenant"),
        ({"A2A_TENANT": "healthz"}, "collide with the agent's own"),
    ],
)
def test_bad_values_name_the_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings.from_env(env)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_colon", "must look like"),
        ("missing.module:agent", "cannot load agent"),
        ("a2a_core.examples.echo:missing", "cannot load agent"),
    ],
)
def test_agent_specs_that_cannot_load_say_why(spec: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        load_agent(spec)
