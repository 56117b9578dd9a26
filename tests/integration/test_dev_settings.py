"""`a2a-serverless dev` honours or refuses what it is told, never silently overrides it."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_core.core.turn.executor import as_executor
from a2a_core.dev import DevStack
from a2a_core.dev.auth import dev_auth
from a2a_core.dev.console import banner
from a2a_core.dev.stack import build_dev_stack
from a2a_core.examples.echo import agent as echo
from a2a_core.settings import Settings, SettingsError

HOOK = "http://127.0.0.1:9/hook"  # loopback, plain http: only what dev allows by default


@pytest.fixture
def stacks() -> Iterator[list[DevStack]]:
    """Stacks built by a test; their emulators are stopped afterwards."""
    built: list[DevStack] = []
    yield built
    for stack in built:
        if stack.emulator is not None:
            stack.emulator.stop()


def local(stacks: list[DevStack], environ: dict[str, str]) -> DevStack:
    settings = Settings.from_env({"A2A_BACKEND": "local", **environ})
    stack = build_dev_stack(settings, as_executor(echo))
    stacks.append(stack)
    return stack


async def set_push(stack: DevStack) -> dict[str, Any]:
    transport = httpx.ASGITransport(app=stack.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:

        async def call(method: str, params: dict[str, Any]) -> dict[str, Any]:
            body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
            answer: dict[str, Any] = (await client.post("/", json=body)).json()
            return answer

        message = {"role": "user", "messageId": "m1", "parts": [{"kind": "text", "text": "hi"}]}
        created = await call("message/send", {"message": message, "configuration": {"blocking": False}})
        config = {"url": HOOK}
        return await call(
            "tasks/pushNotificationConfig/set",
            {"taskId": created["result"]["id"], "pushNotificationConfig": config},
        )


@pytest.mark.anyio
async def test_loopback_webhooks_are_dev_s_default_when_the_variable_is_unset(
    stacks: list[DevStack],
) -> None:
    stack = local(stacks, {"A2A_PUSH_ENABLED": "true"})
    answer = await set_push(stack)
    assert answer["result"]["pushNotificationConfig"]["url"] == HOOK


@pytest.mark.anyio
async def test_an_explicit_false_for_loopback_webhooks_is_honoured(stacks: list[DevStack]) -> None:
    stack = local(stacks, {"A2A_PUSH_ENABLED": "true", "A2A_PUSH_ALLOW_INSECURE_LOOPBACK": "false"})
    answer = await set_push(stack)
    assert answer["error"]["code"] == -32602
    assert answer["error"]["data"]["field"] == "pushNotificationConfig.url"


@pytest.mark.parametrize(
    "variable", ["A2A_TABLE_NAME", "A2A_QUEUE_URL", "A2A_BUCKET_NAME", "A2A_AWS_ENDPOINT_URL"]
)
def test_resources_named_for_the_local_backend_are_refused(variable: str, stacks: list[DevStack]) -> None:
    with pytest.raises(SettingsError, match=f"{variable} name AWS resources"):
        local(stacks, {variable: "http://elsewhere/tasks"})


def test_the_local_backend_runs_in_the_configured_region(stacks: list[DevStack]) -> None:
    stack = local(stacks, {"A2A_AWS_REGION": "eu-west-1"})
    assert stack.emulator is not None
    assert stack.emulator.region == "eu-west-1"
    assert stack.emulator.clients.dynamodb.meta.region_name == "eu-west-1"


def test_dev_startup_does_not_look_for_real_aws_credentials(
    stacks: list[DevStack], caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAREALLOOKINGKEY0001")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "real-looking-secret")
    caplog.set_level(logging.DEBUG, logger="botocore.credentials")
    local(stacks, {})
    assert not [r for r in caplog.records if r.name == "botocore.credentials"], caplog.text


def test_dev_does_not_put_credentials_in_the_environment(
    stacks: list[DevStack], monkeypatch: pytest.MonkeyPatch
) -> None:
    # An agent's own AWS calls (a Bedrock model) must find the developer's profile, not fakes.
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)
    local(stacks, {})
    assert "AWS_ACCESS_KEY_ID" not in os.environ
    assert "AWS_SECRET_ACCESS_KEY" not in os.environ


def test_an_explicit_refusal_of_unauthenticated_access_is_honoured() -> None:
    with pytest.raises(SettingsError, match="A2A_ALLOW_UNAUTHENTICATED is false"):
        dev_auth(Settings.from_env({"A2A_ALLOW_UNAUTHENTICATED": "false"}))
    assert dev_auth(Settings.from_env({})).settings.allow_unauthenticated


def test_a_partial_jwt_configuration_is_refused_not_replaced_by_the_local_issuer() -> None:
    settings = Settings.from_env({"A2A_AUTH_MODE": "jwt", "A2A_JWT_AUDIENCE": "api://mine"})
    with pytest.raises(SettingsError, match="A2A_JWT_AUDIENCE set without an issuer"):
        dev_auth(settings)


def test_the_banner_says_what_is_kept(stacks: list[DevStack]) -> None:
    fresh = local(stacks, {})
    assert "--fresh, it starts empty" in banner("http://127.0.0.1:1/", fresh.description, kept=fresh.kept)
    memory = build_dev_stack(Settings(backend="memory"), as_executor(echo))
    assert "Kept:       nothing: this process only" in banner("u", memory.description, kept=memory.kept)


def test_a_configured_api_key_reaches_curl_through_an_owner_only_file() -> None:
    settings = Settings.from_env({"A2A_AUTH_MODE": "api_key", "A2A_API_KEYS": json.dumps({"ci": "s3cr3t"})})
    auth = dev_auth(settings)
    text = banner("http://127.0.0.1:8000/", "memory", auth)
    assert "s3cr3t" not in text
    path = auth.curl_header.split("@", 1)[1].strip().strip("'")
    assert Path(path).read_text() == "x-api-key: s3cr3t\n"
    assert Path(path).stat().st_mode & 0o077 == 0
    assert f"-H @{path}" in text
