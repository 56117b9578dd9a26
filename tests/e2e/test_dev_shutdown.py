"""`a2a-serverless dev` stopped as a process manager (SIGTERM) or a terminal (Ctrl-C: SIGINT) stops
it: the signal goes to its whole process group, the emulator child included, and dev says in one
line that it stopped, with no traceback, and exits 0."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import httpx
import pytest

from dev_server import CONSOLE_SCRIPT, STARTUP_TIMEOUT, ServerProcess

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_dev_stops_on_a_signal_to_its_process_group_in_one_line(tmp_path: Path, stop: signal.Signals) -> None:
    state = tmp_path / "state"
    # setsid: dev leads a process group of its own, as under systemd, docker or a terminal.
    command = ["setsid", CONSOLE_SCRIPT, "dev", "--port", "0", "--state-dir", str(state)]
    server = ServerProcess("a2a-serverless dev", command)
    try:
        url = server.wait_ready(STARTUP_TIMEOUT)
        sent = httpx.post(url, json=_send("hello"), timeout=10.0)  # the pollers are busy polling
        assert sent.json()["result"]["kind"] == "task", sent.text
        started = server.output
        os.killpg(server.process.pid, stop)
        code = server.process.wait(30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"dev did not stop within 30 s of {stop.name}:\n{server.output}")
    finally:
        server.stop()
    after = server.output.removeprefix(started).strip().splitlines()
    assert after == [f"a2a-serverless dev stopped; its tasks are kept in {state}"], server.output
    assert code == 0, server.output


def _send(text: str) -> dict[str, object]:
    message = {"role": "user", "messageId": "m1", "parts": [{"kind": "text", "text": text}]}
    return {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
