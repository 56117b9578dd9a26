"""The HTTP+JSON routes: every proto binding (and its /{tenant}/ form) to the operation and its params."""

from __future__ import annotations

from typing import Any

import pytest

from a2a_core.core.errors import InvalidParamsError, InvalidRequestError, JSONParseError, MethodNotFoundError
from a2a_core.core.requests import (
    ListTasksQuery,
    PushConfigQuery,
    PushConfigRef,
    TaskPushConfig,
    TaskQuery,
    TaskRef,
)
from a2a_core.domain import PushNotificationConfig, TaskState
from a2a_core.generations import V1_0
from a2a_core.protocol.v1.errors import MethodNotAllowedError, rest_error
from a2a_core.protocol.v1.operations import OPERATIONS, decode_params
from a2a_core.protocol.v1.rest_routes import ROUTES, RestCall, match, parse_body, resolve

# The proto's google.api.http bindings (method, path), plus the spec table's POST :subscribe.
PROTO_BINDINGS = {
    ("POST", "/message:send"): "SendMessage",
    ("POST", "/message:stream"): "SendStreamingMessage",
    ("GET", "/tasks/{id}"): "GetTask",
    ("GET", "/tasks"): "ListTasks",
    ("POST", "/tasks/{id}:cancel"): "CancelTask",
    ("GET", "/tasks/{id}:subscribe"): "SubscribeToTask",
    ("POST", "/tasks/{id}:subscribe"): "SubscribeToTask",
    ("POST", "/tasks/{taskId}/pushNotificationConfigs"): "CreateTaskPushNotificationConfig",
    ("GET", "/tasks/{taskId}/pushNotificationConfigs/{id}"): "GetTaskPushNotificationConfig",
    ("GET", "/tasks/{taskId}/pushNotificationConfigs"): "ListTaskPushNotificationConfigs",
    ("GET", "/extendedAgentCard"): "GetExtendedAgentCard",
    ("DELETE", "/tasks/{taskId}/pushNotificationConfigs/{id}"): "DeleteTaskPushNotificationConfig",
}


def test_the_table_is_every_binding_plus_its_tenant_form() -> None:
    table = {(route.method, route.template): route.operation for route in ROUTES}
    expected = PROTO_BINDINGS | {(m, "/{tenant}" + p): op for (m, p), op in PROTO_BINDINGS.items()}
    assert table == expected
    assert {route.operation for route in ROUTES} == set(OPERATIONS)


@pytest.mark.parametrize(("method", "template"), sorted(PROTO_BINDINGS))
@pytest.mark.parametrize("tenant", [None, "acme"])
def test_each_route_resolves_with_its_path_parameters(method: str, template: str, tenant: str | None) -> None:
    path = ("/" + tenant if tenant else "") + template.replace("{taskId}", "t-1").replace("{id}", "x-2")
    call = resolve(method, path, [], None)
    assert call.operation == PROTO_BINDINGS[(method, template)]
    expected = {"tenant": tenant} if tenant else {}
    if "{taskId}" in template:
        expected["taskId"] = "t-1"
    if "{id}" in template:
        expected["id"] = "x-2"
    assert call.params == expected


def test_get_task_binds_query_parameters() -> None:
    call = resolve("GET", "/tasks/t1", [("historyLength", "10"), ("A2A-Version", "1.0")], None)
    assert call == RestCall("GetTask", {"historyLength": "10", "id": "t1"})
    assert decode_params(call.operation, call.params) == TaskQuery("t1", 10)


def test_list_tasks_binds_the_spec_11_5_query() -> None:
    query = [
        ("contextId", "uuid"),
        ("status", "TASK_STATE_WORKING"),
        ("pageSize", "50"),
        ("pageToken", "cursor"),
        ("include_artifacts", "true"),
        ("statusTimestampAfter", "2025-11-09T10:30:00Z"),
        ("unrelated", "ignored"),
    ]
    call = resolve("GET", "/tasks", query, None)
    request = decode_params(call.operation, call.params)
    assert isinstance(request, ListTasksQuery)
    assert (request.context_id, request.state, request.page_size, request.page_token) == (
        "uuid",
        TaskState.working,
        50,
        "cursor",
    )
    assert request.include_artifacts is True
    assert request.status_timestamp_after is not None


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ([("includeArtifacts", "yes")], "includeArtifacts"),
        ([("includeArtifacts", "True")], "includeArtifacts"),
        ([("pageSize", "1"), ("pageSize", "2")], "pageSize"),
    ],
)
def test_bad_query_parameters_are_refused(query: list[tuple[str, str]], field: str) -> None:
    with pytest.raises(InvalidParamsError) as caught:
        resolve("GET", "/tasks", query, None)
    assert caught.value.data[0]["field"] == field


def test_query_values_are_validated_by_the_request_model() -> None:
    call = resolve(
        "GET",
        "/tasks",
        [("pageSize", "150"), ("historyLength", "-5"), ("status", "TASK_STATE_RUNNING")],
        None,
    )
    with pytest.raises(InvalidParamsError) as caught:
        decode_params(call.operation, call.params)
    assert {d["field"] for d in caught.value.data} == {"pageSize", "historyLength", "status"}


