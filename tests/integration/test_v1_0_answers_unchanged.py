"""1.0 answers are byte for byte what they were before the A2A 1.1 draft was served: a fixed 1.0
conversation over both bindings (blocking sends, get, list, a stale-looking ``ifGenerationMatch``
and ``currentGeneration`` that 1.0 ignores, push configs with credentials) against the fixture
recorded from the code before it (`tests/fixtures/a2a_v1/answers_1_0.json`, written by running
this module as a script with that code first on the path). Only what differs run to run (times,
the agent's message ids, push config ids) is replaced by placeholders."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

FIXTURE = Path(__file__).parents[1] / "fixtures" / "a2a_v1" / "answers_1_0.json"
V1 = {"A2A-Version": "1.0", "content-type": "application/json"}
_TIMESTAMP = re.compile(rb'"timestamp":"[^"]*"')
_AGENT_ID = re.compile(rb'"messageId":"(?!user-)[^"]*"')


async def answers() -> list[str]:
    """The 1.0 answers of the fixed conversation, normalized, one string each."""
    from a2a_core.compose.app import compose_app
    from a2a_core.examples.echo import agent as echo
    from a2a_core.push.urls import UrlPolicy
    from support import Stack

    async def public_dns(host: str, port: int) -> list[str]:
        return ["93.184.215.14"]

    stack = Stack(echo, push_enabled=True)
    assert stack.service.push is not None
    stack.service.push.policy = UrlPolicy(resolver=public_dns)
    transport = httpx.ASGITransport(app=compose_app(stack.service))
    out: list[bytes] = []

    async def keep_draining() -> None:
        while True:
            await stack.drain()
            await asyncio.sleep(0.005)

    worker = asyncio.ensure_future(keep_draining())
    async with httpx.AsyncClient(transport=transport, base_url="http://agent.test") as client:

        async def rpc(method: str, params: dict[str, Any]) -> Any:
            body = {"jsonrpc": "2.0", "id": len(out), "method": method, "params": params}
            response = await client.post("/", content=json.dumps(body), headers=V1)
            out.append(response.content)
            return response.json()

        async def rest(verb: str, path: str, body: Any = None) -> Any:
            content = None if body is None else json.dumps(body)
            response = await client.request(verb, path, content=content, headers=V1)
            out.append(f"{response.status_code} ".encode() + response.content)
            return response.json()

        def message(text: str, **fields: Any) -> dict[str, Any]:
            return {"messageId": f"user-{text}", "role": "ROLE_USER", "parts": [{"text": text}], **fields}

        sent = await rpc("SendMessage", {"message": message("one", contextId="ctx")})
        task_id = sent["result"]["task"]["id"]
        await rpc("GetTask", {"id": task_id, "currentGeneration": "3"})
        await rest("GET", f"/tasks/{task_id}?historyLength=1&currentGeneration=1")
        await rest("GET", "/tasks?contextId=ctx&includeArtifacts=true")
        later = {"message": message("two", contextId="ctx"), "configuration": {"ifGenerationMatch": "9"}}
        await rest("POST", "/message:send", later)
        hook = {
            "taskId": task_id,
            "id": "hook",
            "url": "https://hooks.example.com/a2a",
            "authentication": {"scheme": "Bearer", "credentials": "s3cret"},
        }
        await rpc("CreateTaskPushNotificationConfig", hook)
        await rpc("GetTaskPushNotificationConfig", {"taskId": task_id, "id": "hook"})
        await rest("GET", f"/tasks/{task_id}/pushNotificationConfigs")
        await rpc("GetTask", {"id": "no-such-task"})
    worker.cancel()
    return [
        _AGENT_ID.sub(b'"messageId":"AGENT"', _TIMESTAMP.sub(b'"timestamp":"T"', b)).decode() for b in out
    ]


@pytest.mark.anyio
async def test_1_0_answers_are_what_they_were() -> None:
    assert await answers() == json.loads(FIXTURE.read_text())


if __name__ == "__main__":
    # Run with the code before the change first on the path: PYTHONPATH=<its src>:tests
    FIXTURE.write_text(json.dumps(asyncio.run(answers()), indent=1) + "\n")
    print(f"wrote {FIXTURE} from {sys.modules['a2a_core'].__file__}")
