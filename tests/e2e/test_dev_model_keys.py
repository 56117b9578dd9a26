"""A model's key in `a2a-serverless dev`: the agent runs in dev's own process (on moto, as the
worker Lambda's handler runs it), so the key exported in dev's shell reaches it, as
``worker_secrets`` puts it in the deployed worker's environment before the agent is imported."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx
import pytest

from dev_server import STARTUP_TIMEOUT, DevServer

pytestmark = pytest.mark.e2e

AGENT = """\
import os

KEY = os.environ.get("OPENAI_API_KEY")  # read at import, as model clients commonly do


async def agent(ctx):
    return f"key: {KEY}"
"""


def test_a_key_in_devs_environment_reaches_the_agent_at_import(tmp_path: Path) -> None:
    (tmp_path / "keyed_agent.py").write_text(AGENT)
    env = {"PYTHONPATH": str(tmp_path), "OPENAI_API_KEY": "sk-from-the-shell"}
    server = DevServer("keyed_agent:agent", "local", env)
    try:
        url = server.wait_ready(3 * STARTUP_TIMEOUT)  # a loaded machine starts moto slowly
        message = {"role": "user", "messageId": uuid.uuid4().hex, "parts": [{"kind": "text", "text": "hi"}]}
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
        task = httpx.post(url, json=body, timeout=30).json()["result"]
    finally:
        server.stop()
    assert task["status"]["state"] == "completed", task
    said = [p["text"] for m in task["history"] if m["role"] == "agent" for p in m["parts"]]
    assert said == ["key: sk-from-the-shell"]
