"""What an agent emits as a message or an artifact's parts (`Content`), and the parts it becomes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from a2a_core.core.errors import InvalidAgentResponseError
from a2a_core.domain import DataPart, FilePart, Part, TextPart

Content: TypeAlias = str | Part | Sequence[Part] | dict[str, Any]


def to_parts(content: Content) -> list[Part]:
    """Parts from what an agent emits; raises `InvalidAgentResponseError` for anything else."""
    if isinstance(content, str):
        return [TextPart(text=content)]
    if isinstance(content, dict):
        return [DataPart(data=content)]
    if isinstance(content, TextPart | FilePart | DataPart):
        return [content]
    if isinstance(content, Sequence):
        parts = [p for p in content if isinstance(p, TextPart | FilePart | DataPart)]
        if len(parts) == len(content):
            return parts
    raise InvalidAgentResponseError(
        f"agent content must be str, dict, a Part or a list of Parts, not {type(content).__name__}"
    )
