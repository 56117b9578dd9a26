"""Props that are unsafe or inconsistent stop synthesis with a message naming them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from aws_cdk import App, Duration, Stack
from aws_cdk import aws_lambda as lambda_

from a2a_core.cdk import A2AService, A2AServiceProps
from a2a_core.cdk.assets import SKIP_BUNDLING_CONTEXT
from a2a_core.cdk.options import ConfigurationError, FunctionOptions, StreamingMode
from a2a_core.project import Project, ProjectConfig, ProjectError
from infra import app as infra_app


def _service(**props: Any) -> A2AService:
    stack = Stack(App(context={SKIP_BUNDLING_CONTEXT: True}), "Stack")
    return A2AService(stack, "Service", A2AServiceProps(**props))


def test_the_projects_packages_must_exist_even_unbundled(tmp_path: Path) -> None:
    config = ProjectConfig(agent="research.agent:agent", packages=("no/such/dir",))
    with pytest.raises(
        ProjectError, match=r"pyproject\.toml: \[tool\.a2a-serverless\] packages: no/such/dir"
    ):
        _service(project=Project(root=tmp_path, config=config))


@pytest.mark.parametrize("runtime", [lambda_.Runtime.PYTHON_3_10, lambda_.Runtime.NODEJS_22_X])
def test_the_runtime_is_a_python_the_kit_runs_on(runtime: lambda_.Runtime) -> None:
    with pytest.raises(ConfigurationError, match=r"runtime must be Python 3\.11 or later"):
        _service(runtime=runtime)


def test_functions_run_python_3_13_unless_told_otherwise() -> None:
    assert _service().api_function.runtime.name == "python3.13"
    assert _service(runtime=lambda_.Runtime.PYTHON_3_14).worker_function.runtime.name == "python3.14"


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
            "a2a:runtime": "python3.14",
            "a2a:stack_name": "MyAgent",
            "a2a:push": "true",
        },
    )
    stack = infra_app.build(app)
    assert stack.stack_name == "MyAgent"
    assert stack.service.streaming is StreamingMode.RESPONSE_STREAM
    assert stack.service.api_function.architecture.name == lambda_.Architecture.X86_64.name
    assert stack.service.push_function is not None
    assert stack.service.project.agent == "a2a_core.examples.multiturn:agent"
    assert stack.service.api_function.runtime.name == "python3.14"
