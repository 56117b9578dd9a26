"""fasta2a's dialect (`a2a_core.protocol.v0.fasta2a`): which params are its, and how answers are written."""

from __future__ import annotations

import json
from typing import Any

import pytest

from a2a_core.domain import (
    Artifact,
    DataPart,
    Message,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
    TextPart,
)
from a2a_core.protocol.v0.fasta2a import encode_event, encode_sent, respell, speaks_fasta2a

TEXT = {"text": "hi"}


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"message": {"role": "user", "messageId": "m", "parts": [TEXT]}}, True),
        ({"message": {"role": "user", "messageId": "m", "parts": [TEXT, {"data": 1}]}}, True),
        ({"message": {"kind": "message", "role": "user", "messageId": "m", "parts": [TEXT]}}, False),
        (
            {"message": {"role": "user", "messageId": "m", "parts": [TEXT, {"kind": "text", "text": "b"}]}},
            False,
        ),
        ({"message": {"role": "user", "messageId": "m", "parts": [TEXT, "b"]}}, False),
        ({"message": {"role": "user", "messageId": "m", "parts": []}}, False),
        ({"message": {"role": "user", "messageId": "m", "parts": TEXT}}, False),
        ({"message": {"role": "user", "messageId": "m"}}, False),
        ({"message": "hi"}, False),
        ({}, False),
    ],
)
def test_only_a_kind_less_message_of_kind_less_parts_is_fasta2a(
    params: dict[str, Any], expected: bool
) -> None:
    assert speaks_fasta2a(params) is expected


def test_respell_writes_0_3_enums_and_leaves_the_application_alone() -> None:
    wire = {
        "status": {"state": "TASK_STATE_INPUT_REQUIRED", "message": {"role": "ROLE_AGENT", "parts": []}},
        "history": [{"role": "ROLE_USER", "metadata": {"role": "ROLE_USER"}}],
        "artifacts": [{"parts": [{"data": {"state": "TASK_STATE_FAILED"}}]}],
    }
    assert respell(wire) == {
        "status": {"state": "input-required", "message": {"role": "agent", "parts": []}},
        "history": [{"role": "user", "metadata": {"role": "ROLE_USER"}}],
        "artifacts": [{"parts": [{"data": {"state": "TASK_STATE_FAILED"}}]}],
    }


@pytest.mark.parametrize("state", list(TaskState))
def test_every_state_is_written_as_0_3_spells_it(state: TaskState) -> None:
    task = Task(id="t", context_id="c", status=TaskStatus(state=state))
    assert json.loads(encode_event(task))["task"]["status"]["state"] == state.value


def _message(role: Role, text: str) -> Message:
    return Message(message_id="m", role=role, parts=[TextPart(text=text)], task_id="t", context_id="c")


def test_send_results_are_wrapped() -> None:
    task = Task(id="t", context_id="c", status=TaskStatus(state=TaskState.completed))
    assert json.loads(encode_sent(task)) == {
        "task": {"id": "t", "contextId": "c", "status": {"state": "completed"}}
    }
    reply = json.loads(encode_sent(_message(Role.agent, "hello")))
    assert reply == {
        "message": {
            "messageId": "m",
            "role": "agent",
            "parts": [{"text": "hello"}],
            "taskId": "t",
            "contextId": "c",
        }
    }


def test_stream_events_are_wrapped_as_stream_responses() -> None:
    status = TaskStatusUpdateEvent(
        task_id="t",
        context_id="c",
        status=TaskStatus(state=TaskState.working, message=_message(Role.agent, "on it")),
        final=False,
    )
    assert json.loads(encode_event(status)) == {
        "statusUpdate": {
            "taskId": "t",
            "contextId": "c",
            "status": {
                "state": "working",
                "message": {
                    "messageId": "m",
                    "role": "agent",
                    "parts": [{"text": "on it"}],
                    "taskId": "t",
                    "contextId": "c",
                },
            },
        }
    }
    artifact = Artifact(artifact_id="a", name="chunks", parts=[DataPart(data={"role": "x"})])
    chunk = TaskArtifactUpdateEvent(
        task_id="t", context_id="c", artifact=artifact, append=True, last_chunk=False
    )
    assert json.loads(encode_event(chunk)) == {
        "artifactUpdate": {
            "taskId": "t",
            "contextId": "c",
            "artifact": {"artifactId": "a", "name": "chunks", "parts": [{"data": {"role": "x"}}]},
            "append": True,
            "lastChunk": False,
        }
    }
    assert set(json.loads(encode_event(_message(Role.agent, "hi")))) == {"message"}
