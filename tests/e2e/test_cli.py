"""The real `a2a-serverless` console script (send, card, get, tasks) against `a2a-serverless dev`.

Assertions read ``--json`` output where a script would; the human output is checked for what a
person needs to see. Interactive continuation is driven by writing the reply to stdin.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from a2a_core.auth.testing import LocalIssuer

pytestmark = pytest.mark.e2e

SCRIPT = shutil.which("a2a-serverless", path=str(Path(sys.executable).parent))
DRAFT = "Here is a first draft about {topic}: an opening, three key points, and a short summary. "
QUESTION = "Who is the audience for this piece?"


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    @property
    def documents(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines()]


@pytest.fixture(scope="module")
def backend() -> str:
    """The CLI is a client: one backend (the default, moto) is enough; test_client.py covers both."""
    return "local"


def cli(*args: str, stdin: str = "") -> Run:
    assert SCRIPT is not None, "the a2a-serverless console script is not installed in this venv"
    # Our own console script with test-chosen arguments: no untrusted input reaches it.
    done = subprocess.run(  # noqa: S603
        [SCRIPT, *args], input=stdin, capture_output=True, text=True, timeout=60, check=False
    )
    return Run(done.returncode, done.stdout, done.stderr)


def status_text(document: dict[str, Any]) -> str:
    return "".join(part["text"] for part in document["status"]["message"]["parts"])


def test_card_summary_and_json(echo_server: str) -> None:
    human = cli("card", echo_server)
    assert human.code == 0, human.stderr
    assert "streaming: yes" in human.stdout
    assert "Auth:" in human.stdout
    assert "Skills" in human.stdout
    card = cli("card", echo_server, "--json")
    assert card.code == 0
    assert card.documents[0]["url"] == echo_server
    assert card.documents[0]["capabilities"]["streaming"] is True


def test_send_streams_the_reply(echo_server: str) -> None:
    human = cli("send", echo_server, "hello")
    assert human.code == 0, human.stderr
    assert human.stdout == "Echo: hello\n"
    assert "[completed]" in human.stderr

    scripted = cli("send", echo_server, "hello", "--json")
    events = scripted.documents
    assert events[0]["kind"] == "task"
    assert events[-1]["kind"] == "status-update"
    assert events[-1]["final"] is True
    assert events[-1]["status"]["state"] == "completed"
    assert status_text(events[-1]) == "Echo: hello"


def test_send_without_streaming_polls_and_prints_one_document(echo_server: str) -> None:
    run = cli("send", echo_server, "polled", "--no-stream", "--json")
    assert run.code == 0, run.stderr
    [task] = run.documents
    assert task["kind"] == "task"
    assert task["status"]["state"] == "completed"
    assert status_text(task) == "Echo: polled"


def test_send_prompts_for_input_and_continues_the_task(multiturn_server: str) -> None:
    human = cli("send", multiturn_server, "otters", stdin="children\n")
    assert human.code == 0, human.stderr
    assert human.stdout.splitlines() == [
        DRAFT.format(topic="otters"),
        QUESTION,
        "Final version, written for children.",
        "Done: the draft is tailored for children.",
    ]
    assert "[input-required]" in human.stderr
    assert "reply> " in human.stderr

    scripted = cli("send", multiturn_server, "otters", "--json", stdin="teachers\n")
    states = [e["status"]["state"] for e in scripted.documents if e["kind"] == "status-update"]
    assert "input-required" in states
    assert states[-1] == "completed"
    assert len({e.get("taskId", e.get("id")) for e in scripted.documents}) == 1  # one task, two turns


def test_no_interactive_stops_and_names_the_task_to_continue(multiturn_server: str) -> None:
    first = cli("send", multiturn_server, "gannets", "--json", "--no-interactive", "--no-stream")
    assert first.code == 0, first.stderr
    [task] = first.documents
    assert task["status"]["state"] == "input-required"
    assert status_text(task) == QUESTION
    assert f"--task {task['id']}" in first.stderr

    second = cli("send", multiturn_server, "sailors", "--task", task["id"], "--json")
    assert second.code == 0, second.stderr
    assert second.documents[-1]["status"]["state"] == "completed"

    shown = cli("get", multiturn_server, task["id"], "--history", "1", "--json")
    assert shown.code == 0
    assert shown.documents[0]["status"]["state"] == "completed"
    assert len(shown.documents[0]["history"]) == 1


def test_get_shows_a_canceled_task_and_exits_1(multiturn_server: str) -> None:
    def call(method: str, params: dict[str, Any]) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        result: dict[str, Any] = httpx.post(multiturn_server, json=body, timeout=30).json()["result"]
        return result

    message = {"role": "user", "messageId": uuid.uuid4().hex, "parts": [{"kind": "text", "text": "puffins"}]}
    task = call("message/send", {"message": message})
    assert call("tasks/cancel", {"id": task["id"]})["status"]["state"] == "canceled"
    run = cli("get", multiturn_server, task["id"])
    assert run.code == 1
    assert "State:    canceled" in run.stdout
    assert "Artifacts (1):" in run.stdout


def test_errors_exit_2_with_a_clear_message(echo_server: str) -> None:
    missing = cli("get", echo_server, "no-such-task", "--json")
    assert missing.code == 2
    assert missing.documents[0]["error"]["code"] == -32001
    assert "-32001" in missing.stderr

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    unreachable = cli("send", closed, "hello")
    assert unreachable.code == 2
    assert "cannot reach" in unreachable.stderr

    usage = cli("send", echo_server, "hello", "-H", "no colon here")
    assert usage.code == 2
    assert "Name: value" in usage.stderr


def test_send_data_sends_a_data_part_after_the_text(echo_server: str) -> None:
    run = cli("send", echo_server, "the numbers", "--data", '{"n": [1, 2]}', "--data", "{}", "--json")
    assert run.code == 0, run.stderr
    task_id = run.documents[0].get("id") or run.documents[0]["taskId"]
    shown = cli("get", echo_server, task_id, "--json").documents[0]
    (sent,) = [m for m in shown["history"] if m["role"] == "user"]
    assert sent["parts"] == [
        {"kind": "text", "text": "the numbers"},
        {"kind": "data", "data": {"n": [1, 2]}},
        {"kind": "data", "data": {}},
    ]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--data", "{not json"), "not JSON"),
        (("--data", "[1, 2]"), "a data part holds a JSON object"),
        ((), "nothing to send"),
    ],
)
def test_send_refuses_data_that_is_no_object_and_a_message_of_nothing(
    echo_server: str, args: tuple[str, ...], said: str
) -> None:
    run = cli("send", echo_server, *args)
    assert run.code == 2
    assert said in run.stderr
    assert run.stdout == ""


# --- auth on: the card is open, calls need the credential (-H), tasks stay with their owner ---


def test_api_key_card_is_open_and_declares_the_scheme(api_key_server: str) -> None:
    card = cli("card", api_key_server, "--json")
    assert card.code == 0, card.stderr
    assert card.documents[0]["securitySchemes"]["apiKey"] == {
        "type": "apiKey",
        "in": "header",
        "name": "x-api-key",
        "description": "API key in the x-api-key header",
    }


def test_api_key_send_needs_the_key_and_tasks_stay_with_their_owner(
    api_key_server: str, api_keys: dict[str, str]
) -> None:
    anonymous = cli("send", api_key_server, "hello", "--no-interactive")
    assert anonymous.code == 2
    assert "401" in anonymous.stderr
    assert "x-api-key" in anonymous.stderr

    wrong = cli("send", api_key_server, "hello", "-H", "x-api-key: not-a-key", "--no-interactive")
    assert wrong.code == 2
    assert "403" in wrong.stderr
    assert "not-a-key" not in wrong.stderr + wrong.stdout

    alice = cli(
        "send",
        api_key_server,
        "hello",
        "-H",
        f"x-api-key: {api_keys['alice']}",
        "--no-stream",
        "--json",
        "--no-interactive",
    )
    assert alice.code == 0, alice.stderr
    task = alice.documents[-1]
    assert task["status"]["state"] == "completed"

    own = cli("get", api_key_server, task["id"], "-H", f"x-api-key: {api_keys['alice']}", "--json")
    assert own.code == 0, own.stderr
    assert own.documents[0]["id"] == task["id"]
    other = cli("get", api_key_server, task["id"], "-H", f"x-api-key: {api_keys['bob']}", "--json")
    assert other.code == 2
    assert other.documents[0]["error"]["code"] == -32001


def test_card_extended_shows_the_extra_skill_to_a_key_holder(
    extended_card_server: str, api_key_server: str, api_keys: dict[str, str]
) -> None:
    public = cli("card", extended_card_server)
    assert public.code == 0, public.stderr
    assert "Extended:     authenticated callers get more (card --extended with credentials)" in public.stdout
    assert "[payroll]" not in public.stdout

    key = f"x-api-key: {api_keys['alice']}"
    jwks = f"{extended_card_server}.well-known/jwks.json"
    human = cli("card", extended_card_server, "--extended", "-H", key, "--card-jwks", jwks)
    assert human.code == 0, human.stderr
    assert "  - Payroll [payroll]: Runs the payroll" in human.stdout
    assert "Extended:     this is the authenticated extended card" in human.stdout
    assert "Signature:    verified (key " in human.stdout
    for protocol in ("1.0", "0.3", "0.2.5"):
        scripted = cli(
            "card", extended_card_server, "--extended", "-H", key, "--protocol", protocol, "--json"
        )
        assert scripted.code == 0, scripted.stderr
        assert "payroll" in [skill["id"] for skill in scripted.documents[0]["skills"]]

    anonymous = cli("card", extended_card_server, "--extended")
    assert anonymous.code == 2
    assert "401" in anonymous.stderr
    assert "x-api-key" in anonymous.stderr
    offered_none = cli("card", api_key_server, "--extended", "-H", key)
    assert offered_none.code == 2
    assert "the agent's card offers no extended card" in offered_none.stderr


def test_jwt_send_with_a_bearer_token(jwt_server: str, local_issuer: LocalIssuer) -> None:
    local = local_issuer
    missing = cli("send", jwt_server, "hello", "--no-interactive")
    assert missing.code == 2
    assert "401" in missing.stderr

    expired = local.mint("alice", ttl=-120)
    refused = cli("send", jwt_server, "hello", "-H", f"Authorization: Bearer {expired}", "--no-interactive")
    assert refused.code == 2
    assert "401" in refused.stderr
    assert expired not in refused.stderr + refused.stdout

    token = local.mint("alice")
    sent = cli(
        "send",
        jwt_server,
        "hello",
        "-H",
        f"Authorization: Bearer {token}",
        "--no-stream",
        "--json",
        "--no-interactive",
    )
    assert sent.code == 0, sent.stderr
    task = sent.documents[-1]
    other = cli("get", jwt_server, task["id"], "-H", f"Authorization: Bearer {local.mint('bob')}", "--json")
    assert other.code == 2
    assert other.documents[0]["error"]["code"] == -32001


# --- protocols: the card decides, --binding and --protocol narrow it; tasks; signed cards ---


def test_card_shows_the_interfaces_and_the_one_in_use(echo_server: str) -> None:
    run = cli("card", echo_server)
    assert run.code == 0, run.stderr
    assert "Interfaces:   JSONRPC 1.0, HTTP+JSON 1.0, JSONRPC 0.3" in run.stdout
    assert f"Using:        JSONRPC 1.0 at {echo_server}" in run.stdout
    rest = cli("card", echo_server, "--binding", "rest")
    assert f"Using:        HTTP+JSON 1.0 at {echo_server.rstrip('/')}" in rest.stdout  # no trailing slash


@pytest.mark.parametrize("choice", [("--binding", "rest"), ("--protocol", "0.3"), ("--protocol", "1.0")])
def test_send_over_each_protocol_prints_the_same(echo_server: str, choice: tuple[str, str]) -> None:
    human = cli("send", echo_server, "hello", *choice)
    assert human.code == 0, human.stderr
    assert human.stdout == "Echo: hello\n"
    scripted = cli("send", echo_server, "hello", "--json", *choice)
    events = scripted.documents
    assert events[0]["kind"] == "task"
    assert events[-1]["kind"] == "status-update"
    assert events[-1]["final"] is True
    assert status_text(events[-1]) == "Echo: hello"


def test_tasks_lists_a_context_newest_first(echo_server: str) -> None:
    context = f"ctx-{uuid.uuid4().hex}"
    ids = []
    for text in ("one", "two", "three"):
        sent = cli("send", echo_server, text, "--context", context, "--no-stream", "--json")
        assert sent.code == 0, sent.stderr
        ids.append(sent.documents[-1]["id"])
    listed = cli("tasks", echo_server, "--context", context, "--json")
    assert listed.code == 0, listed.stderr
    [page] = listed.documents
    assert [task["id"] for task in page["tasks"]] == ids[::-1]
    assert (page["nextPageToken"], page["totalSize"]) == ("", 3)

    first = cli("tasks", echo_server, "--context", context, "--page-size", "2", "--binding", "rest")
    assert first.code == 0, first.stderr
    lines = first.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ids[:0:-1]
    assert "completed" in lines[0]
    assert "Echo: three" in lines[0]
    assert "2 of 3 task(s)" in first.stderr
    token = first.stderr.split("--page-token ")[1].split()[0]
    rest = cli("tasks", echo_server, "--context", context, "--page-size", "2", "--page-token", token)
    assert [line.split()[0] for line in rest.stdout.splitlines()] == ids[:1]

    legacy = cli("tasks", echo_server, "--protocol", "0.3")
    assert legacy.code == 2
    assert "ListTasks is an A2A 1.0 operation" in legacy.stderr


def test_card_jwks_verifies_the_signature_or_refuses(scripted_server: str, tmp_path: Path) -> None:
    jwks_url = f"{scripted_server}.well-known/jwks.json"
    verified = cli("card", scripted_server, "--card-jwks", jwks_url)
    assert verified.code == 0, verified.stderr
    assert "Signature:    verified (key " in verified.stdout
    unverified = cli("card", scripted_server)
    assert "2 signature(s), not verified" in unverified.stdout  # over the 1.0 form and the 0.3 form

    keys = tmp_path / "jwks.json"
    keys.write_text(httpx.get(jwks_url, timeout=10).text)
    sent = cli("send", scripted_server, "chunks=1 delay=0 signed", "--card-jwks", str(keys), "--json")
    assert sent.code == 0, sent.stderr

    other = tmp_path / "other.json"
    other.write_text(json.dumps({"keys": [LocalIssuer().jwks()["keys"][0]]}))
    refused = cli("send", scripted_server, "hello", "--card-jwks", str(other))
    assert refused.code == 2
    assert "does not verify" in refused.stderr
    missing = cli("card", scripted_server, "--card-jwks", str(tmp_path / "missing.json"))
    assert missing.code == 2
    assert "--card-jwks" in missing.stderr
