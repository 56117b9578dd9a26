"""Admission: what a sent message must be before the engine writes anything for it (role, size,
push support, accepted output modes, file types and URI schemes)."""

from __future__ import annotations

from a2a_core.core.config import EngineConfig
from a2a_core.core.errors import (
    ContentTypeNotSupportedError,
    InvalidParamsError,
    PushNotificationNotSupportedError,
)
from a2a_core.core.requests import SendRequest
from a2a_core.domain import FilePart, FileWithUri, Message, Role, TextPart
from a2a_core.domain.scalars import file_uri_refusal


def check_message(request: SendRequest, config: EngineConfig, *, push_enabled: bool) -> None:
    """Refuse, before anything is written, a message this agent does not take."""
    message = request.message
    if message.role != Role.user:
        raise InvalidParamsError(
            "message.role must be 'user' when a client sends a message", data={"field": "message.role"}
        )
    _check_size(message, config)
    if request.push_config is not None and not push_enabled:
        raise PushNotificationNotSupportedError(
            "This agent does not send push notifications (capabilities.pushNotifications is false)"
        )
    accepted = request.accepted_output_modes
    if accepted and not any(_mode_matches(a, m) for a in accepted for m in config.output_modes):
        raise ContentTypeNotSupportedError(
            f"None of acceptedOutputModes {list(accepted)} is produced by this agent "
            f"(it produces {list(config.output_modes)})",
            data={"supportedOutputModes": list(config.output_modes)},
        )
    _check_file_uris(message, config)
    inputs = config.input_modes
    for part in message.parts:
        mime = part.file.mime_type if isinstance(part, FilePart) else None
        if mime and not any(_mode_matches(mime, m) for m in inputs):
            raise ContentTypeNotSupportedError(
                f"File part type {mime!r} is not accepted (accepted: {list(inputs)})",
                data={"supportedInputModes": list(inputs)},
            )


def _check_file_uris(message: Message, config: EngineConfig) -> None:
    allowed = config.file_uri_schemes
    for index, part in enumerate(message.parts):
        if isinstance(part, FilePart) and isinstance(part.file, FileWithUri):
            reason = file_uri_refusal(part.file.uri, allowed)
            if reason is not None:
                field = f"message.parts.{index}.file.uri"
                raise InvalidParamsError(
                    f"{field} {reason}", data={"field": field, "allowedSchemes": list(allowed)}
                )


def _check_size(message: Message, config: EngineConfig) -> None:
    """Limits that keep one request from costing the agent (and the table) without bound."""
    most = config.max_parts_per_message
    if len(message.parts) > most:
        raise InvalidParamsError(
            f"message.parts has {len(message.parts)} parts; this agent accepts at most {most}",
            data={"field": "message.parts", "limit": most},
        )
    chars = config.max_text_part_chars
    for index, part in enumerate(message.parts):
        if isinstance(part, TextPart) and len(part.text) > chars:
            raise InvalidParamsError(
                f"message.parts.{index}.text has {len(part.text)} characters; this agent accepts "
                f"at most {chars} per part",
                data={"field": f"message.parts.{index}.text", "limit": chars},
            )


def _mode_matches(offered: str, supported: str) -> bool:
    """Media-type match with ``*`` wildcards on either side (``text/*``, ``*/*``)."""
    offered_type, offered_sub = _split_mode(offered)
    supported_type, supported_sub = _split_mode(supported)
    types_match = "*" in (offered_type, supported_type) or offered_type == supported_type
    subs_match = "*" in (offered_sub, supported_sub) or offered_sub == supported_sub
    return types_match and subs_match


def _split_mode(mode: str) -> tuple[str, str]:
    kind, _, sub = mode.split(";")[0].strip().lower().partition("/")
    return kind, sub or "*"
