"""The kit's A2A objects as fasta2a's TypedDicts and back: messages, parts, artifacts, tasks.

fasta2a's objects are A2A 1.0-shaped (a part is named by its one member: ``text``, ``raw``,
``url`` or ``data``) with snake_case keys in Python; the kit's are its domain models.
"""

from __future__ import annotations

import uuid
from typing import Any

from a2a_core.domain import (
    Artifact,
    DataPart,
    FilePart,
    FileWithBytes,
    FileWithUri,
    Message,
    Part,
    Role,
    Task,
    TextPart,
)


def to_fasta2a_part(part: Part) -> dict[str, Any]:
    """One of the kit's parts as fasta2a's `Part`."""
    out: dict[str, Any]
    if isinstance(part, TextPart):
        out = {"text": part.text}
    elif isinstance(part, DataPart):
        out = {"data": part.data}
    else:
        file = part.file
        out = {"raw": file.bytes} if isinstance(file, FileWithBytes) else {"url": file.uri}
        if file.mime_type:
            out["media_type"] = file.mime_type
        if file.name:
            out["filename"] = file.name
    if not isinstance(part, FilePart):
        _put(out, media_type=part.media_type, filename=part.filename)
    _put(out, metadata=part.metadata)
    return out


def from_fasta2a_part(part: dict[str, Any]) -> Part:
    """fasta2a's `Part` as one of the kit's; `ValueError` for one naming no content."""
    metadata = part.get("metadata")
    if "text" in part:
        return TextPart(
            text=part["text"],
            media_type=part.get("media_type"),
            filename=part.get("filename"),
            metadata=metadata,
        )
    if "data" in part:
        data = part["data"]
        return DataPart(
            data=data if isinstance(data, dict) else {"result": data},
            media_type=part.get("media_type"),
            filename=part.get("filename"),
            metadata=metadata,
        )
    if "raw" in part or "url" in part:
        names = {"mime_type": part.get("media_type"), "name": part.get("filename")}
        file = (
            FileWithBytes(bytes=part["raw"], **names)
            if "raw" in part
            else FileWithUri(uri=part["url"], **names)
        )
        return FilePart(file=file, metadata=metadata)
    raise ValueError(f"a fasta2a part holds text, raw, url or data; this one has none: {sorted(part)}")


def to_fasta2a_message(message: Message) -> dict[str, Any]:
    """One of the kit's messages as fasta2a's `Message`."""
    out: dict[str, Any] = {
        "role": message.role.value,
        "parts": [to_fasta2a_part(part) for part in message.parts],
        "message_id": message.message_id,
    }
    _put(
        out,
        context_id=message.context_id,
        task_id=message.task_id,
        reference_task_ids=message.reference_task_ids,
        extensions=message.extensions,
        metadata=message.metadata,
    )
    return out


def from_fasta2a_message(
    message: dict[str, Any], *, task_id: str | None = None, context_id: str | None = None
) -> Message:
    """fasta2a's `Message` as one of the kit's; ``task_id``/``context_id``: the ids it gets
    (a worker's message: its task's), else its own."""
    return Message(
        role=Role(message.get("role", "agent")),
        parts=[from_fasta2a_part(part) for part in message["parts"]],
        message_id=message.get("message_id") or str(uuid.uuid4()),
        task_id=task_id or message.get("task_id"),
        context_id=context_id or message.get("context_id"),
        reference_task_ids=message.get("reference_task_ids"),
        extensions=message.get("extensions"),
        metadata=message.get("metadata"),
    )


def to_fasta2a_artifact(artifact: Artifact) -> dict[str, Any]:
    """One of the kit's artifacts as fasta2a's `Artifact`."""
    out: dict[str, Any] = {
        "artifact_id": artifact.artifact_id,
        "parts": [to_fasta2a_part(part) for part in artifact.parts],
    }
    _put(
        out,
        name=artifact.name,
        description=artifact.description,
        metadata=artifact.metadata,
        extensions=artifact.extensions,
    )
    return out


def from_fasta2a_artifact(artifact: dict[str, Any]) -> Artifact:
    """fasta2a's `Artifact` as one of the kit's (an id made up when it names none)."""
    return Artifact(
        artifact_id=artifact.get("artifact_id") or str(uuid.uuid4()),
        parts=[from_fasta2a_part(part) for part in artifact["parts"]],
        name=artifact.get("name"),
        description=artifact.get("description"),
        metadata=artifact.get("metadata"),
        extensions=artifact.get("extensions"),
    )


def to_fasta2a_task(task: Task, *, state: str | None = None) -> dict[str, Any]:
    """One of the kit's tasks as fasta2a's `Task`; ``state``: the one to report instead of its own."""
    status: dict[str, Any] = {"state": state or task.status.state.value}
    if task.status.message is not None and state is None:
        status["message"] = to_fasta2a_message(task.status.message)
    _put(status, timestamp=task.status.timestamp)
    out: dict[str, Any] = {
        "id": task.id,
        "context_id": task.context_id,
        "status": status,
        "history": [to_fasta2a_message(message) for message in task.history or []],
        "artifacts": [to_fasta2a_artifact(artifact) for artifact in task.artifacts or []],
    }
    _put(out, metadata=task.metadata)
    return out


def _put(target: dict[str, Any], **values: Any) -> None:
    """Set the keys whose value is not None (fasta2a's TypedDicts leave them out)."""
    target.update((key, value) for key, value in values.items() if value is not None)


def trim(task: Task, history_length: int | None) -> Task:
    """``task`` with its last ``history_length`` messages only (all of them when None or 0, as
    fasta2a's own storage does)."""
    if not history_length or not task.history:
        return task
    return task.model_copy(update={"history": task.history[-history_length:]})
