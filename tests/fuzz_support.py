"""What the fuzz tests share: the app they fuzz (in memory, streams buffered as on Lambda), the
strategies for hostile JSON values, and what an answer's request id must be.

The runs are derandomized (`FUZZ`): CI sees the same cases each time.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from typing import Any

import httpx
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from starlette.types import ASGIApp, Receive, Scope, Send

from a2a_core.compose.app import compose_app
from a2a_core.examples.multiturn import agent as multiturn
from a2a_core.protocol.jsonrpc import MAX_ID_LENGTH
from a2a_core.push.urls import UrlPolicy
from support import Stack

FUZZ = settings(deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
UNREADABLE = object()
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
        app = buffered_like_lambda(compose_app(self.stack.service))
        self.client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://agent.test")

    def post(self, body: bytes, headers: dict[str, str] | None = None, path: str = "/") -> httpx.Response:
        sent = {"content-type": "application/json", **(headers or {})}
        return self.runner.run(self.client.post(path, content=body, headers=sent))

    def request(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        params: Iterable[tuple[str, str]] = (),
    ) -> httpx.Response:
        sent = {**({"content-type": "application/json"} if body is not None else {}), **(headers or {})}
        # Absolute: a relative "//tasks" would be read as a host named "tasks".
        url = f"http://agent.test{path}"
        call = self.client.request(method, url, content=body, headers=sent, params=list(params))
        return self.runner.run(call)

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


def not_an_int(value: Any) -> bool:
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
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.booleans()
)
strings = rarely(wrong_scalars | st.none(), otherwise=texts)  # a str field, sometimes mistyped
json_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | texts
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)
HOSTILE_URLS = [
    "http://127.0.0.1:8080/hook",
    "http://169.254.169.254/latest/meta-data/",
    "https://[::1]/x",
    "file:///etc/passwd",
    "ftp://hooks.example.com/",
    "",
]
urls = mostly(st.just("https://hooks.example.com/a2a"), st.sampled_from(HOSTILE_URLS) | strings)


def expected_id(payload: Any) -> Any:
    if not isinstance(payload, dict):
        return None
    request_id = payload.get("id")
    if request_id is None or isinstance(request_id, bool) or not isinstance(request_id, str | int):
        return None
    if len(request_id if isinstance(request_id, str) else str(abs(request_id))) > MAX_ID_LENGTH:
        return None
    return None if holds_lone_surrogate(request_id) else request_id


def holds_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any(0xD800 <= ord(char) <= 0xDFFF for char in value)
    if isinstance(value, dict):
        return any(holds_lone_surrogate(k) or holds_lone_surrogate(v) for k, v in value.items())
    return isinstance(value, list) and any(map(holds_lone_surrogate, value))
