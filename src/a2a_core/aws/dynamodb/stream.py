"""The table's stream, read back: which commit a DynamoDB stream record announces."""

from __future__ import annotations

from typing import Any

from a2a_core.aws.dynamodb.keys import BODY, EVENT_PREFIX, FIRST_SEQ, STATE, TASK_ID
from a2a_core.aws.resources import TABLE
from a2a_core.core.tasklog.records import Commit
from a2a_core.domain import TaskState
from a2a_core.push.notifier import CommitRef


def announces_commit(record: dict[str, Any]) -> bool:
    """Whether a stream record is a new commit (an inserted ``EVT#`` item): the push handler's own
    check of what it was handed. Which commits reach it at all is the mapping's filter's to
    decide (`a2a_core.aws.event_filters.passes_push_filter`, dev's poller included)."""
    image = (record.get("dynamodb") or {}).get("NewImage") or {}
    sort_key = image.get(TABLE.sort_key, {}).get("S", "")
    return record.get("eventName") == "INSERT" and sort_key.startswith(EVENT_PREFIX)


def commit_ref(record: dict[str, Any]) -> CommitRef | None:
    """The commit a stream record announces, or None for anything that is not a new commit."""
    if not announces_commit(record):
        return None
    image = record["dynamodb"]["NewImage"]
    body = image.get(BODY, {}).get("S")
    return CommitRef(
        task_id=image[TASK_ID]["S"],
        first_seq=int(image[FIRST_SEQ]["N"]),
        state=TaskState(image[STATE]["S"]),
        commit=Commit.model_validate_json(body) if body is not None else None,
    )
