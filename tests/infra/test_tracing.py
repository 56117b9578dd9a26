"""X-Ray: on by default (every function and the REST API's stage); tracing=False turns it off
everywhere, its permissions with it."""

from __future__ import annotations

import json

import pytest
from aws_cdk.assertions import Template

from a2a_core.cdk import A2AServiceProps, A2AStack
from a2a_core.cdk.testing import checked_app


@pytest.fixture(scope="module")
def untraced(tmp_path_factory: pytest.TempPathFactory) -> Template:
    app = checked_app(tmp_path_factory.mktemp("cdk.out"))
    A2AStack(app, "Untraced", A2AServiceProps(tracing=False), push=True)
    return Template.from_json(app.synth().get_stack_by_name("Untraced").template)


def test_tracing_is_on_by_default(default: Template) -> None:
    functions = [f["Properties"] for f in default.find_resources("AWS::Lambda::Function").values()]
    assert all(f["TracingConfig"] == {"Mode": "Active"} for f in functions if "Handler" in f)
    (stage,) = default.find_resources("AWS::ApiGateway::Stage").values()
    assert stage["Properties"]["TracingEnabled"] is True


def test_without_tracing_no_function_or_stage_sends_traces(untraced: Template) -> None:
    functions = [f["Properties"] for f in untraced.find_resources("AWS::Lambda::Function").values()]
    assert len([f for f in functions if "Handler" in f]) == 4  # api, worker, dead letters, push
    assert all(f.get("TracingConfig", {"Mode": "PassThrough"}) != {"Mode": "Active"} for f in functions)
    (stage,) = untraced.find_resources("AWS::ApiGateway::Stage").values()
    assert stage["Properties"].get("TracingEnabled") is not True
    assert "xray:" not in json.dumps(untraced.find_resources("AWS::IAM::Policy"))
