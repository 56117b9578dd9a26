"""Long turns in ``a2a-serverless dev`` on real sockets: with the emulated Lambda worker's timeout
shrunk to 3 s (``--lambda-timeout 3``) and ``max_turn_seconds`` 60, the run queue's consumer hands
each turn to a long-turn worker process (``python -m a2a_core.functions.long_worker``), which
streams its progress, survives nothing of itself when killed (the next attempt takes the turn
over), and stops on a cancel. Without the longer limit the same turn fails naming the setting."""

from __future__ import annotations

import json
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from dev_server import STARTUP_TIMEOUT, DevServer, with_tests_on_path

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

AGENT = "long_agent:agent"  # tests/long_agent.py
LONG = {
    "A2A_MAX_TURN_SECONDS": "60",
    # Short, so a killed worker's turn is taken over within seconds (the default is 60 s).
    "A2A_LONG_TURN_LEASE_SECONDS": "3",
    "A2A_LONG_TURN_START_SECONDS": "10",
}


class Server:
    def __init__(self, dev: DevServer, url: str, log: Path) -> None:
        self.dev, self.url, self.log = dev, url, log

    def notes(self, task_id: str) -> list[dict[str, Any]]:
        """What the agent wrote about the task (started, stopped), in order."""
        if not self.log.exists():
            return []
        lines = [json.loads(line) for line in self.log.read_text().splitlines() if line]
        return [line for line in lines if line["task"] == task_id]

    def wait_for_note(
        self, task_id: str, event: str, count: int = 1, timeout: float = 20
    ) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            notes = [n for n in self.notes(task_id) if n["event"] == event]
            if len(notes) >= count:
                return notes
            time.sleep(0.1)
        pytest.fail(f"the agent did not note {event!r} {count} time(s); its notes: {self.notes(task_id)}")


def _server(tmp: Path, env: dict[str, str]) -> Iterator[Server]:
    log = tmp / "agent.log"
    dev = DevServer(
        AGENT, "local", with_tests_on_path(LONG_AGENT_LOG=str(log), **env), ["--lambda-timeout", "3"]
    )
    try:
        yield Server(dev, dev.wait_ready(STARTUP_TIMEOUT), log)
    finally:
        dev.stop()


@pytest.fixture(scope="module")
def long_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from _server(tmp_path_factory.mktemp("long"), LONG)


@pytest.fixture(scope="module")
def short_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from _server(tmp_path_factory.mktemp("short"), {})


def _message(text: str) -> dict[str, Any]:
    return {"role": "user", "messageId": str(uuid.uuid4()), "parts": [{"kind": "text", "text": text}]}


def _rpc(url: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, timeout=30)
    body: dict[str, Any] = answer.json()
    assert "error" not in body, body
    result: dict[str, Any] = body["result"]
    return result


def _start(url: str, text: str) -> str:
    task = _rpc(url, "message/send", {"message": _message(text), "configuration": {"blocking": False}})
    return str(task["id"])


def _wait_until_ended(url: str, task_id: str, timeout: float = 45) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = _rpc(url, "tasks/get", {"id": task_id})
        if task["status"]["state"] in {"completed", "failed", "canceled"}:
            return task
        time.sleep(0.25)
    pytest.fail(f"task {task_id} did not end within {timeout} s")


def _stream(url: str, text: str) -> list[tuple[float, dict[str, Any]]]:
    """message/stream's events, each with when it arrived here."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": {"message": _message(text)}}
    events = []
    with httpx.stream("POST", url, json=body, timeout=httpx.Timeout(60, read=30)) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("data:"):
                events.append((time.time(), json.loads(line[5:])["result"]))
    return events


def _text(status: dict[str, Any]) -> str:
    message = status.get("message") or {}
    return "".join(part.get("text", "") for part in message.get("parts", []))


def _epoch(timestamp: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()


def test_a_turn_four_times_the_lambda_cap_completes_streaming_every_step_as_it_happens(
    long_server: Server,
) -> None:
    events = _stream(long_server.url, "work 12")
    statuses = [(at, e["status"]) for at, e in events if e.get("kind") == "status-update"]
    steps = [(at, status) for at, status in statuses if _text(status).startswith("step ")]
    assert [_text(status) for _, status in steps] == [f"step {n} of 12" for n in range(1, 13)]
    final = statuses[-1][1]
    assert final["state"] == "completed"
    assert _text(final).startswith("worked 12 s in attempt 1")
    # As it happened: the first step reached this client before the agent reported its last one
    # (one clock: the server is on this machine), and each arrived in order.
    assert steps[0][0] < _epoch(steps[-1][1]["timestamp"])
    arrivals = [at for at, _ in steps]
    assert arrivals == sorted(arrivals)
    assert "long-turn worker started for task" in long_server.dev.output
    assert "each run by a long-turn worker process" in long_server.dev.output  # the banner says so


def test_without_the_longer_limit_the_turn_fails_naming_the_setting(short_server: Server) -> None:
    task_id = _start(short_server.url, "work 12")
    task = _wait_until_ended(short_server.url, task_id)
    assert task["status"]["state"] == "failed"
    assert "max_turn_seconds = 3 s" in _text(task["status"])
    assert "long-turn worker started" not in short_server.dev.output


def test_a_killed_long_turn_worker_is_taken_over_and_the_task_completes_once(long_server: Server) -> None:
    task_id = _start(long_server.url, "work 6")
    (first,) = long_server.wait_for_note(task_id, "started")
    os.kill(first["pid"], signal.SIGKILL)  # no shutdown code: a crash, a Spot interruption
    task = _wait_until_ended(long_server.url, task_id)
    assert task["status"]["state"] == "completed"
    assert _text(task["status"]).startswith("worked 6 s in attempt 2")
    started = long_server.wait_for_note(task_id, "started", 2)
    assert [note["attempt"] for note in started] == [1, 2]
    assert started[1]["pid"] != first["pid"]
    # One attempt's output: the artifact the first attempt streamed was replaced, not added to.
    (artifact,) = task["artifacts"]
    assert "".join(part["text"] for part in artifact["parts"]) == "".join(
        f"[attempt 2 step {n}]" for n in range(1, 7)
    )


def test_a_cancel_stops_the_long_turn_agent_and_the_task_ends_canceled(long_server: Server) -> None:
    task_id = _start(long_server.url, "work 30")
    (started,) = long_server.wait_for_note(task_id, "started")
    _rpc(long_server.url, "tasks/cancel", {"id": task_id})
    (stopped,) = long_server.wait_for_note(task_id, "stopped", timeout=15)
    task = _wait_until_ended(long_server.url, task_id)
    assert task["status"]["state"] == "canceled"
    assert stopped["pid"] == started["pid"]
    assert stopped["at"] < started["at"] + 30  # stopped mid-turn, not at its end


def test_the_projects_max_turn_seconds_sends_its_turns_to_the_long_turn_worker(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "long"\nversion = "0.1.0"\n\n'
        '[tool.a2a-serverless]\nagent = "a2a_core.examples.echo:agent"\nmax_turn_seconds = 120\n'
    )
    dev = DevServer(
        AGENT, "local", with_tests_on_path(), ["--project", str(tmp_path), "--lambda-timeout", "3"]
    )
    try:
        dev.wait_ready(STARTUP_TIMEOUT)
        assert "turns of max_turn_seconds = 120 s, over the worker Lambda's 3 s" in dev.output
    finally:
        dev.stop()
