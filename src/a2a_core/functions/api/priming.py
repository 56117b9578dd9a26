"""Before a SnapStart snapshot, the API function serves one of each kind of first request.

Not to the app that serves callers: to a copy of it on the memory backend with no auth, so
priming writes nothing to DynamoDB or SQS. The modules and the pydantic validators a first
request builds (the 1.0 and 0.3 codecs, the request and answer models, the task's) are the
process's, shared by both apps: the snapshot holds them built, and a restored environment's first
request does only its own work. The TLS context of the AWS endpoints (their CA file) is loaded
too. A request that fails is logged, never raised: priming only moves work out of the first
request, the function works without it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from typing import Any

from a2a_core.compose import compose_server
from a2a_core.compose.adapters import InMemoryAdapters
from a2a_core.compose.app import compose_app
from a2a_core.settings import Settings

logger = logging.getLogger(__name__)

V1 = {"a2a-version": "1.0"}


def prime(settings: Settings) -> None:
    memory = settings.model_copy(
        update={
            "backend": "memory",
            "auth_mode": "none",
            "allow_unauthenticated": True,
            "push_enabled": False,
        }
    )
    app = compose_app(compose_server(InMemoryAdapters(memory)))
    loop = asyncio.new_event_loop()  # not the thread's: Mangum's stays as it was
    try:
        loop.run_until_complete(_requests(app))
    finally:
        loop.close()
    _tls(settings)


async def _requests(app: Any) -> None:
    message = {"messageId": str(uuid.uuid4()), "role": "ROLE_USER", "parts": [{"text": "priming"}]}
    v1_send = {"message": message, "configuration": {"returnImmediately": True}}
    sent = await _json(app, "POST", "/", _rpc("SendMessage", v1_send), V1)
    task_id = sent.get("result", {}).get("task", {}).get("id", "")
    await _json(app, "POST", "/", _rpc("GetTask", {"id": task_id}), V1)
    rest = await _json(
        app, "POST", "/message:send", {**v1_send, "message": {**message, "messageId": "m2"}}, V1
    )
    await _json(app, "GET", f"/tasks/{rest.get('task', {}).get('id', '')}", None, V1)
    v0_message = {
        "messageId": str(uuid.uuid4()),
        "role": "user",
        "parts": [{"kind": "text", "text": "priming"}],
    }
    v0 = await _json(app, "POST", "/", _rpc("message/send", {"message": v0_message}), {})
    await _json(app, "POST", "/", _rpc("tasks/get", {"id": v0.get("result", {}).get("id", "")}), {})
    await _json(app, "GET", "/.well-known/agent-card.json", None, {})


def _rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


async def _json(app: Any, method: str, path: str, body: Any, headers: dict[str, str]) -> Any:
    """One request through the ASGI app; its JSON answer ({} when it failed, logged)."""
    content = b"" if body is None else json.dumps(body).encode()
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": content, "more_body": False}

    async def send(event: dict[str, Any]) -> None:
        sent.append(event)

    all_headers = {"host": "priming.invalid", "content-type": "application/json", **headers}
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "https",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(name.encode(), value.encode()) for name, value in all_headers.items()],
        "server": ("priming.invalid", 443),
        "client": ("127.0.0.1", 0),
    }
    await app(scope, receive, send)
    status = next((event["status"] for event in sent if event["type"] == "http.response.start"), 0)
    answer = b"".join(event.get("body", b"") for event in sent if event["type"] == "http.response.body")
    try:
        document = json.loads(answer) if answer else {}
    except ValueError:
        document = {}
    if status != 200 or "error" in document:
        logger.warning("priming: %s %s answered %s: %s", method, path, status, answer[:300])
        return {}
    return document


def _tls(settings: Settings) -> None:
    """Load the CA file the lean clients check AWS's certificates against."""
    from a2a_core.aws.clients import warm_tls

    warm_tls(settings.aws_region, settings.aws_endpoint_url)