def test_post_binds_the_body_and_the_path() -> None:
    body = {"url": "https://hooks.example.com/x", "id": "c1"}
    call = resolve("POST", "/acme/tasks/t1/pushNotificationConfigs", [("pageSize", "3")], body)
    assert call.params == {"url": "https://hooks.example.com/x", "id": "c1", "tenant": "acme", "taskId": "t1"}
    assert decode_params(call.operation, call.params) == TaskPushConfig(
        "t1",
        PushNotificationConfig(url="https://hooks.example.com/x", id="c1").model_copy(
            update={"generation": V1_0.version}
        ),
        tenant="acme",
    )


def test_a_body_that_agrees_with_the_path_is_fine_and_one_that_does_not_is_refused() -> None:
    call = resolve("POST", "/tasks/t1:cancel", [], {"id": "t1", "metadata": {"why": "x"}})
    assert decode_params(call.operation, call.params) == TaskRef("t1", {"why": "x"})
    snake = resolve("POST", "/tasks/t1/pushNotificationConfigs", [], {"task_id": "t1", "url": "https://h"})
    assert snake.params == {"url": "https://h", "taskId": "t1"}
    with pytest.raises(InvalidParamsError, match="'t1' in the path but 't2' in the body"):
        resolve("POST", "/tasks/t1:cancel", [], {"id": "t2"})
    with pytest.raises(InvalidParamsError, match="tenant"):
        resolve("POST", "/acme/message:send", [], {"tenant": "other", "message": {}})


def test_path_parameters_are_percent_decoded_and_may_hold_colons() -> None:
    assert resolve("GET", "/tasks/a%2Fb", [], None).params == {"id": "a/b"}
    assert resolve("GET", "/tasks/urn:task:1", [], None).params == {"id": "urn:task:1"}
    assert resolve("POST", "/tasks/urn%3Ax:cancel", [], None).params == {"id": "urn:x"}
    call = resolve("DELETE", "/tasks/t%201/pushNotificationConfigs/c%2B1", [], None)
    assert decode_params(call.operation, call.params) == PushConfigRef("t 1", "c+1")


@pytest.mark.parametrize("path", ["//message:send", "///message:send"])
def test_a_run_of_leading_slashes_is_one(path: str) -> None:
    # A client joining a base URL that ends in "/" with "/message:send" (issue 22 item 11).
    assert resolve("POST", path, [], None).operation == "SendMessage"
    assert resolve("GET", "//tasks/t1", [], None).params == {"id": "t1"}


def test_literal_routes_win_over_tenant_routes() -> None:
    assert resolve("GET", "/tasks/tasks", [], None).params == {"id": "tasks"}
    assert resolve("GET", "/tenant-x/tasks", [], None).params == {"tenant": "tenant-x"}
    listing = resolve("GET", "/t/tasks/t1/pushNotificationConfigs", [("pageSize", "2")], None)
    assert decode_params(listing.operation, listing.params) == PushConfigQuery("t1", 2, tenant="t")


@pytest.mark.parametrize(
    "path", ["/", "", "/nope", "/tasks/", "/message:receive", "/a/b/tasks", "/tasks/t1/other", "/tasks//x"]
)
def test_unknown_paths_are_404_in_the_1_0_error_shape(path: str) -> None:
    with pytest.raises(MethodNotFoundError) as caught:
        match("GET", path)
    assert not isinstance(caught.value, MethodNotAllowedError)
    status, body = rest_error(caught.value)
    assert status == 404
    assert body["error"]["status"] == "NOT_FOUND"
    assert body["error"]["details"][0]["reason"] == "METHOD_NOT_FOUND"


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("GET", "/message:send", "POST"),
        ("PUT", "/tasks/t1", "GET"),
        ("GET", "/tasks/t1:cancel", "POST"),
        ("DELETE", "/tasks/t1:subscribe", "GET, POST"),
        ("PATCH", "/tasks/t1/pushNotificationConfigs/c1", "DELETE, GET"),
        ("POST", "/acme/extendedAgentCard", "GET"),
    ],
)
def test_a_known_path_with_another_method_is_405_with_allow(method: str, path: str, allow: str) -> None:
    with pytest.raises(MethodNotAllowedError) as caught:
        match(method, path)
    assert caught.value.data == {"allow": allow}
    assert rest_error(caught.value)[0] == 405


def test_methods_are_case_insensitive() -> None:
    assert match("get", "/tasks")[0].operation == "ListTasks"


def test_parse_body() -> None:
    assert parse_body(b"") is None
    assert parse_body(b"  \n") is None
    assert parse_body(b'{"a": 1}') == {"a": 1}
    with pytest.raises(JSONParseError):
        parse_body(b"{nope")
    with pytest.raises(JSONParseError):
        parse_body(b"\xff\xfe")
    for not_an_object in (b"[]", b'"x"', b"3"):
        with pytest.raises(InvalidRequestError):
            parse_body(not_an_object)


def test_parse_body_refuses_what_json_rpc_refuses() -> None:
    with pytest.raises(InvalidParamsError) as surrogate:
        parse_body(b'{"message": {"parts": [{"text": "\\ud800"}]}}')
    assert surrogate.value.data[0]["field"] == "message.parts.0.text"
    with pytest.raises(InvalidRequestError) as deep:
        parse_body(b'{"metadata": ' + b"[" * 5000 + b"]" * 5000 + b"}")
    assert deep.value.data == {"field": "metadata" + ".0" * 63, "maxDepth": 64}


def test_a_body_must_be_an_object_for_body_routes() -> None:
    body: Any = ["x"]
    with pytest.raises(InvalidRequestError):
        resolve("POST", "/message:send", [], body)
