"""``max_turn_seconds``: the construct's prop (else the project's value) reaches the worker function
alone as ``A2A_MAX_TURN_SECONDS``; a value that cannot be a turn's limit is refused at synth."""

from __future__ import annotations

from pathlib import Path

import pytest
from aws_cdk import Stack
from aws_cdk.assertions import Template

from a2a_core.cdk import A2AService, A2AServiceProps, ConfigurationError
from a2a_core.cdk.testing import checked_app, properties
from a2a_core.project import load_project


def _variables(template: Template, function: str) -> dict[str, object]:
    body = properties(template, "AWS::Lambda::Function", f"/Functions/{function}/Resource")
    return dict(body["Environment"]["Variables"])


def test_the_worker_alone_gets_the_props_max_turn_seconds_and_a_plain_service_none(tmp_path: Path) -> None:
    app = checked_app(tmp_path / "cdk.out")
    A2AService(Stack(app, "Long"), "Service", A2AServiceProps(max_turn_seconds=3600))
    A2AService(Stack(app, "Plain"), "Service")
    assembly = app.synth()
    long = Template.from_json(assembly.get_stack_by_name("Long").template)
    plain = Template.from_json(assembly.get_stack_by_name("Plain").template)
    assert _variables(long, "Worker")["A2A_MAX_TURN_SECONDS"] == "3600"
    assert "A2A_MAX_TURN_SECONDS" not in _variables(long, "Api")
    assert "A2A_MAX_TURN_SECONDS" not in _variables(plain, "Worker")


def test_the_projects_max_turn_seconds_is_the_default(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "long"\nversion = "0.1.0"\n\n'
        '[tool.a2a-serverless]\nagent = "a2a_core.examples.echo:agent"\nmax_turn_seconds = 5400\n'
    )
    service = A2AService(Stack(), "Service", A2AServiceProps(project=load_project(tmp_path)))
    assert service.max_turn_seconds == 5400
    overridden = A2AServiceProps(project=load_project(tmp_path), max_turn_seconds=600)
    assert A2AService(Stack(), "Service", overridden).max_turn_seconds == 600


@pytest.mark.parametrize("seconds", [0, -5, 2 * 24 * 3600])
def test_a_max_turn_seconds_that_cannot_be_a_limit_is_refused(seconds: float) -> None:
    with pytest.raises(ConfigurationError, match="max_turn_seconds"):
        A2AServiceProps(max_turn_seconds=seconds)


def test_the_worker_environment_cannot_set_it_behind_the_props_back() -> None:
    props = A2AServiceProps(worker_environment={"A2A_MAX_TURN_SECONDS": "60"})
    with pytest.raises(ConfigurationError, match="set by A2AService itself"):
        A2AService(Stack(), "Service", props)
