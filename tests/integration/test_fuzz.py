"""Hostile input against the JSON-RPC endpoint: requests shaped like the A2A methods' params (with
wrong types, unknown kinds, foreign and unknown task ids, hostile webhook URLs, lone UTF-16
surrogates in any text, strings and numbers where the schema wants the other), random JSON, and
random bytes. Every answer is HTTP 200 and well-formed JSON-RPC (or SSE whose events are), echoes
a readable id, is never -32603 (an internal error is a bug), and a rejected request changes nothing;
a request with a lone surrogate or a mistyped boolean or integer never gets a result.

Streams are served in the buffered form the Lambda handler uses, with a 20 ms budget, so a stream
of a task nobody works on still ends. The runs are derandomized: CI sees the same cases each time.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auth_support import sse_data
from fuzz_support import (
    FUZZ,
    SEEDED,
    UNREADABLE,
    Target,
    expected_id,
    holds_lone_surrogate,
    json_values,
    mostly,
    not_an_int,
    rarely,
    strings,
    texts,
    urls,
    wrong_scalars,
)


@pytest.fixture(scope="module")
def target() -> Iterator[Target]:
    target = Target()
    target.seed()
    yield target
    target.close()
    SEEDED.clear()


# Strategies over the A2A params shapes.


METHODS = [
    "message/send",
    "message/stream",
    "tasks/get",
    "tasks/cancel",
    "tasks/resubscribe",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
]
task_ids = mostly(st.integers(0, 1).map(lambda i: SEEDED[i]) | texts, wrong_scalars | st.none())
history_lengths = mostly(st.integers(-3, 10) | st.integers(), wrong_scalars.filter(not_an_int))
request_ids = mostly(
    st.none() | st.integers() | texts,
    st.booleans() | st.floats(allow_nan=False, allow_infinity=False) | st.just({}),
)
base64_texts = st.binary(max_size=12).map(lambda data: base64.b64encode(data).decode())
mime_types = st.sampled_from(["text/plain", "application/json", "image/png", "*/*", "text/*", ""]) | texts
schemes = st.lists(st.sampled_from(["Bearer", "Basic", "bearer", "Digest"]) | texts, max_size=3)
push_configs = st.fixed_dictionaries(
    {"url": urls},
    optional={
        "id": strings,
        "token": strings,
        "authentication": st.fixed_dictionaries({"schemes": schemes}, optional={"credentials": strings}),
    },
)
files = st.fixed_dictionaries(
    {},
    optional={
        "uri": strings | urls,
        "bytes": strings | base64_texts,
        "mimeType": mime_types,
        "name": strings,
    },
)
parts = mostly(
    st.one_of(
        st.fixed_dictionaries({"kind": st.just("text"), "text": strings}, optional={"metadata": json_values}),
        st.fixed_dictionaries({"kind": st.just("file"), "file": files}),
        st.fixed_dictionaries(
            {"kind": st.just("data"), "data": st.dictionaries(texts, json_values, max_size=3)}
        ),
    ),
    st.fixed_dictionaries({"kind": texts}, optional={"text": json_values}) | json_values,
)
messages = st.fixed_dictionaries(
    {
        "role": mostly(st.just("user"), st.sampled_from(["agent", "system", ""])),
        "messageId": mostly(strings, st.none()),
        "parts": mostly(st.lists(parts, min_size=1, max_size=4), st.just([])),
    },
    optional={
        "kind": st.sampled_from(["message", "task"]),
        "taskId": task_ids,
        "contextId": strings,
        "metadata": json_values,
        "referenceTaskIds": st.lists(texts, max_size=2),
    },
)
configurations = st.fixed_dictionaries(
    {},
    optional={
        "blocking": mostly(
            st.booleans() | st.none(), wrong_scalars.filter(lambda v: not isinstance(v, bool))
        ),
        "historyLength": history_lengths,
        "acceptedOutputModes": st.lists(mime_types, max_size=3),
        "pushNotificationConfig": push_configs,
    },
)
send_params = st.fixed_dictionaries({"message": messages}, optional={"configuration": configurations})
PARAMS = {
    "message/send": send_params,
    "message/stream": send_params,
    "tasks/get": st.fixed_dictionaries(
        {"id": task_ids}, optional={"historyLength": history_lengths, "metadata": json_values}
    ),
    "tasks/cancel": st.fixed_dictionaries({"id": task_ids}),
    "tasks/resubscribe": st.fixed_dictionaries({"id": task_ids}),
    "tasks/pushNotificationConfig/set": st.fixed_dictionaries(
        {"taskId": task_ids, "pushNotificationConfig": push_configs}
    ),
    "tasks/pushNotificationConfig/get": st.fixed_dictionaries(
        {"id": task_ids}, optional={"pushNotificationConfigId": strings}
    ),
    "tasks/pushNotificationConfig/list": st.fixed_dictionaries({"id": task_ids}),
    "tasks/pushNotificationConfig/delete": st.fixed_dictionaries(
        {"id": task_ids, "pushNotificationConfigId": strings}
    ),
}


@st.composite
def a2a_requests(draw: st.DrawFn) -> dict[str, Any]:
    method = draw(mostly(st.sampled_from(METHODS), texts))
    params = draw(PARAMS.get(method, json_values))
    if draw(rarely(st.just(True), otherwise=st.just(False))):
        params = draw(json_values)  # the right method with params of any shape
    request: dict[str, Any] = {"jsonrpc": "2.0", "id": draw(request_ids), "method": method, "params": params}
    if draw(rarely(st.just(True), otherwise=st.just(False))):
        del request[draw(st.sampled_from(sorted(request)))]
    if draw(rarely(st.just(True), otherwise=st.just(False))):
        request["jsonrpc"] = draw(st.sampled_from(["1.0", 2.0, None, ""]))
    return request


# What every answer must look like.


def mistyped(params: Any) -> bool:
    """Whether ``params`` has a boolean or integer field of another JSON type (lax coercion bait)."""
    if not isinstance(params, dict):
        return False
    configuration = params.get("configuration")
    integers = [params.get("historyLength")]
    booleans = []
    if isinstance(configuration, dict):
        integers.append(configuration.get("historyLength"))
        booleans.append(configuration.get("blocking"))
    wrong_integer = any(v is not None and (isinstance(v, bool) or not isinstance(v, int)) for v in integers)
    return wrong_integer or any(v is not None and not isinstance(v, bool) for v in booleans)


def check(target: Target, body: bytes, request_id: Any = UNREADABLE, *, must_refuse: bool = False) -> None:
    """Post ``body``; ``must_refuse``: the request may not get a result, whatever else is wrong."""
    before = target.state()
    response = target.post(body)
    assert response.status_code == 200, response.text
    content_type = response.headers["content-type"].split(";")[0]
    answers = sse_data(response.text) if content_type == "text/event-stream" else [response.json()]
    assert content_type in ("application/json", "text/event-stream")
    assert answers
    for answer in answers:
        assert answer["jsonrpc"] == "2.0"
        assert ("result" in answer) != ("error" in answer), answer
        if request_id is not UNREADABLE:
            assert answer["id"] == request_id
        if "error" in answer:
            error = answer["error"]
            assert isinstance(error["code"], int)
            assert isinstance(error["message"], str)
            assert error["code"] != -32603, error
            assert "Traceback" not in error["message"]
    if must_refuse:
        assert all("error" in answer for answer in answers), answers
    if all("error" in answer for answer in answers):
        assert target.state() == before


@given(request=a2a_requests())
@settings(FUZZ, max_examples=1500)
def test_schema_shaped_requests(target: Target, request: dict[str, Any]) -> None:
    body = json.dumps(request).encode()
    params = request.get("params")
    check(target, body, expected_id(request), must_refuse=holds_lone_surrogate(params) or mistyped(params))


@given(payload=json_values)
@settings(FUZZ, max_examples=400)
def test_random_json(target: Target, payload: Any) -> None:
    check(target, json.dumps(payload).encode(), expected_id(payload))


@given(body=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
@settings(FUZZ, max_examples=400)
def test_random_bytes(target: Target, body: bytes) -> None:
    check(target, body)
