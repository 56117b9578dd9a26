"""1.0 Part (oneof text/raw/url/data), Role, Message and Artifact."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from a2a_core.protocol.v1.wire.protojson import (
    Bytes,
    ProtoModel,
    RequiredStr,
    Str,
    StrList,
    Struct,
    check_oneof,
    enum_parser,
)

PART_CONTENT = ("text", "raw", "url", "data")


class Part(ProtoModel):
    """Exactly one of ``text``, ``raw`` (base64), ``url`` or ``data`` (any JSON value, null too)."""

    text: str | None = None
    raw: Bytes | None = None
    url: Annotated[str, Field(min_length=1)] | None = None
    data: Any = None
    metadata: Struct | None = None
    filename: Str = None
    media_type: Str = None

    @model_validator(mode="after")
    def _one_content(self) -> Part:
        check_oneof(self, "content", PART_CONTENT)
        return self

    @property
    def content(self) -> str:
        """Which member of the oneof is set: ``text``, ``raw``, ``url`` or ``data``."""
        content = check_oneof(self, "content", PART_CONTENT)
        assert content is not None
        return content

    @model_serializer(mode="wrap")
    def _keep_null_data(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # `data` is a google.protobuf.Value: JSON null is a value there, not an absent field.
        out: dict[str, Any] = handler(self)
        if self.data is None and "data" in self.model_fields_set:
            out["data"] = None
        return out


class Role(StrEnum):
    ROLE_UNSPECIFIED = "ROLE_UNSPECIFIED"
    ROLE_USER = "ROLE_USER"
    ROLE_AGENT = "ROLE_AGENT"


def _specified_role(value: object) -> Role:
    role = enum_parser(Role)(value)
    if role is Role.ROLE_UNSPECIFIED:
        raise ValueError("role is required: ROLE_USER or ROLE_AGENT")
    return role


class Message(ProtoModel):
    message_id: RequiredStr
    role: Annotated[Role, BeforeValidator(_specified_role)]
    parts: list[Part] = Field(min_length=1)
    context_id: Str = None
    task_id: Str = None
    metadata: Struct | None = None
    extensions: StrList = None
    reference_task_ids: StrList = None


class Artifact(ProtoModel):
    artifact_id: RequiredStr
    parts: list[Part] = Field(min_length=1)
    name: Str = None
    description: Str = None
    metadata: Struct | None = None
    extensions: StrList = None
