"""Checks on the drivers' JSON summaries (`clients.drivers`) that every client's test shares."""

from __future__ import annotations

import copy
import uuid
from typing import Any

from agents import ARTIFACT, chunk_text

Result = dict[str, Any]


def unique(text: str) -> str:
    """``text`` with a unique word appended: our server derives task ids from the message, and a
    unique text tells one test's events from another's."""
    return f"{text} run-{uuid.uuid4().hex[:8]}"


def chunks_text(text: str, chunks: int) -> str:
    """The artifact `agents.scripted` streams for ``text``, all chunks joined."""
    return "".join(chunk_text(text, index) for index in range(chunks))


def fold(events: list[Result]) -> Result:
    """The task a stream describes: its first event (a task summary) with the updates applied."""
    assert events, "the stream carried no events"
    assert events[0]["kind"] == "task", events[0]
    task = copy.deepcopy(events[0])
    for event in events[1:]:
        assert event.get("taskId") == task["id"], event
        if event["kind"] == "status-update":
            task["state"], task["text"] = event["state"], event["text"]
        elif event["kind"] == "artifact-update":
            _apply_chunk(task, event)
        else:
            raise AssertionError(f"unexpected event after the task: {event}")
    return task


def _apply_chunk(task: Result, event: Result) -> None:
    for artifact in task["artifacts"]:
        if artifact["artifactId"] == event["artifactId"]:
            artifact["text"] = artifact["text"] + event["text"] if event["append"] else event["text"]
            return
    task["artifacts"].append(
        {"artifactId": event["artifactId"], "name": event["name"], "text": event["text"]}
    )


def assert_completed_turn(task: Result, text: str, chunks: int) -> None:
    """``task`` is `agents.scripted`'s finished turn for ``text``: completed with ``done: <text>``
    and one artifact of ``chunks`` chunks."""
    assert task["state"] == "completed", task
    assert task["text"] == f"done: {text}", task
    assert [(a["name"], a["text"]) for a in task["artifacts"]] == [(ARTIFACT, chunks_text(text, chunks))], (
        task
    )


def assert_stream(events: list[Result], text: str, chunks: int, *, finals: bool) -> None:
    """A whole streamed turn: a task first, updates after it in order (each chunk once, with its
    append/lastChunk flags), ending with the completed status. ``finals``: the protocol has a
    ``final`` flag (0.2.5/0.3), true on that last status only."""
    assert_completed_turn(fold(events), text, chunks)
    updates = events[1:]
    assert updates, "the stream ended with its first event"
    assert updates[-1]["kind"] == "status-update", updates[-1]
    assert updates[-1]["state"] == "completed", updates[-1]
    pieces = [u for u in updates if u["kind"] == "artifact-update"]
    first_index = chunks - len(pieces)  # chunks already folded into the first event, if any
    for offset, piece in enumerate(pieces):
        index = first_index + offset
        assert piece["text"] == chunk_text(text, index), piece
        assert (piece["append"], piece["lastChunk"]) == (index > 0, index == chunks - 1), piece
    if finals:
        assert [u["final"] for u in updates if u["kind"] == "status-update"][-1] is True
        assert not any(u["final"] for u in updates[:-1] if u["kind"] == "status-update"), updates
