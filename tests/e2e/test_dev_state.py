"""`a2a-serverless dev` keeps the local backend across restarts, a SIGKILL included.

The installed console script on real sockets, on a state directory of the test's: tasks, their
push configs and the agent's context values are there after a restart, and the run the killed
process was in the middle of is run again and finishes. ``--fresh`` starts empty and leaves the
state directory alone; two processes never share one.
"""

from __future__ import annotations

import signal
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from dev_server import CONSOLE_SCRIPT, STARTUP_TIMEOUT, DevServer, with_tests_on_path

pytestmark = pytest.mark.e2e

AGENT = "agents:durable"  # tests/agents.py
HOOK = "http://127.0.0.1:9/hook"  # loopback: dev accepts it; nothing listens, which is fine here
RUN_TIMEOUT = 30.0


def rpc(url: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    answer: dict[str, Any] = httpx.post(url, json=body, timeout=10).json()
    return answer


def send(url: str, text: str, *, blocking: bool = True, **fields: str) -> dict[str, Any]:
    message = {"role": "user", "messageId": str(uuid.uuid4()), "parts": [{"kind": "text", "text": text}]}
    params = {"message": {**message, **fields}, "configuration": {"blocking": blocking}}
    task: dict[str, Any] = rpc(url, "message/send", params)["result"]
    return task


def get(url: str, task_id: str) -> dict[str, Any]:
    return rpc(url, "tasks/get", {"id": task_id})


def wait_for(url: str, task_id: str, test: Any) -> dict[str, Any]:
    deadline = time.monotonic() + RUN_TIMEOUT
    while True:
        task: dict[str, Any] = get(url, task_id)["result"]
        if test(task):
            return task
        assert time.monotonic() < deadline, f"task {task_id} never got there: {task}"
        time.sleep(0.05)


def reply(task: dict[str, Any]) -> str:
    text: str = task["status"]["message"]["parts"][0]["text"]
    return text


def dev(state: Path | None, *extra: str, **env: str) -> DevServer:
    args = ["--state-dir", str(state)] if state is not None else []
    return DevServer(AGENT, "local", with_tests_on_path(**env), [*args, *extra], console_script=True)


def test_a_killed_dev_loses_no_task_and_finishes_the_run_it_was_in(tmp_path: Path) -> None:
    state, marker = tmp_path / "state", tmp_path / "hold-marker"
    first = dev(state, A2A_PUSH_ENABLED="true")
    try:
        url = first.wait_ready(STARTUP_TIMEOUT)
        done = send(url, "first")
        assert reply(done) == "first (turn 1 of this context)"
        asking = send(url, "ask")
        assert asking["status"]["state"] == "input-required"
        config = {
            "taskId": asking["id"],
            "pushNotificationConfig": {"url": HOOK, "id": "hook-1", "token": "t"},
        }
        assert "result" in rpc(url, "tasks/pushNotificationConfig/set", config)
        holding = send(url, f"hold={marker}", blocking=False)["id"]
        # The agent is mid-run: it claimed the turn, said so, and is now working for an hour.
        wait_for(url, holding, lambda task: task["status"].get("message") and reply(task) == "started")
        assert marker.exists()
        before = {task_id: get(url, task_id) for task_id in (done["id"], asking["id"])}
        configs = rpc(url, "tasks/pushNotificationConfig/list", {"id": asking["id"]})
    finally:
        first.kill()
    assert f"Kept:       persistent at {state.resolve()} (0 task(s) restored" in first.output
    assert "Found credentials" not in first.output

    second = dev(state, A2A_PUSH_ENABLED="true")
    try:
        url = second.wait_ready(STARTUP_TIMEOUT)
        assert f"persistent at {state.resolve()} (3 task(s) restored" in second.output
        for task_id, answer in before.items():
            assert get(url, task_id) == answer
        assert rpc(url, "tasks/pushNotificationConfig/list", {"id": asking["id"]}) == configs
        finished = wait_for(url, holding, lambda task: task["status"]["state"] == "completed")
        assert reply(finished) == f"resumed: hold={marker}"
        # The restart let go of the dead run's lease and the turn ran again: the task shows the
        # attempt that finished, not the progress of the one that died with the first dev.
        texts = [m["parts"][0]["text"] for m in finished["history"]]
        assert texts == [f"hold={marker}", f"resumed: hold={marker}"]
        # The conversation and the agent's context state carry on where they were.
        answered = send(url, "more", taskId=asking["id"])
        assert reply(answered) == "more (turn 1 of this context)"
        again = send(url, "again", contextId=done["contextId"])
        assert reply(again) == "again (turn 2 of this context)"
    finally:
        second.stop()


def test_fresh_starts_empty_and_leaves_the_state_directory_alone(tmp_path: Path) -> None:
    state = tmp_path / "state"
    server = dev(state)
    try:
        kept = send(server.wait_ready(STARTUP_TIMEOUT), "kept")
    finally:
        server.stop()

    fresh = dev(None, "--fresh")
    try:
        url = fresh.wait_ready(STARTUP_TIMEOUT)
        assert get(url, kept["id"])["error"]["code"] == -32001
    finally:
        fresh.stop()
    assert "Kept:       nothing: --fresh, it starts empty" in fresh.output

    again = dev(state)
    try:
        url = again.wait_ready(STARTUP_TIMEOUT)
        assert get(url, kept["id"])["result"] == get(url, kept["id"])["result"]
        assert reply(get(url, kept["id"])["result"]) == "kept (turn 1 of this context)"
        # One process per state directory: a second is refused and says why.
        second = subprocess.run(  # noqa: S603 (our console script, fixed arguments)
            [CONSOLE_SCRIPT, "dev", "--port", "0", "--state-dir", str(state)],
            capture_output=True,
            text=True,
            timeout=STARTUP_TIMEOUT,
            check=False,
        )
        assert second.returncode == 2
        assert "another a2a-serverless dev is using" in second.stderr
    finally:
        again.stop()


def emulators_of(pid: int) -> list[int]:
    """The AWS emulator processes started by process ``pid``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ")
        except (OSError, IndexError, ValueError):
            continue
        if parent == pid and b"a2a_core.emulator.process" in command:
            found.append(int(proc.name))
    return found


def gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while Path(f"/proc/{pid}").exists():
        status = (Path(f"/proc/{pid}") / "stat").read_text().rsplit(")", 1)[1].split()[0]
        if status == "Z" or time.monotonic() > deadline:  # a zombie has exited
            return status == "Z"
        time.sleep(0.05)
    return True


@pytest.mark.parametrize("ending", ["SIGKILL", "Ctrl-C"])
def test_the_emulator_runs_beside_dev_and_ends_with_it(tmp_path: Path, ending: str) -> None:
    server = dev(tmp_path / "state")
    try:
        url = server.wait_ready(STARTUP_TIMEOUT)
        assert reply(send(url, "hello")) == "hello (turn 1 of this context)"
        (emulator,) = emulators_of(server.process.pid)
        if ending == "SIGKILL":
            server.kill()
        else:
            server.process.send_signal(signal.SIGINT)
            server.process.wait(STARTUP_TIMEOUT)
        assert gone(emulator), f"the emulator ({emulator}) outlived dev"
    finally:
        server.stop()
    if ending == "Ctrl-C":
        assert server.process.returncode == 0
        assert "Traceback" not in server.output, server.output
        assert "ERROR" not in server.output, server.output
