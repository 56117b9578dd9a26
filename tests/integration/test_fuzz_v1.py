"""Hostile input against both A2A 1.0 bindings and version negotiation (issue 22's outside test,
kept in CI): requests shaped like the 1.0 operations' messages over JSON-RPC and over HTTP+JSON
(routes filled with seeded, unknown and hostile ids, query parameters, tenants, other HTTP
methods), ``A2A-Version`` values of every kind in headers and query parameters, and bodies with
what Python's parser takes but JSON is not (``NaN``, ``Infinity``, ``1e400``, integers of
thousands of digits, ids too long to echo).

Every answer is well formed in the binding's shape and never an internal error: JSON-RPC answers
HTTP 200 with a 1.0 error (an ErrorInfo first in ``data``) or a result, echoing a readable id;
HTTP+JSON answers a ``google.rpc.Status`` whose ``code`` is the HTTP status, below 500. A refused
request changes nothing. A version is served exactly when its ASCII ``Major.Minor`` names 1.0
(or 0.3/0.2, or nothing), checked against a reference parse written here. The runs are
derandomized (seeded by each test's own name): CI sees the same cases each time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a2a_core.protocol.v1.rest_routes import ROUTES
from auth_support import sse_data
from fuzz_support import (
    FUZZ,
    SEEDED,
    UNREADABLE,
    Target,
    expected_id,
    json_values,
    mostly,
    rarely,
    strings,
    texts,
    urls,
    wrong_scalars,
)

V1 = {"A2A-Version": "1.0"}
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"


@pytest.fixture(scope="module")
def target() -> Iterator[Target]:
    target = Target()
    target.seed()
    yield target
    target.close()
    SEEDED.clear()


# --- 1.0 message shapes ---------------------------------------------------------------------------

task_ids = mostly(st.integers(0, 1).map(lambda i: SEEDED[i]) | texts, wrong_scalars | st.none())
parts = mostly(
    st.one_of(
        st.fixed_dictionaries({"text": strings}, optional={"mediaType": strings, "metadata": json_values}),
        st.fixed_dictionaries({"raw": strings | st.just("aGk=")}, optional={"filename": strings}),
        st.fixed_dictionaries({"url": urls | strings}, optional={"mediaType": strings}),
        st.fixed_dictionaries({"data": json_values}),
    ),
    json_values | st.fixed_dictionaries({"text": texts, "data": json_values}),
)
messages = st.fixed_dictionaries(
    {
        "messageId": mostly(texts, st.none() | wrong_scalars),
        "role": mostly(st.just("ROLE_USER"), st.sampled_from(["ROLE_AGENT", "user", "", "ROLE_UNSPECIFIED"])),
        "parts": mostly(st.lists(parts, min_size=1, max_size=3), st.just([])),
    },
    optional={"taskId": task_ids, "contextId": strings, "metadata": json_values, "tenant": strings},
)
push_configs = st.fixed_dictionaries(
    {"url": urls},
    optional={
        "id": strings,
        "token": strings,
        "taskId": task_ids,
        "authentication": st.fixed_dictionaries({"scheme": strings}, optional={"credentials": strings}),
    },
)
numbers = mostly(st.integers(-3, 120), wrong_scalars | st.integers())
configurations = st.fixed_dictionaries(
    {},
    optional={
        "returnImmediately": mostly(st.just(True), wrong_scalars | st.booleans()),
        "historyLength": numbers,
        "acceptedOutputModes": st.lists(strings, max_size=3),
        "taskPushNotificationConfig": push_configs,
    },
)
send = st.fixed_dictionaries(
    {"message": messages, "configuration": rarely(json_values, otherwise=configurations)},
    optional={"metadata": json_values},
)
task_ref = st.fixed_dictionaries({"id": task_ids}, optional={"historyLength": numbers, "tenant": strings})
PARAMS: dict[str, st.SearchStrategy[Any]] = {
    "SendMessage": send,
    "SendStreamingMessage": send,
    "GetTask": task_ref,
    "CancelTask": task_ref,
    "SubscribeToTask": task_ref,
    "ListTasks": st.fixed_dictionaries(
        {},
        optional={
            "contextId": strings,
            "status": st.sampled_from(["TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "nope", ""])
            | strings,
            "pageSize": numbers,
            "pageToken": strings,
            "historyLength": numbers,
            "statusTimestampAfter": st.sampled_from(["2026-01-01T00:00:00Z", "yesterday"]) | strings,
            "includeArtifacts": mostly(st.booleans(), wrong_scalars),
        },
    ),
    "CreateTaskPushNotificationConfig": push_configs,
    "GetTaskPushNotificationConfig": st.fixed_dictionaries({"taskId": task_ids, "id": strings}),
    "ListTaskPushNotificationConfigs": st.fixed_dictionaries(
        {"taskId": task_ids}, optional={"pageSize": numbers, "pageToken": strings}
    ),
    "DeleteTaskPushNotificationConfig": st.fixed_dictionaries({"taskId": task_ids, "id": strings}),
    "GetExtendedAgentCard": st.fixed_dictionaries({}, optional={"tenant": strings}),
}


def check_rpc(
    target: Target, response: httpx.Response, request_id: Any = UNREADABLE, *, v1: bool = True
) -> bool:
    """A JSON-RPC answer: HTTP 200, every error never internal and, from 1.0 (``v1``), in 1.0's
    shape; True if every answer is an error."""
    assert response.status_code == 200, response.text
    content_type = response.headers["content-type"].split(";")[0]
    answers = sse_data(response.text) if content_type == "text/event-stream" else [response.json()]
    assert answers
    for answer in answers:
        assert answer["jsonrpc"] == "2.0"
        assert ("result" in answer) != ("error" in answer), answer
        if request_id is not UNREADABLE:
            assert answer["id"] == request_id
        if "error" in answer:
            error = answer["error"]
            assert error["code"] != -32603, error
            assert isinstance(error["message"], str)
            assert "Traceback" not in error["message"]
            if v1:
                assert error["data"][0]["@type"] == ERROR_INFO, error
    return all("error" in answer for answer in answers)


@given(method=mostly(st.sampled_from(sorted(PARAMS)), texts), data=st.data())
@settings(FUZZ, max_examples=600)
def test_1_0_json_rpc_requests(target: Target, method: str, data: st.DataObject) -> None:
    params = data.draw(PARAMS.get(method, json_values))
    request_id = data.draw(mostly(st.none() | st.integers() | texts, st.booleans() | st.just([])))
    request = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    before = target.state()
    response = target.post(json.dumps(request).encode(), V1)
    if check_rpc(target, response, expected_id(request)):
        assert target.state() == before


# --- HTTP+JSON ------------------------------------------------------------------------------------


def segment(value: str) -> str:
    return quote(value, safe="", errors="surrogatepass")


@st.composite
def rest_requests(draw: st.DrawFn) -> tuple[str, str, list[tuple[str, str]], bytes | None]:
    """(HTTP method, path, query, body) for a route of the table, or a near miss."""
    route = draw(st.sampled_from(ROUTES))
    ids = {"id": draw(task_ids), "taskId": draw(task_ids), "tenant": draw(mostly(st.just("acme"), texts))}
    path = route.template
    for name, value in ids.items():
        path = path.replace("{" + name + "}", segment(value if isinstance(value, str) else json.dumps(value)))
    path = draw(
        rarely(
            st.sampled_from([path + "/", "//" + path.lstrip("/"), path + ":nope", "/*"]),
            otherwise=st.just(path),
        )
    )
    method = draw(mostly(st.just(route.method), st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"])))
    query = draw(
        st.lists(
            st.tuples(
                st.sampled_from([*route.query, "historyLength", "page_size", "A2A-Version", "x"]), texts
            ),
            max_size=3,
        )
    )
    body = None
    if method in ("POST", "PUT", "PATCH"):
        params = draw(PARAMS.get(route.operation, json_values))
        body = draw(rarely(st.binary(max_size=30), otherwise=st.just(json.dumps(params).encode())))
    return method, path, [(name, value.encode("utf-8", "replace").decode()) for name, value in query], body


def check_rest(target: Target, response: httpx.Response) -> bool:
    """An HTTP+JSON answer: below 500, an error a google.rpc.Status of its HTTP status; True if it
    is an error."""
    assert response.status_code < 500, response.text
    content_type = response.headers["content-type"].split(";")[0]
    if response.status_code < 400:
        assert content_type in ("application/a2a+json", "text/event-stream"), content_type
        return False
    assert content_type == "application/a2a+json", response.headers
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert set(error) <= {"code", "status", "message", "details"}
    assert (error["code"], type(error["status"]), type(error["message"])) == (response.status_code, str, str)
    assert "Traceback" not in error["message"]
    return True


@given(request=rest_requests())
@settings(FUZZ, max_examples=700)
def test_http_json_requests(
    target: Target, request: tuple[str, str, list[tuple[str, str]], bytes | None]
) -> None:
    method, path, query, body = request
    before = target.state()
    response = target.request(method, path, body=body, headers=V1, params=query)
    if check_rest(target, response):
        assert target.state() == before


# --- version negotiation --------------------------------------------------------------------------

_REFERENCE = re.compile(r"[ \t]*([0-9]{1,6})\.([0-9]{1,6})(?:\.[0-9]{1,6})?[ \t]*")
SERVED = {(1, 1): "1.1", (1, 0): "1.0", (0, 3): "0.3", (0, 2): "0.3"}


def reference_version(values: list[str]) -> str | None:
    """What a request naming ``values`` is served as (None: VersionNotSupportedError)."""
    items = [item for value in values for item in value.split(",")]
    if not items:
        return "0.3"
    found = set()
    for item in items:
        text = item.strip(" \t")
        if not text:
            found.add("0.3")
            continue
        match = _REFERENCE.fullmatch(text)
        served = SERVED.get((int(match[1]), int(match[2]))) if match else None
        if served is None:
            return None
        found.add(served)
    return found.pop() if len(found) == 1 else None


ascii_versions = st.sampled_from(
    ["1.0", "1.0.1", " 1.0 ", "0.3", "0.2.5", "", "2.0", "1", "1.0,0.3", "1.0,1.0"]
)
digits = st.sampled_from(["1", "0", "3", "\u0661", "\u0660", "\uff11", "\u0967", "9" * 7])
made_up = st.tuples(digits, st.sampled_from([".", ",", "", ".."]), digits).map("".join)
huge = st.integers(4000, 5000).map(lambda n: "1" * n + ".0")
versions = st.one_of(ascii_versions, made_up, huge, st.text(max_size=12))
header_versions = versions.filter(lambda value: value.isascii() and value.isprintable())


@given(
    header=st.none() | header_versions,
    query=st.lists(versions, max_size=2),
    binding=st.sampled_from(["JSON-RPC", "HTTP+JSON"]),
)
@settings(FUZZ, max_examples=400)
def test_version_negotiation(target: Target, header: str | None, query: list[str], binding: str) -> None:
    headers = {} if header is None else {"A2A-Version": header}
    params = [("A2A-Version", value) for value in query]
    expected = reference_version(([] if header is None else [header]) + query)
    if binding == "JSON-RPC":
        body = json.dumps(
            {"jsonrpc": "2.0", "id": "v", "method": "GetTask", "params": {"id": "nope"}}
        ).encode()
        response = target.request("POST", "/", body=body, headers=headers, params=params)
        check_rpc(target, response, "v", v1=expected != "0.3")
        code = response.json()["error"]["code"]
        # 1.x does not know the task; 0.3 has no GetTask; anything else is not served.
        assert code == {"1.1": -32001, "1.0": -32001, "0.3": -32601, None: -32009}[expected], (
            header,
            query,
            code,
        )
    else:
        response = target.request("GET", "/tasks/nope", headers=headers, params=params)
        assert check_rest(target, response)
        reason = response.json()["error"]["details"][0]["reason"]
        assert reason == ("TASK_NOT_FOUND" if expected in ("1.0", "1.1") else "VERSION_NOT_SUPPORTED"), (
            header,
            query,
        )
    assert len(response.content) < 2000  # a huge value is echoed cut short


# --- what Python's parser takes and JSON is not ----------------------------------------------------

NOT_JSON = ["NaN", "Infinity", "-Infinity"]
OUT_OF_RANGE = ["1e400", "-1e400", "1" * 4301, "-" + "9" * 4400]


@given(
    where=st.sampled_from(["0.x JSON-RPC", "1.0 JSON-RPC", "HTTP+JSON"]),
    value=st.sampled_from(NOT_JSON + OUT_OF_RANGE),
    in_id=st.booleans(),
    key=texts.filter(lambda text: text.isprintable()),
)
@settings(FUZZ, max_examples=100)
def test_numbers_json_does_not_have_or_cannot_keep(
    target: Target, where: str, value: str, in_id: bool, key: str
) -> None:
    data = "{" + json.dumps(key or "v") + ":" + value + "}"
    if where == "HTTP+JSON":
        message = '{"role":"ROLE_USER","messageId":"m","parts":[{"data":' + data + "}]}"
        response = target.request(
            "POST", "/message:send", body=('{"message":' + message + "}").encode(), headers=V1
        )
        assert check_rest(target, response)
        reason = response.json()["error"]["details"][0]["reason"]
        assert reason == ("PARSE_ERROR" if value in NOT_JSON else "INVALID_PARAMS")
        return
    v1 = where == "1.0 JSON-RPC"
    part = '{"data":' + data + "}" if v1 else '{"kind":"data","data":' + data + "}"
    message = '{"role":"' + ("ROLE_USER" if v1 else "user") + '","messageId":"m","parts":[' + part + "]}"
    request_id = value if in_id else '"r"'
    body = '{"jsonrpc":"2.0","id":' + request_id + ',"method":"' + ("SendMessage" if v1 else "message/send")
    body += '","params":{"message":' + message + "}}"
    before = target.state()
    response = target.post(body.encode(), V1 if v1 else {})
    assert response.status_code == 200
    error = response.json()["error"]
    if value in NOT_JSON:
        assert (response.json()["id"], error["code"]) == (None, -32700)
    elif in_id:
        assert (response.json()["id"], error["code"]) == (None, -32600)
    else:
        assert (response.json()["id"], error["code"]) == ("r", -32602)
    assert "set_int_max_str_digits" not in error["message"]
    assert target.state() == before
