"""Builders shared by the auth, isolation, limit and fuzz tests."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import httpx
from pydantic import SecretStr

from a2a_core.compose.app import compose_app
from a2a_core.core.turn.executor import TaskContext
from a2a_core.server import AgentServer

KEYS = {"alice": "alice-4f9b2c1e8d7a6b5c", "bob": "bob-0a1b2c3d4e5f6a7b"}
API_KEYS = {key_id: SecretStr(key) for key_id, key in KEYS.items()}


async def asker(ctx: TaskContext) -> None:
    """Asks on every turn, so its tasks stay continuable (input-required)."""
    await ctx.ask("And then?")


def rpc(method: str, params: Any, request_id: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def message(text: str = "hi", **fields: Any) -> dict[str, Any]:
    return {
        "role": "user",
        "messageId": str(uuid.uuid4()),
        "parts": [{"kind": "text", "text": text}],
        **fields,
    }


def send(text: str = "hi", *, blocking: bool = False, **fields: Any) -> dict[str, Any]:
    return rpc("message/send", {"message": message(text, **fields), "configuration": {"blocking": blocking}})


def client_for(service: AgentServer, **headers: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=compose_app(service)), base_url="http://agent.test", headers=headers
    )


def sse_data(text: str) -> list[dict[str, Any]]:
    """The JSON-RPC responses carried by an SSE body's ``data:`` lines."""
    lines = re.split(r"\r\n|\r|\n", text)  # the SSE line breaks (not str.splitlines's many more)
    return [json.loads(line[5:]) for line in lines if line.startswith("data:")]
