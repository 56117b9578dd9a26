"""Message and artifact parts: text, file (inline bytes or a URI) and structured data."""

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, TypeAdapter

from a2a_core.domain._base import DEFER, A2ABaseModel
from a2a_core.domain.scalars import Base64Text


class PartBase(A2ABaseModel):
    """Base properties common to all message parts."""

    metadata: dict[str, Any] | None = None


class TextPart(PartBase):
    """Represents a text segment within parts."""

    kind: Literal["text"] = "text"
    text: str
    # A2A 1.0 gives every part a media type and a file name; kept so 1.0 round trips are lossless.
    media_type: str | None = None
    filename: str | None = None


class FileBase(A2ABaseModel):
    """Represents the base entity for FileParts."""

    mime_type: str | None = None
    name: str | None = None


class FileWithBytes(FileBase):
    """The variant where 'bytes' (base64) is present and 'uri' is absent."""

    bytes: Base64Text


class FileWithUri(FileBase):
    """The variant where 'uri' is present and 'bytes' is absent."""

    uri: str


def _file_variant(value: Any) -> str:
    # Chosen by the member that is present, so an error names the field the client sent (a bad
    # ``uri``) instead of the other variant's missing ``bytes``.
    has_bytes = "bytes" in value if isinstance(value, dict) else isinstance(value, FileWithBytes)
    return "FileWithBytes" if has_bytes else "FileWithUri"


class FilePart(PartBase):
    """Represents a File segment within parts."""

    kind: Literal["file"] = "file"
    file: Annotated[
        Annotated[FileWithBytes, Tag("FileWithBytes")] | Annotated[FileWithUri, Tag("FileWithUri")],
        Discriminator(_file_variant),
    ]


class DataPart(PartBase):
    """Represents a structured data segment within a message part."""

    kind: Literal["data"] = "data"
    data: dict[str, Any]
    # A2A 1.0 part fields, as on TextPart.
    media_type: str | None = None
    filename: str | None = None


Part = Annotated[TextPart | FilePart | DataPart, Field(discriminator="kind")]

part_adapter: TypeAdapter[TextPart | FilePart | DataPart] = TypeAdapter(Part, config=DEFER)
