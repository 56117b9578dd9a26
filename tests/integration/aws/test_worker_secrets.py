"""The worker's secrets on moto: each cold start of the worker Lambda handler reads them from
Secrets Manager and SSM into its environment before the agent's module is imported, with the
lean client and with botocore alike; a secret it cannot read fails the cold start, naming it."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from a2a_core.aws.clients import Sdk, client_factory
from a2a_core.aws.resources import ResourceNames
from a2a_core.aws.secrets import SecretError
from a2a_core.domain import TaskState
from a2a_core.emulator.moto_server import CREDENTIALS, EmulatedAws
from a2a_core.testing import text_of
from aws_events import Deployment, lambda_context, load_function, receive, settle, sqs_event

# The agent reads its keys when its module is imported, as model clients commonly do.
AGENT = """\
import json
import os

KEYS = {name: os.environ.get(name) for name in ("OPENAI_API_KEY", "GOOGLE_API_KEY", "ANTHROPIC_API_KEY")}


async def agent(ctx):
    return json.dumps(KEYS)
"""
NAMES = ("OPENAI_API_KEY", "GOOGLE_API_KEY", "ANTHROPIC_API_KEY")


@pytest.fixture
def deployment(local_aws: EmulatedAws, aws_resources: ResourceNames) -> Deployment:
    return Deployment(local_aws, aws_resources)


def _client(local_aws: EmulatedAws, service: str, sdk: Sdk = "botocore") -> Any:
    make = client_factory(
        local_aws.region, local_aws.endpoint_url, read_timeout=5, credentials=CREDENTIALS, sdk=sdk
    )
    return make(service)


@pytest.fixture
def secrets(local_aws: EmulatedAws) -> dict[str, str]:
    """Where each key is (name -> ARN): a string secret, a binary one, a SecureString parameter."""
    manager = _client(local_aws, "secretsmanager")
    suffix = uuid.uuid4().hex[:8]
    openai = manager.create_secret(Name=f"openai-{suffix}", SecretString="sk-openai-1")["ARN"]
    google = manager.create_secret(Name=f"google-{suffix}", SecretBinary=b"gemini-key-2")["ARN"]
    parameters = _client(local_aws, "ssm")
    name = f"/agent/{suffix}/anthropic"
    parameters.put_parameter(Name=name, Value="sk-ant-3", Type="SecureString")
    anthropic = parameters.get_parameter(Name=name)["Parameter"]["ARN"]
    return {"OPENAI_API_KEY": openai, "GOOGLE_API_KEY": google, "ANTHROPIC_API_KEY": anthropic}


def _agent_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A module of its own for each test: imported (its keys read) at the cold start only."""
    name = f"keyed_agent_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text(AGENT)
    monkeypatch.syspath_prepend(str(tmp_path))
    return f"{name}:agent"


def _cold_start(
    monkeypatch: pytest.MonkeyPatch, deployment: Deployment, agent: str, where: dict[str, str], **env: str
) -> ModuleType:
    for name in NAMES:  # unset now, and again after the test (the cold start sets them)
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    variables = deployment.env(A2A_AGENT=agent, A2A_WORKER_SECRETS=json.dumps(where), **env)
    return load_function(monkeypatch, "worker", variables)


def _run_turn(worker: ModuleType, deployment: Deployment) -> dict[str, Any]:
    task_id = deployment.start_task("which keys?")
    queue = deployment.names.queue_url
    messages = receive(deployment.sqs, queue)
    response = worker.handler(sqs_event(deployment.sqs, queue, messages), lambda_context())
    settle(deployment.sqs, queue, messages, response)
    task = deployment.task(task_id)
    assert task.status.state == TaskState.completed, task.status
    (reply,) = [m for m in task.history or [] if m.role.value == "agent"]
    return dict(json.loads(text_of(reply.parts)))


@pytest.mark.parametrize("sdk", ["lean", "botocore"])
def test_each_cold_start_reads_the_secrets_before_the_agent_is_imported(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    deployment: Deployment,
    secrets: dict[str, str],
    sdk: str,
) -> None:
    expected = {
        "OPENAI_API_KEY": "sk-openai-1",
        "GOOGLE_API_KEY": "gemini-key-2",
        "ANTHROPIC_API_KEY": "sk-ant-3",
    }
    worker = _cold_start(
        monkeypatch, deployment, _agent_module(tmp_path, monkeypatch), secrets, A2A_AWS_CLIENT=sdk
    )
    assert _run_turn(worker, deployment) == expected
    # Another instance (its own cold start, its own import of the agent) reads them anew.
    manager = _client(deployment.aws, "secretsmanager")
    manager.put_secret_value(SecretId=secrets["OPENAI_API_KEY"], SecretString="sk-openai-rotated")
    again = _cold_start(
        monkeypatch, deployment, _agent_module(tmp_path, monkeypatch), secrets, A2A_AWS_CLIENT=sdk
    )
    assert _run_turn(again, deployment) == {**expected, "OPENAI_API_KEY": "sk-openai-rotated"}


def test_a_secret_the_worker_cannot_read_fails_its_cold_start_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, deployment: Deployment, secrets: dict[str, str]
) -> None:
    missing = secrets["OPENAI_API_KEY"].replace("openai-", "gone-")
    where = {**secrets, "OPENAI_API_KEY": missing}
    with pytest.raises(
        SecretError, match=rf"OPENAI_API_KEY: cannot read {missing} \(ResourceNotFoundException\)"
    ):
        _cold_start(monkeypatch, deployment, _agent_module(tmp_path, monkeypatch), where)
    # Nothing was half applied: not even the secrets that could be read reached the environment.
    assert not {name for name in NAMES if name in os.environ}


def test_an_arn_of_another_service_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, deployment: Deployment
) -> None:
    where = {"OPENAI_API_KEY": "arn:aws:s3:::my-bucket/key"}
    with pytest.raises(SecretError, match="is not a Secrets Manager or SSM ARN"):
        _cold_start(monkeypatch, deployment, _agent_module(tmp_path, monkeypatch), where)


def test_the_lean_client_reads_secrets_as_botocore_does(
    local_aws: EmulatedAws, secrets: dict[str, str]
) -> None:
    def without_metadata(answer: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in answer.items() if k not in ("ResponseMetadata", "CreatedDate")}

    lean, botocore = _client(local_aws, "secretsmanager", "lean"), _client(local_aws, "secretsmanager")
    for name in ("OPENAI_API_KEY", "GOOGLE_API_KEY"):
        ask = {"SecretId": secrets[name]}
        assert without_metadata(lean.get_secret_value(**ask)) == without_metadata(
            botocore.get_secret_value(**ask)
        )
    assert lean.get_secret_value(SecretId=secrets["GOOGLE_API_KEY"])["SecretBinary"] == b"gemini-key-2"
    lean_ssm, botocore_ssm = _client(local_aws, "ssm", "lean"), _client(local_aws, "ssm")
    name = secrets["ANTHROPIC_API_KEY"]
    lean_value = lean_ssm.get_parameter(Name=name, WithDecryption=True)["Parameter"]
    botocore_value = botocore_ssm.get_parameter(Name=name, WithDecryption=True)["Parameter"]
    assert lean_value["Value"] == botocore_value["Value"] == "sk-ant-3"
