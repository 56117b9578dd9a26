"""Input checks apply to what clients send, never to what the task log already holds."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from a2a_core.domain import FilePart, Message
from a2a_core.domain.scalars import WIRE_INPUT

NOT_BASE64 = {"kind": "file", "file": {"bytes": "not base64!"}}


def test_a_client_file_part_with_bad_base64_is_refused() -> None:
    with pytest.raises(ValidationError, match="must be base64"):
        FilePart.model_validate(NOT_BASE64, context=WIRE_INPUT)


def test_a_stored_record_from_before_the_check_still_loads() -> None:
    stored = {"kind": "message", "messageId": "m", "role": "user", "parts": [NOT_BASE64]}
    message = Message.model_validate_json(Message.model_validate(stored).model_dump_json())
    part = message.parts[0]
    assert isinstance(part, FilePart)
    assert part.file.model_dump()["bytes"] == "not base64!"
