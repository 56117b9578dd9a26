"""What the client sends: a message from a text, or the caller's Message with the ids filled in."""

from __future__ import annotations

import uuid

from a2a_core.domain import Message, Role, TextPart


def user_message(text: str, *, task_id: str | None = None, context_id: str | None = None) -> Message:
    """A user message with one text part and a fresh message id."""
    return Message(
        role=Role.user,
        parts=[TextPart(text=text)],
        message_id=uuid.uuid4().hex,
        task_id=task_id,
        context_id=context_id,
    )


def outgoing(message: Message | str, task_id: str | None, context_id: str | None) -> Message:
    """``message`` as sent: a text becomes a user message; the ids given override a Message's."""
    if isinstance(message, str):
        return user_message(message, task_id=task_id, context_id=context_id)
    ids = {"task_id": task_id, "context_id": context_id}
    return message.model_copy(update={k: v for k, v in ids.items() if v is not None})
