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

import asyncio
import base64
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.types import ASGIApp, Receive, Scope, Send

from a2a_core.app import create_app
from a2a_core.examples.multiturn import agent as multiturn
from a2a_core.push.urls import UrlPolicy
from auth_support import sse_data
from support import Stack

FUZZ = settings(deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
UNREADABLE = object()
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
SEEDED: list[str] = []  # ids of tasks that exist (filled by the target fixture), drawn lazily


async def public_dns(host: str, port: int) -> list[str]:
    return ["93.184.215.14"]


def buffered_like_lambda(app: ASGIApp) -> ASGIApp:
    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope = {**scope, "aws.event": {"requestContext": {}}}
        await app(scope, receive, send)

    return wrapped


class Target:
    """The in-memory app on one event loop for the whole module, with a few tasks in it."""

    def __init__(self) -> None:
        self.runner = asyncio.Runner()
        self.stack = Stack(
            multiturn,
            default_blocking=False,
            blocking_timeout_seconds=0,
            stream_buffer_seconds=0.02,
            push_enabled=True,
            push_max_configs_per_task=5,
        )
        push = self.stack.service.push
        assert push is not None
        push.policy = UrlPolicy(resolver=public_dns)
        self.push_store = push.store
        app = buffered_like_lambda(create_app(self.stack.service))
        self.client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://agent.test")

    def post(self, body: bytes) -> httpx.Response:
        headers = {"content-type": "application/json"}
        return self.runner.run(self.client.post("/", content=body, headers=headers))

    def seed(self) -> None:
        for text in ("first", "second"):
            message = {"role": "user", "messageId": f"seed-{text}", "parts": [{"kind": "text", "text": text}]}
            request = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
            SEEDED.append(self.post(json.dumps(request).encode()).json()["result"]["id"])
        self.runner.run(self.stack.drain())  # the first waits for input; the second too

    def state(self) -> tuple[int, int, int]:
        logs = self.stack.store._logs
        configs = self.push_store._configs  # type: ignore[attr-defined]
        return sum(map(len, logs.values())), len(self.stack.broker), sum(map(len, configs.values()))

    def close(self) -> None:
        self.runner.run(self.client.aclose())
        self.runner.close()


@pytest.fixture(scope="module")
def target() -> Iterator[Target]:
    target = Target()
    target.seed()
    yield target
    target.close()
    SEEDED.clear()


# Strategies over the A2A params shapes.


def _not_an_int(value: Any) -> bool:
    return isinstance(value, bool) or not isinstance(value, int)


def mostly(good: st.SearchStrategy[Any], bad: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``good`` nine times in ten: enough well-formed input to get past validation, some not."""
    return rarely(bad, otherwise=good)


def rarely(rare: st.SearchStrategy[Any], *, otherwise: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    # Hypothesis favours small indexes, so the rare choice goes last.
    return st.sampled_from([*[otherwise] * 9, rare]).flatmap(lambda chosen: chosen)


# Text with a lone UTF-16 surrogate: json.dumps writes it as a \udXXX escape, which json.loads
# turns back into a str that cannot be encoded as UTF-8.
lone_surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
surrogate_texts = st.tuples(st.text(max_size=8), lone_surrogates, st.text(max_size=8)).map("".join)
texts = rarely(surrogate_texts, otherwise=st.text(max_size=30))
# Scalars of the wrong JSON type for a field: what lax coercion would have accepted, and more.
wrong_scalars = (
    st.sampled_from(["yes", "true", "false", "1", "0", "2", "2.0", "null"])
    | st.integers()
    | st.floats(allow_nan=False)
    | st.booleans()
)
strings = rarely(wrong_scalars | st.none(), otherwise=texts)  # a str field, sometimes mistyped
json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | texts
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)
task_ids = mostly(st.integers(0, 1).map(lambda i: SEEDED[i]) | texts, wrong_scalars | st.none())
history_lengths = mostly(st.integers(-3, 10) | st.integers(), wrong_scalars.filter(_not_an_int))
request_ids = mostly(
    st.none() | st.integers() | texts, st.booleans() | st.floats(allow_nan=False) | st.just({})
)
base64_texts = st.binary(max_size=12).map(lambda data: base64.b64encode(data).decode())
mime_types = st.sampled_from(["text/plain", "application/json", "image/png", "*/*", "text/*", ""]) | texts
HOSTILE_URLS = [
    "http://127.0.0.1:8080/hook",
    "http://169.254.169.254/latest/meta-data/",
    "https://[::1]/x",
    "file:///etc/passwd",
    "ftp://hooks.example.com/",
    "",
]
urls = mostly(st.just("https://hooks.example.com/a2a"), st.sampled_from(HOSTILE_URLS) | strings)
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


def expected_id(payload: Any) -> Any:
    if not isinstance(payload, dict):
        return None
    request_id = payload.get("id")
    if request_id is None or isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None
    return None if holds_lone_surrogate(request_id) else request_id


def holds_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any(0xD800 <= ord(char) <= 0xDFFF for char in value)
    if isinstance(value, dict):
        return any(holds_lone_surrogate(k) or holds_lone_surrogate(v) for k, v in value.items())
    return isinstance(value, list) and any(map(holds_lone_surrogate, value))


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
