"""SnapStart on the worker function (``worker_snap_start``): its published versions are
snapshotted, and the run queue's event source mapping invokes the alias of the current version,
never $LATEST (which SnapStart does not serve); the dead-letter consumer stays as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import aws_lambda as lambda_
from aws_cdk.assertions import Template
from cfnlint.api import lint  # type: ignore[import-untyped]
from cfnlint.config import ManualArgs  # type: ignore[import-untyped]

from a2a_core.cdk import A2AServiceProps, A2AStack, ConfigurationError, WorkerPackage
from a2a_core.cdk.testing import checked_app, logical_id, properties


@pytest.fixture(scope="module")
def template_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The stack's template file."""
    outdir = tmp_path_factory.mktemp("cdk.out")
    app = checked_app(outdir)
    A2AStack(app, "SnapWorker", A2AServiceProps(worker_snap_start=True))
    app.synth()  # cdk-nag finds nothing it was not told about
    return outdir / "SnapWorker.template.json"


@pytest.fixture(scope="module")
def template(template_file: Path) -> Template:
    return Template.from_json(json.loads(template_file.read_text()))


def test_cfn_lint_passes(template_file: Path) -> None:
    # W3005: as in test_checks.py (CDK's dependency on the whole role construct).
    config = ManualArgs(regions=["us-east-1", "eu-west-1"], ignore_checks=["W3005"])
    assert [str(match) for match in lint(template_file.read_text(), config=config)] == []


def _mappings(template: Template) -> dict[str, Any]:
    """Each SQS event source mapping's target, by the queue it reads."""
    found = {}
    for body in template.find_resources("AWS::Lambda::EventSourceMapping").values():
        queue = body["Properties"]["EventSourceArn"]["Fn::GetAtt"][0]
        found[queue] = body["Properties"]["FunctionName"]
    return found


def _queue(template: Template, path: str) -> str:
    return logical_id(template, "AWS::SQS::Queue", path)


def test_the_workers_published_versions_are_snapshotted_behind_the_live_alias(template: Template) -> None:
    worker = properties(template, "AWS::Lambda::Function", "/Functions/Worker/Resource")
    assert worker["SnapStart"] == {"ApplyOn": "PublishedVersions"}
    assert worker["Runtime"] == "python3.13"
    worker_id = logical_id(template, "AWS::Lambda::Function", "/Functions/Worker/Resource")
    (version,) = [
        name
        for name, body in template.find_resources("AWS::Lambda::Version").items()
        if body["Properties"]["FunctionName"] == {"Ref": worker_id}
    ]
    alias = properties(template, "AWS::Lambda::Alias", "/Functions/WorkerLive/Resource")
    assert alias["Name"] == "live"
    assert alias["FunctionName"] == {"Ref": worker_id}
    assert alias["FunctionVersion"] == {"Fn::GetAtt": [version, "Version"]}
    # The API function is left as it was: snapshotted only with its own ``snap_start``.
    api = properties(template, "AWS::Lambda::Function", "/Functions/Api/Resource")
    assert "SnapStart" not in api


def test_the_run_queue_invokes_the_alias_and_the_dead_letters_their_function(template: Template) -> None:
    alias_arn = {"Ref": logical_id(template, "AWS::Lambda::Alias", "/Functions/WorkerLive/Resource")}
    # The alias's qualified name: the function's name (the ARN's seventh field), ":live".
    alias = {"Fn::Join": ["", [{"Fn::Select": [6, {"Fn::Split": [":", alias_arn]}]}, ":live"]]}
    dead_letter = {"Ref": logical_id(template, "AWS::Lambda::Function", "/Functions/DeadLetter/Resource")}
    assert _mappings(template) == {
        _queue(template, "/Queues/Runs/Resource"): alias,
        _queue(template, "/Queues/DeadLetters/Resource"): dead_letter,
    }


def test_the_alias_consumes_with_the_workers_own_role(template: Template) -> None:
    """An alias has no role of its own: the mapping polls with the worker's, which may consume the
    run queue (and nothing reads it with another)."""
    role = logical_id(template, "AWS::IAM::Role", "/Functions/WorkerRole/Resource")
    queue = _queue(template, "/Queues/Runs/Resource")
    consumers: list[str] = []
    for body in template.find_resources("AWS::IAM::Policy").values():
        for statement in body["Properties"]["PolicyDocument"]["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            if "sqs:ReceiveMessage" in actions and statement["Resource"] == {"Fn::GetAtt": [queue, "Arn"]}:
                consumers.extend(r["Ref"] for r in body["Properties"]["Roles"])
    assert consumers == [role]


def test_without_it_the_run_queue_invokes_the_function(default: Template) -> None:
    worker = properties(default, "AWS::Lambda::Function", "/Functions/Worker/Resource")
    assert "SnapStart" not in worker
    function = {"Ref": logical_id(default, "AWS::Lambda::Function", "/Functions/Worker/Resource")}
    assert _mappings(default)[_queue(default, "/Queues/Runs/Resource")] == function


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"runtime": lambda_.Runtime.PYTHON_3_11}, "Python 3.12"),
        ({"worker_package": WorkerPackage.CONTAINER_IMAGE}, "worker_package=WorkerPackage.ZIP"),
    ],
)
def test_worker_snap_start_refuses_what_it_cannot_serve(props: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        A2AServiceProps(worker_snap_start=True, **props)
