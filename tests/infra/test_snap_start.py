"""SnapStart on the API function: its published versions are snapshotted, and every front door
(REST API, HTTP API, function URL) invokes the alias of the current version, never $LATEST."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import aws_lambda as lambda_
from aws_cdk.assertions import Template

from a2a_core.cdk import (
    A2AServiceProps,
    A2AStack,
    AuthMode,
    ConfigurationError,
    FrontDoor,
    JwtIssuer,
    StreamingMode,
)
from a2a_core.cdk.testing import checked_app, logical_id, properties

ISSUER = JwtIssuer(
    issuer="https://login.example.com/tenant/",
    audience="api://agent",
    jwks_url="https://login.example.com/tenant/keys",
    algorithms=("RS256",),
)

DOORS = {
    "Rest": A2AServiceProps(snap_start=True),
    "HttpApi": A2AServiceProps(front_door=FrontDoor.HTTP_API, auth=AuthMode.JWT, jwt=ISSUER, snap_start=True),
    "Url": A2AServiceProps(
        front_door=FrontDoor.FUNCTION_URL, streaming=StreamingMode.BUFFERED, snap_start=True
    ),
}


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Template]:
    app = checked_app(tmp_path_factory.mktemp("cdk.out"))
    for name, props in DOORS.items():
        A2AStack(app, f"Snap{name}", props)
    assembly = app.synth()  # cdk-nag finds nothing it was not told about
    return {name: Template.from_json(assembly.get_stack_by_name(f"Snap{name}").template) for name in DOORS}


def _alias(template: Template) -> dict[str, Any]:
    return {"Ref": logical_id(template, "AWS::Lambda::Alias", "/Functions/ApiLive/Resource")}


@pytest.mark.parametrize("door", DOORS)
def test_the_api_functions_published_versions_are_snapshotted_behind_the_live_alias(
    templates: dict[str, Template], door: str
) -> None:
    template = templates[door]
    function = properties(template, "AWS::Lambda::Function", "/Functions/Api/Resource")
    assert function["SnapStart"] == {"ApplyOn": "PublishedVersions"}
    assert function["Runtime"] == "python3.13"
    api = logical_id(template, "AWS::Lambda::Function", "/Functions/Api/Resource")
    (version,) = [
        name
        for name, body in template.find_resources("AWS::Lambda::Version").items()
        if body["Properties"]["FunctionName"] == {"Ref": api}
    ]
    alias = properties(template, "AWS::Lambda::Alias", "/Functions/ApiLive/Resource")
    assert alias["Name"] == "live"
    assert alias["FunctionVersion"] == {"Fn::GetAtt": [version, "Version"]}
    # Only the API function is snapshotted.
    others = [
        body["Properties"]
        for name, body in template.find_resources("AWS::Lambda::Function").items()
        if name != api and "Handler" in body["Properties"]
    ]
    assert others
    assert all("SnapStart" not in other for other in others)


def test_the_rest_api_invokes_the_alias(templates: dict[str, Template]) -> None:
    template = templates["Rest"]
    alias = _alias(template)
    for method in template.find_resources("AWS::ApiGateway::Method").values():
        integration = method["Properties"].get("Integration", {})
        if integration.get("Type") == "AWS_PROXY":
            assert alias in integration["Uri"]["Fn::Join"][1]
    permissions = template.find_resources("AWS::Lambda::Permission")
    assert permissions
    assert all(p["Properties"]["FunctionName"] == alias for p in permissions.values())


def test_the_http_api_invokes_the_alias(templates: dict[str, Template]) -> None:
    template = templates["HttpApi"]
    (integration,) = template.find_resources("AWS::ApiGatewayV2::Integration").values()
    assert integration["Properties"]["IntegrationUri"] == _alias(template)


def test_the_function_url_is_the_aliass(templates: dict[str, Template]) -> None:
    template = templates["Url"]
    (url,) = template.find_resources("AWS::Lambda::Url").values()
    api = logical_id(template, "AWS::Lambda::Function", "/Functions/Api/Resource")
    assert url["Properties"]["Qualifier"] == "live"
    assert url["Properties"]["TargetFunctionArn"] == {"Fn::GetAtt": [api, "Arn"]}
    # The app's settings stay in the function's environment, which the version is published from.
    function = properties(template, "AWS::Lambda::Function", "/Functions/Api/Resource")
    assert function["Environment"]["Variables"]["A2A_FRONT_DOOR"] == "function_url"


def test_without_snap_start_nothing_is_snapshotted_and_the_function_is_invoked(default: Template) -> None:
    function = properties(default, "AWS::Lambda::Function", "/Functions/Api/Resource")
    assert "SnapStart" not in function
    assert default.find_resources("AWS::Lambda::Alias") == {}
    api = {"Ref": logical_id(default, "AWS::Lambda::Function", "/Functions/Api/Resource")}
    api_arn = {"Fn::GetAtt": [api["Ref"], "Arn"]}
    for permission in default.find_resources("AWS::Lambda::Permission").values():
        assert permission["Properties"]["FunctionName"] in (api, api_arn)


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"runtime": lambda_.Runtime.PYTHON_3_11}, "Python 3.12"),
        (
            {"front_door": FrontDoor.FUNCTION_URL, "streaming": StreamingMode.RESPONSE_STREAM},
            "streaming=StreamingMode.BUFFERED",
        ),
    ],
)
def test_snap_start_refuses_what_it_cannot_serve(props: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        A2AServiceProps(snap_start=True, **props)
