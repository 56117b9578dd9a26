"""Wire values the schema is strict about, as reusable types and checks for any generation's models.

pydantic's lax mode would take ``"yes"`` for a boolean and ``"2"`` for an integer; the A2A schemas
say boolean and integer, so protocol models use `pydantic.StrictBool` and `pydantic.StrictInt`
for them. A file's ``bytes`` must be base64 (`Base64Text`), and a file's ``uri`` must use a
scheme the agent takes (`file_uri_refusal`: which schemes is a setting, so it is checked where
the settings are known, not by the type).

Checks on the domain model's own fields (`Base64Text`) apply to what a client sends, validated
with ``context=WIRE_INPUT``: the same models are the task log's storage format, and a record
stored before a check existed must still load (a task must never become unreadable).
"""

from __future__ import annotations

import binascii
import re
from base64 import b64decode
from collections.abc import Collection
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, ValidationInfo

# RFC 3986: a scheme is a letter followed by letters, digits, "+", "-" or ".".
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*$")
DEFAULT_FILE_URI_SCHEMES = ("http", "https", "s3")
# The validation context of a client's input (every protocol's decoder passes it).
WIRE_INPUT = {"wire_input": True}


def is_wire_input(info: ValidationInfo) -> bool:
    """Whether the model is being read from a client's request (validated with `WIRE_INPUT`)."""
    return bool((info.context or {}).get("wire_input"))


def _base64(value: str, info: ValidationInfo) -> str:
    if not is_wire_input(info):
        return value
    try:
        b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("must be base64 (RFC 4648 standard alphabet, padded, no line breaks)") from None
    return value


Base64Text = Annotated[str, AfterValidator(_base64)]
"""A str holding base64: kept as the text it was sent as, refused unless it decodes."""


def file_uri_refusal(uri: str, allowed_schemes: Collection[str]) -> str | None:
    """Why ``uri`` may not name a file part's content, or None when its scheme is allowed.

    A client's file URI is something an agent may fetch: ``file:``, ``ftp:`` or a relative
    reference would point it at its own disk or at protocols nobody audited.
    """
    try:
        scheme = urlsplit(uri).scheme.lower()
    except ValueError:
        scheme = ""
    if not scheme:
        return "is not an absolute URI (it has no scheme)"
    if scheme not in allowed_schemes:
        return f"uses scheme {scheme!r}; this agent accepts {', '.join(allowed_schemes) or 'no'} file URIs"
    return None
