"""Offline checks on the synthesized templates: cdk-nag, cfn-lint and the pinned CDK CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import Stack, cx_api
from aws_cdk import aws_s3 as s3
from cfnlint.api import lint  # type: ignore[import-untyped]
from cfnlint.config import ManualArgs  # type: ignore[import-untyped]

from a2a_core.cdk.auth import PUBLIC_PATHS
from a2a_core.cdk.service import A2AService
from a2a_core.cdk.testing import checked_app

ROOT = Path(__file__).resolve().parents[2]
FUNCTION_FINDINGS = [
    ("L1", "Service/Functions/{}/Resource"),
    ("IAM5[Resource::*]", "Service/Functions/{}Role/DefaultPolicy/Resource"),
    ("IAM5[Resource::<Parts.Arn>/tasks/*]", "Service/Functions/{}Role/DefaultPolicy/Resource"),
]
API_FINDINGS = [
    ("S1", "Service/Storage/Parts/Resource"),
    ("APIG2", "Service/Api/Api/Resource"),
    ("APIG6", "Service/Api/Api/DeploymentStage.prod/Resource"),
]
PUBLIC_METHODS = [
    "Default/GET",
    "Default/.well-known/agent.json/GET",
    "Default/.well-known/agent-card.json/GET",
    "Default/.well-known/jwks.json/GET",
    "Default/healthz/GET",
    "Default/docs/GET",
]
PROTECTED_METHODS = ["Default/ANY", "Default/{proxy+}/ANY"]
NO_WAF = [("APIG3", "Service/Api/Api/DeploymentStage.prod/Resource")]
SQS_DEAD_LETTERS = [("SQS3", "Service/PushFailures/Resource"), ("SQS3", "Service/PushDeadLetters/Resource")]


def _methods(rules: tuple[str, ...], methods: list[str]) -> list[tuple[str, str]]:
    return [(rule, f"Service/Api/Api/{method}/Resource") for method in methods for rule in rules]


# The open documents never need auth; what the agent's own methods leave depends on the mode:
# APIG4 ("no authorization") only where API Gateway itself does not authorize (API keys, none).
PUBLIC_FINDINGS = _methods(("APIG4", "COG4"), PUBLIC_METHODS)
MODE_FINDINGS = {
    "api_key": _methods(("APIG4", "COG4"), PROTECTED_METHODS),
    "none": _methods(("APIG4", "COG4"), PROTECTED_METHODS),
    "jwt": _methods(("COG4",), PROTECTED_METHODS),
    "iam": _methods(("COG4",), PROTECTED_METHODS),
    "http_api": [],  # JWT routes: API Gateway authorizes; the REST-only rules do not apply
    "function_url": [],  # no methods or stage: the API Gateway rules have nothing to check
}
# CloudFront in front of a function URL; CFR4 only on *.cloudfront.net's fixed TLS policy.
DISTRIBUTION = "Service/FunctionUrl/Edge/Distribution/Resource"
EDGE = [("CFR1", DISTRIBUTION), ("CFR3", DISTRIBUTION)]
BASIC_EXECUTION = (
    "IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]"
)
BODY_HASH = "Service/FunctionUrl/Edge/BodyHash/Fn"
IN_REGION_BODY_HASH = [
    ("L1", f"{BODY_HASH}/Resource"),
    (BASIC_EXECUTION, f"{BODY_HASH}/ServiceRole/Resource"),
]
# CDK's stack for a Lambda@Edge function deployed from another region (its name ends in a hash).
EDGE_LAMBDA_STACK = {
    ("AwsSolutions-L1", "edge-lambda-stack/BodyHash/Resource"),
    (f"AwsSolutions-{BASIC_EXECUTION}", "edge-lambda-stack/BodyHash/ServiceRole/Resource"),
}


def _expected(
    stack: str, functions: list[str], mode: str, extra: list[tuple[str, str]], *, latest_runtime: bool = False
) -> set[tuple[str, str]]:
    """``latest_runtime``: the functions run the newest Python CDK knows, so L1 does not apply."""
    rules = [(rule, path) for rule, path in FUNCTION_FINDINGS if not (latest_runtime and rule == "L1")]
    findings = [(rule, path.format(name)) for name in functions for rule, path in rules]
    if "Authorizer" in functions:  # reads no task bodies
        findings.remove(
            ("IAM5[Resource::<Parts.Arn>/tasks/*]", "Service/Functions/AuthorizerRole/DefaultPolicy/Resource")
        )
    gateway = mode not in ("http_api", "function_url")
    api = [*API_FINDINGS, *PUBLIC_FINDINGS] if gateway else [API_FINDINGS[0]]  # S1 only
    every = [*findings, *api, *MODE_FINDINGS[mode], *extra]
    return {(f"AwsSolutions-{rule}", f"{stack}/{path}") for rule, path in every}


def _nag_report(cdk_out: Path) -> dict[str, Any]:
    report = json.loads((cdk_out / "validation-report.json").read_text())
    (nag,) = [plugin for plugin in report["pluginReports"] if plugin["pluginName"] == "AwsSolutions"]
    return dict(nag)


def test_cdk_nag_passes_with_only_specific_acknowledgments(
    synthesized: tuple[cx_api.CloudAssembly, A2AService], cdk_out: Path
) -> None:
    nag = _nag_report(cdk_out)
    assert nag["conclusion"] == "success"
    assert nag["violations"] == []
    acknowledged = set()
    for finding in nag["suppressedViolations"]:
        assert len(finding["reason"]) > 80, finding  # a reason, not a shrug
        rule = re.sub(r"<\w*Parts\w*\.Arn>", "<Parts.Arn>", finding["ruleName"])
        acknowledged |= {
            (rule, re.sub(r"^edge-lambda-stack-\w+/", "edge-lambda-stack/", construct["constructPath"]))
            for construct in finding["violatingConstructs"]
        }
    basic = ["Api", "Worker", "DeadLetter"]
    http_public = [
        ("APIG4", f"Service/HttpApi/Api/GET--{path.strip('/').replace('/', '--')}/Resource")
        for path in PUBLIC_PATHS
    ]
    assert acknowledged == (
        _expected("Http", [*basic, "Push"], "http_api", [*SQS_DEAD_LETTERS, *http_public])
        | _expected("Default", basic, "api_key", NO_WAF)
        | _expected("Iam", basic, "iam", NO_WAF)
        | _expected("Open", basic, "none", NO_WAF)
        | _expected("Full", [*basic, "Authorizer", "Push"], "jwt", SQS_DEAD_LETTERS, latest_runtime=True)
        | _expected("Url", [*basic, "Push"], "function_url", SQS_DEAD_LETTERS)
        | _expected("UrlIam", basic, "function_url", [])
        | _expected("UrlEdge", basic, "function_url", [*EDGE, *IN_REGION_BODY_HASH])
        | _expected("UrlEdgeEu", basic, "function_url", [*EDGE, ("CFR4", DISTRIBUTION)])
        | EDGE_LAMBDA_STACK
    )


def test_cdk_nag_fails_synth_on_an_unacknowledged_finding(tmp_path: Path) -> None:
    app = checked_app(tmp_path)
    s3.Bucket(Stack(app, "Careless"), "Bucket")  # no TLS enforcement, no access logs
    with pytest.raises(RuntimeError, match="ValidationFailed"):
        app.synth()


@pytest.mark.parametrize(
    "stack",
    [
        "Default",
        "Full",
        "Iam",
        "Open",
        "Http",
        "Url",
        "UrlIam",
        "UrlEdge",
        "UrlEdgeEu",
        "edge-lambda-stack-*",
    ],
)
def test_cfn_lint_passes(
    synthesized: tuple[cx_api.CloudAssembly, A2AService], cdk_out: Path, stack: str
) -> None:
    (path,) = cdk_out.glob(f"{stack}.template.json")
    template = path.read_text()
    # W3005: CDK makes each function depend on its whole role construct (role and policy) so the
    # policy exists before the first invocation; the role half is also implied by `Fn::GetAtt`.
    config = ManualArgs(regions=["us-east-1", "eu-west-1", "ap-southeast-2"], ignore_checks=["W3005"])
    assert [str(match) for match in lint(template, config=config)] == []


@pytest.mark.parametrize(
    "context",
    [[], ["-c", "a2a:front_door=function_url"], ["-c", "a2a:max_turn_seconds=3600"]],
    ids=["rest_api", "function_url", "long_turns"],
)
def test_cdk_cli_synthesizes_offline_without_credentials(tmp_path: Path, context: list[str]) -> None:
    cdk = ROOT / "node_modules" / ".bin" / "cdk"
    assert cdk.exists(), "the pinned CDK CLI is missing: run `make setup` (npm ci)"
    env = {key: value for key, value in os.environ.items() if not key.startswith("AWS_")}
    env |= {"AWS_EC2_METADATA_DISABLED": "true"}
    command = [
        str(cdk),
        "synth",
        "--no-notices",
        "-q",
        "-c",
        "a2a:skip_bundling=true",
        *context,
        "-o",
        str(tmp_path),
    ]
    result = subprocess.run(  # noqa: S603
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )

    assert result.returncode == 0, result.stderr
    template = json.loads((tmp_path / "A2AServerless.template.json").read_text())
    assert {"AgentUrl", "AgentCardUrl", "TableName", "QueueUrl"} <= set(template["Outputs"])
    front_doors = {"AWS::ApiGateway::RestApi", "AWS::Lambda::Url"} & {
        body["Type"] for body in template["Resources"].values()
    }
    function_url = "a2a:front_door=function_url" in context
    assert front_doors == ({"AWS::Lambda::Url"} if function_url else {"AWS::ApiGateway::RestApi"})
    fargate = {"AWS::ECS::Cluster", "AWS::ECS::TaskDefinition"} & {
        body["Type"] for body in template["Resources"].values()
    }
    assert bool(fargate) is ("a2a:max_turn_seconds=3600" in context)
    version = subprocess.run([str(cdk), "--version"], env=env, capture_output=True, text=True, check=True)  # noqa: S603
    assert version.stdout.startswith("2.")  # the 3.x CLI cannot read this aws-cdk-lib's assemblies
