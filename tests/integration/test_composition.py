"""One composition path: each backend's adapters decided in one place (`compose.backends`), one
worker builder, one app per dev stack, one validator of the JWT settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import a2a_core.dev.stack
from a2a_core.auth import build_authenticator
from a2a_core.aws.dynamodb.task_store import DynamoDBTaskStore
from a2a_core.aws.resources import QUEUE
from a2a_core.aws.sqs_broker import SqsBroker
from a2a_core.compose import build_server, compose_server, compose_worker, page_token_secret
from a2a_core.compose.app import compose_app
from a2a_core.compose.backends import build_adapters
from a2a_core.core.broker import InMemoryBroker
from a2a_core.core.push_store import InMemoryPushConfigStore
from a2a_core.core.tasklog.store import InMemoryTaskStore
from a2a_core.core.tasklog.waking_store import WakingTaskStore
from a2a_core.core.turn.context_store import InMemoryContextStore
from a2a_core.core.turn.executor import as_executor
from a2a_core.dev.stack import build_dev_stack
from a2a_core.examples.echo import agent as echo
from a2a_core.push.dead_letters import InMemoryPushDeadLetters
from a2a_core.settings import Settings, SettingsError
from aws_events import load_function

AWS = {
    "aws_region": "eu-west-1",
    "table_name": "tasks",
    "bucket_name": "parts",
    "queue_url": "https://sqs.eu-west-1.amazonaws.com/123456789012/runs",
    "allow_unauthenticated": True,
}


def test_the_memory_backend_keeps_every_port_in_this_process() -> None:
    adapters = build_adapters(Settings(backend="memory"))
    assert isinstance(adapters.store, InMemoryTaskStore)
    assert isinstance(adapters.broker, InMemoryBroker)
    assert isinstance(adapters.push_store, InMemoryPushConfigStore)
    assert isinstance(adapters.context_store, InMemoryContextStore)
    assert isinstance(adapters.push_dead_letters, InMemoryPushDeadLetters)
    assert adapters.store is adapters.store  # one store per backend, shared by API and worker


def test_the_local_backend_is_the_aws_adapters_announcing_writes_in_this_process() -> None:
    store = build_adapters(Settings(backend="local", **AWS)).store
    assert isinstance(store, WakingTaskStore)
    assert isinstance(store.inner, DynamoDBTaskStore)


def test_the_aws_backend_builds_only_what_a_function_asks_for() -> None:
    adapters = build_adapters(Settings(backend="aws", **{**AWS, "queue_url": None}))
    assert isinstance(adapters.store, DynamoDBTaskStore)  # the worker needs no queue
    with pytest.raises(SettingsError, match="A2A_QUEUE_URL"):
        adapters.broker  # noqa: B018
    assert isinstance(build_adapters(Settings(backend="aws", **AWS)).broker, SqsBroker)


@pytest.mark.parametrize("function", ["worker", "dlq", "push"])
def test_a_function_beside_the_api_refuses_a_backend_in_its_own_memory(
    monkeypatch: pytest.MonkeyPatch, function: str
) -> None:
    with pytest.raises(SettingsError, match="A2A_BACKEND=aws"):
        load_function(monkeypatch, function, {"A2A_BACKEND": "memory", "A2A_PUSH_SIGNING_KEY_ID": "k"})


def test_page_tokens_outlive_an_instance_only_where_tasks_do() -> None:
    aws = Settings(backend="aws", **AWS)
    assert page_token_secret(aws) == page_token_secret(aws)  # every instance signs alike
    memory = Settings(backend="memory")
    assert page_token_secret(memory) != page_token_secret(memory)
    local = Settings(backend="local", **AWS)
    assert page_token_secret(local) != page_token_secret(local)
    tableless = Settings(backend="aws")
    assert page_token_secret(tableless) != page_token_secret(tableless)
    shared = Settings(backend="memory", page_token_secret="a-secret-of-the-stack")
    assert page_token_secret(shared) == b"a-secret-of-the-stack"


def test_every_worker_tries_a_turn_as_often_as_the_run_queue_delivers_it() -> None:
    settings = Settings(backend="memory", lease_seconds=42, allow_unauthenticated=True)
    adapters = build_adapters(settings)
    workers = [
        compose_worker(adapters, echo),
        compose_server(adapters).worker(echo),
        build_server(settings, store=adapters.store, broker=adapters.broker).worker(echo),
    ]
    assert {(w.max_attempts, w.lease_seconds) for w in workers} == {(QUEUE.max_receive_count, 42)}
    assert workers[0].context_store is adapters.context_store


@pytest.mark.parametrize("backend", ["memory", "aws"])
def test_dev_builds_one_app(monkeypatch: pytest.MonkeyPatch, backend: str) -> None:
    built: list[object] = []

    def counting(*args: Any, **kwargs: Any) -> Any:
        built.append(app := compose_app(*args, **kwargs))
        return app

    monkeypatch.setattr(a2a_core.dev.stack, "compose_app", counting)
    stack = build_dev_stack(Settings(backend=backend, **(AWS if backend == "aws" else {})), as_executor(echo))
    assert built == [stack.app]


def test_the_app_and_the_authorizer_check_the_jwt_settings_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    in_app = Settings(auth_mode="jwt", front_door="function_url", jwt_issuer="https://i/")
    with pytest.raises(
        SettingsError, match=r"missing: A2A_JWT_AUDIENCE, A2A_JWT_JWKS_URL \(or A2A_JWT_JWKS_FILE\)$"
    ):
        build_authenticator(in_app)
    env = {"A2A_AUTH_MODE": "jwt", "A2A_JWT_ISSUER": "https://i/"}
    with pytest.raises(SettingsError, match=r"missing: A2A_JWT_AUDIENCE, A2A_JWT_JWKS_URL$"):
        load_function(monkeypatch, "authorizer", env)


def test_an_unreadable_jwks_file_is_named(tmp_path: Path) -> None:
    broken = tmp_path / "jwks.json"
    broken.write_text("{not json")
    settings = Settings(auth_mode="jwt", jwt_issuer="https://i/", jwt_audience="a", jwt_jwks_file=str(broken))
    with pytest.raises(SettingsError, match=r"A2A_JWT_JWKS_FILE .*jwks\.json"):
        build_authenticator(settings)
