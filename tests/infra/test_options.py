"""Props that are unsafe or inconsistent stop synthesis with a message naming them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App, Duration, Stack
from aws_cdk import aws_lambda as lambda_
from infra.bundling import SKIP_BUNDLING_CONTEXT
from infra.options import ConfigurationError, FunctionOptions, StreamingMode
from infra.service import A2AService

from infra import app as infra_app

AGENT = "a2a_core.examples.echo:agent"


def _service(**props: Any) -> A2AService:
    stack = Stack(App(context={SKIP_BUNDLING_CONTEXT: True}), "Stack")
    return A2AService(stack, "Service", **{"agent": AGENT, **props})


@pytest.mark.parametrize("agent", ["echo", "a2a_core.examples.echo", "a2a_core/echo:agent", ":agent", "mod:"])
def test_agent_must_be_module_colon_attribute(agent: str) -> None:
    with pytest.raises(ConfigurationError, match=r"package\.module:attribute"):
        _service(agent=agent)


def test_agent_packages_must_exist() -> None:
    with pytest.raises(ConfigurationError, match="agent_packages: no/such/dir"):
        _service(agent="research:agent", agent_packages=["no/such/dir"])


def test_buffered_api_cannot_outlive_api_gateways_29_seconds() -> None:
    with pytest.raises(ConfigurationError, match="29 s"):
        _service(api_function=FunctionOptions(memory_mb=256, timeout=Duration.seconds(60)))


def test_the_construct_owns_its_resource_variables() -> None:
    with pytest.raises(ConfigurationError, match="A2A_TABLE_NAME"):
        _service(environment={"A2A_TABLE_NAME": "elsewhere"})


@pytest.mark.parametrize(
    ("props", "named"),
    [
        ({"worker_batch_size": 11}, "worker_batch_size"),
        ({"worker_batch_size": 0}, "worker_batch_size"),
        ({"worker_max_concurrency": 1}, "worker_max_concurrency"),
        ({"retention_days": 0}, "retention_days"),
    ],
)
def test_limits_are_checked(props: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigurationError, match=named):
        _service(**props)


def test_push_function_is_added_once() -> None:
    service = _service()
    service.add_push_function()
    with pytest.raises(ConfigurationError, match="already added"):
        service.add_push_function()


def test_app_reads_its_choices_from_context(tmp_path: Path) -> None:
    app = App(
        outdir=str(tmp_path),
        context={
            SKIP_BUNDLING_CONTEXT: "true",
            "a2a:streaming": "response_stream",
            "a2a:architecture": "x86_64",
            "a2a:agent": "a2a_core.examples.multiturn:agent",
            "a2a:stack_name": "MyAgent",
            "a2a:push": "true",
        },
    )
    stack = infra_app.build(app)
    assert stack.stack_name == "MyAgent"
    assert stack.service.streaming is StreamingMode.RESPONSE_STREAM
    assert stack.service.api_function.architecture.name == lambda_.Architecture.X86_64.name
    assert stack.service.push_function is not None
