"""The A2A 1.0 HTTP+JSON binding through each API Gateway front door, in every auth mode.

No route is added for the binding: ``ANY /{proxy+}`` already takes every path. These tests
check that this holds for each of the binding's paths (``/message:send``, ``/tasks/{id}:cancel``,
the ``/{tenant}/...`` forms, ...) by resolving requests against the synthesized template the way
each gateway does, and that the method or route a request reaches invokes the API function with
the mode's protection, while the public documents stay public.

- REST API: a path is walked resource by resource, a literal child before a ``{param}`` child
  before a greedy ``{proxy+}`` one, without backtracking (a sibling literal such as ``healthz``
  shadows the proxy for everything under it); the resource's method for the verb, else ``ANY``.
  No method is API Gateway's own 403 (``MISSING_AUTHENTICATION_TOKEN``).
- HTTP API: the most specific route whose path and method match: literal paths before ones with
  parameters before greedy ones, a named method before ``ANY``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from aws_cdk import App, Stack
from aws_cdk.assertions import Template

from a2a_core.cdk import A2AService, A2AServiceProps
from a2a_core.cdk.assets import SKIP_BUNDLING_CONTEXT
from a2a_core.cdk.auth import PUBLIC_PATHS
from a2a_core.cdk.options import AuthMode, FrontDoor
from a2a_core.cdk.testing import logical_id
from a2a_core.protocol.v1.rest_routes import ROUTES
from a2a_core.settings import RESERVED_TENANTS

# Every route of the binding, with values in its path parameters.
BINDING = sorted(
    {
        (
            route.method,
            route.template.replace("{tenant}", "acme").replace("{taskId}", "t-1").replace("{id}", x),
        )
        for route in ROUTES
        for x in ("c-2", "urn:uuid:5f1c")  # an id may hold ":"
    }
)
# What the protected methods and routes carry, per stack (conftest and `http_templates`).
REST_PROTECTION: dict[str, dict[str, Any]] = {
    "default": {"AuthorizationType": "NONE", "ApiKeyRequired": True},
    "full": {"AuthorizationType": "CUSTOM"},
    "iam": {"AuthorizationType": "AWS_IAM"},
    "open_": {"AuthorizationType": "NONE"},
}
HTTP_PROTECTION = {"http": "JWT", "http_iam": "AWS_IAM", "http_open": "NONE"}


# --- the REST API ---------------------------------------------------------------------------


def rest_api_method(template: Template, verb: str, path: str) -> dict[str, Any] | None:
    """The properties of the method API Gateway runs for ``verb path``; None when it has none."""
    children: dict[str, dict[str, str]] = {}
    for name, body in template.find_resources("AWS::ApiGateway::Resource").items():
        children.setdefault(_parent(body["Properties"]["ParentId"]), {})[body["Properties"]["PathPart"]] = (
            name
        )
    node = "ROOT"
    segments = [segment for segment in path.split("/") if segment]
    for segment in segments:
        here = children.get(node, {})
        if segment in here:
            node = here[segment]
            continue
        params = [part for part in here if part.startswith("{") and not part.endswith("+}")]
        greedy = [part for part in here if part.endswith("+}")]
        if params:
            node = here[params[0]]
        elif greedy:
            node = here[greedy[0]]
            break
        else:
            return None
    methods = {
        body["Properties"]["HttpMethod"]: body["Properties"]
        for body in template.find_resources("AWS::ApiGateway::Method").values()
        if _parent(body["Properties"]["ResourceId"]) == node
    }
    found = methods.get(verb) or methods.get("ANY")
    return dict(found) if found else None


def _parent(reference: dict[str, Any]) -> str:
    if "Fn::GetAtt" in reference:
        assert reference["Fn::GetAtt"][1] == "RootResourceId"
        return "ROOT"
    return str(reference["Ref"])


def _invokes_the_api_function(template: Template, integration: dict[str, Any]) -> bool:
    function = logical_id(template, "AWS::Lambda::Function", "/Functions/Api/Resource")
    return {"Fn::GetAtt": [function, "Arn"]} in integration["Uri"]["Fn::Join"][1]


def _protected(template: Template, stack: str, method: dict[str, Any] | None) -> bool:
    if method is None or method["HttpMethod"] != "ANY":
        return False
    wanted = REST_PROTECTION[stack]
    key_required = bool(method.get("ApiKeyRequired"))
    return (
        {key: method.get(key) for key in wanted} == wanted
        and key_required == (stack == "default")
        and _invokes_the_api_function(template, method["Integration"])
    )


@pytest.mark.parametrize("stack", sorted(REST_PROTECTION))
def test_every_binding_route_reaches_the_function_protected_on_the_rest_api(
    stack: str, request: pytest.FixtureRequest
) -> None:
    template: Template = request.getfixturevalue(stack)
    for verb, path in BINDING:
        assert _protected(template, stack, rest_api_method(template, verb, path)), (verb, path)
    assert _protected(template, stack, rest_api_method(template, "POST", "/"))  # JSON-RPC


@pytest.mark.parametrize("stack", sorted(REST_PROTECTION))
def test_only_the_public_documents_are_public_on_the_rest_api(
    stack: str, request: pytest.FixtureRequest
) -> None:
    template: Template = request.getfixturevalue(stack)
    for path in PUBLIC_PATHS:
        public = rest_api_method(template, "GET", path)
        assert public is not None
        assert (public["HttpMethod"], public["AuthorizationType"]) == ("GET", "NONE"), path
        assert not public.get("ApiKeyRequired")
        assert _invokes_the_api_function(template, public["Integration"])
        # Another method on a public document is JSON-RPC's protected `ANY /`, or no method at
        # all (API Gateway answers 403 itself): never the function without the mode's credential.
        other = rest_api_method(template, "POST", path)
        assert _protected(template, stack, other) if path == "/" else other is None, path


def test_tenants_named_like_a_public_resource_are_refused_by_the_settings(default: Template) -> None:
    # The REST API hands nothing under a literal resource to the proxy beside it, so
    # /healthz/tasks would never reach the function: A2A_TENANT=healthz is refused at start-up.
    for path in PUBLIC_PATHS:
        first = path.strip("/").split("/")[0]
        if first:
            assert rest_api_method(default, "GET", f"/{first}/tasks") is None
            assert first in RESERVED_TENANTS


# --- the HTTP API ---------------------------------------------------------------------------


def _service_template(**props: Any) -> Template:
    context = {SKIP_BUNDLING_CONTEXT: True, "aws:cdk:enable-path-metadata": True}
    stack = Stack(App(context=context), "Stack")
    A2AService(stack, "Service", A2AServiceProps(front_door=FrontDoor.HTTP_API, **props))
    return Template.from_stack(stack)


@pytest.fixture(scope="module")
def http_templates(http: Template) -> dict[str, Template]:
    """The HTTP API in each auth mode: JWT (conftest's ``http``), IAM, and none."""
    return {
        "http": http,
        "http_iam": _service_template(auth=AuthMode.IAM),
        "http_open": _service_template(auth=AuthMode.NONE, allow_unauthenticated=True),
    }


def http_api_route(template: Template, verb: str, path: str) -> dict[str, Any] | None:
    """The properties of the route an HTTP API picks for ``verb path``; None when none matches."""
    candidates = []
    for body in template.find_resources("AWS::ApiGatewayV2::Route").values():
        method, route_path = body["Properties"]["RouteKey"].split(" ", 1)
        rank = _http_match(route_path, path)
        if rank is not None and method in (verb, "ANY"):
            candidates.append(((rank, method == "ANY"), dict(body["Properties"])))
    return min(candidates, key=lambda candidate: candidate[0])[1] if candidates else None


def _http_match(route_path: str, path: str) -> int | None:
    """0 for a literal match, 1 with parameters, 2 for a greedy one; None if it does not match."""
    route = [part for part in route_path.split("/") if part]
    segments = [part for part in path.split("/") if part]
    if route and route[-1].endswith("+}"):
        prefix = route[:-1]
        ok = len(segments) > len(prefix) and all(_same(a, b) for a, b in zip(prefix, segments, strict=False))
        return 2 if ok else None
    if len(route) != len(segments) or not all(_same(a, b) for a, b in zip(route, segments, strict=True)):
        return None
    return 1 if any(part.startswith("{") for part in route) else 0


def _same(pattern: str, segment: str) -> bool:
    return pattern.startswith("{") or pattern == segment


def _routes_to_the_api_function(template: Template, route: dict[str, Any]) -> bool:
    (integration,) = template.find_resources("AWS::ApiGatewayV2::Integration")
    function = logical_id(template, "AWS::Lambda::Function", "/Functions/Api/Resource")
    props = template.find_resources("AWS::ApiGatewayV2::Integration")[integration]["Properties"]
    target = {"Fn::Join": ["", ["integrations/", {"Ref": integration}]]}
    return bool(route["Target"] == target and props["IntegrationUri"] == {"Fn::GetAtt": [function, "Arn"]})


def _http_cases() -> Iterator[tuple[str, str]]:
    yield from BINDING
    for path in PUBLIC_PATHS:
        yield "POST", path  # another method on a public document


@pytest.mark.parametrize("stack", sorted(HTTP_PROTECTION))
def test_every_binding_route_reaches_the_function_protected_on_the_http_api(
    stack: str, http_templates: dict[str, Template]
) -> None:
    template = http_templates[stack]
    for verb, path in _http_cases():
        route = http_api_route(template, verb, path)
        assert route is not None, (verb, path)
        assert route["RouteKey"] in ("ANY /", "ANY /{proxy+}"), (verb, path)
        assert route["AuthorizationType"] == HTTP_PROTECTION[stack], (verb, path)
        assert _routes_to_the_api_function(template, route)
    for path in PUBLIC_PATHS:
        public = http_api_route(template, "GET", path)
        assert public is not None
        assert (public["RouteKey"], public["AuthorizationType"]) == (f"GET {path}", "NONE")
        assert _routes_to_the_api_function(template, public)
