"""1.0 error encoding: each error's code in every binding (spec 5.4, 9.5, 11.6), and the JSON-RPC
and HTTP+JSON error bodies. The JSON-RPC code is the core error's own (`A2AError.code`, which 0.x
answers too); what 1.0 adds (reason, statuses) is `_STATUS`, and the two errors 1.0 answers as
another error are `ANSWERED_AS`.

Both bodies carry a ``google.rpc.ErrorInfo`` (``reason``, ``domain: a2a-protocol.org``,
``metadata`` from the error's ``data``, values as strings as the proto map requires: non-strings
JSON-encoded) and, when the error names fields, a ``google.rpc.BadRequest`` whose
``fieldViolations`` come from the 0.x-style ``data`` (``{"field": ...}`` or a list of
``{"field", "message"}``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from a2a_core.core.errors import (
    A2AError,
    BrokerUnavailableError,
    ContentTypeNotSupportedError,
    ExtendedAgentCardNotConfiguredError,
    ExtensionSupportRequiredError,
    InternalError,
    InvalidAgentResponseError,
    InvalidParamsError,
    InvalidRequestError,
    JSONParseError,
    MethodNotFoundError,
    PushConfigNotFoundError,
    PushNotificationNotSupportedError,
    StoreUnavailableError,
    TaskGenerationMismatchError,
    TaskNotCancelableError,
    TaskNotFoundError,
    TaskTerminalError,
    UnsupportedOperationError,
    VersionNotSupportedError,
)

ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest"
A2A_DOMAIN = "a2a-protocol.org"


class MethodNotAllowedError(MethodNotFoundError):
    """HTTP+JSON: the path is an operation's, the HTTP method is not (405, with ``Allow``)."""

    default_message = "Method not allowed"


@dataclass(frozen=True)
class ErrorMapping:
    code: int  # JSON-RPC error.code
    reason: str  # google.rpc.ErrorInfo.reason
    grpc_status: str  # google.rpc.Status code name, the HTTP+JSON body's "status"
    http_status: int


# What 1.0 adds to each error: its ErrorInfo reason, google.rpc status and HTTP status (spec 5.4,
# reasons as a2a-sdk 1.3 names them). Its JSON-RPC code is the error's own, `A2AError.code`.
_STATUS: Mapping[type[A2AError], tuple[str, str, int]] = {
    JSONParseError: ("PARSE_ERROR", "INVALID_ARGUMENT", 400),
    InvalidRequestError: ("INVALID_REQUEST", "INVALID_ARGUMENT", 400),
    MethodNotFoundError: ("METHOD_NOT_FOUND", "NOT_FOUND", 404),
    MethodNotAllowedError: ("METHOD_NOT_FOUND", "UNIMPLEMENTED", 405),
    InvalidParamsError: ("INVALID_PARAMS", "INVALID_ARGUMENT", 400),
    InternalError: ("INTERNAL_ERROR", "INTERNAL", 500),
    # Retryable: the store or the queue refused; 503 tells HTTP clients and proxies so.
    StoreUnavailableError: ("INTERNAL_ERROR", "UNAVAILABLE", 503),
    BrokerUnavailableError: ("INTERNAL_ERROR", "UNAVAILABLE", 503),
    TaskNotFoundError: ("TASK_NOT_FOUND", "NOT_FOUND", 404),
    TaskNotCancelableError: ("TASK_NOT_CANCELABLE", "FAILED_PRECONDITION", 400),
    PushNotificationNotSupportedError: ("PUSH_NOTIFICATION_NOT_SUPPORTED", "FAILED_PRECONDITION", 400),
    UnsupportedOperationError: ("UNSUPPORTED_OPERATION", "FAILED_PRECONDITION", 400),
    ContentTypeNotSupportedError: ("CONTENT_TYPE_NOT_SUPPORTED", "INVALID_ARGUMENT", 400),
    InvalidAgentResponseError: ("INVALID_AGENT_RESPONSE", "INTERNAL", 500),
    ExtendedAgentCardNotConfiguredError: ("EXTENDED_AGENT_CARD_NOT_CONFIGURED", "FAILED_PRECONDITION", 400),
    ExtensionSupportRequiredError: ("EXTENSION_SUPPORT_REQUIRED", "FAILED_PRECONDITION", 400),
    VersionNotSupportedError: ("VERSION_NOT_SUPPORTED", "FAILED_PRECONDITION", 400),
    # A2A 1.1 (draft): a conditional send lost to another write.
    TaskGenerationMismatchError: ("TASK_GENERATION_MISMATCH", "ABORTED", 409),
}
# Where 1.0 answers an error as another (code, reason and statuses alike); 0.x answers both as
# what they are in the core, InvalidParamsError (-32602).
ANSWERED_AS: Mapping[type[A2AError], type[A2AError]] = {
    # 3.1.8: an unknown push config is a TaskNotFoundError.
    PushConfigNotFoundError: TaskNotFoundError,
    # 3.1.1: a message to a terminal task is an UnsupportedOperationError.
    TaskTerminalError: UnsupportedOperationError,
}
_OWN = {error: ErrorMapping(error.code, *status) for error, status in _STATUS.items()}
ERROR_TABLE: Mapping[type[A2AError], ErrorMapping] = {
    **_OWN,
    **{error: _OWN[known] for error, known in ANSWERED_AS.items()},
}


def mapping_for(error: A2AError) -> ErrorMapping:
    """The entry of the error's class or its nearest listed base (InternalError's if none)."""
    for cls in type(error).__mro__:
        entry = ERROR_TABLE.get(cls)
        if entry is not None:
            return entry
    return ERROR_TABLE[InternalError]


def error_details(error: A2AError) -> list[dict[str, Any]]:
    """The ``data``/``details`` array: an ErrorInfo, then a BadRequest when fields are named."""
    info: dict[str, Any] = {
        "@type": ERROR_INFO_TYPE,
        "reason": mapping_for(error).reason,
        "domain": A2A_DOMAIN,
    }
    metadata = _metadata(error.data)
    if metadata:
        info["metadata"] = metadata
    details = [info]
    violations = field_violations(error)
    if violations:
        details.append({"@type": BAD_REQUEST_TYPE, "fieldViolations": violations})
    return details


def jsonrpc_error(error: A2AError) -> dict[str, Any]:
    """The JSON-RPC ``error`` member."""
    return {"code": mapping_for(error).code, "message": error.message, "data": error_details(error)}


def jsonrpc_error_body(request_id: str | int | None, error: A2AError) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "error": jsonrpc_error(error)}).encode()


def rest_error(error: A2AError) -> tuple[int, dict[str, Any]]:
    """The HTTP status and the google.rpc.Status body ``{"error": {code, status, message, details}}``."""
    mapping = mapping_for(error)
    body = {
        "code": mapping.http_status,
        "status": mapping.grpc_status,
        "message": error.message,
        "details": error_details(error),
    }
    return mapping.http_status, {"error": body}


def field_violations(error: A2AError) -> list[dict[str, str]]:
    data = error.data
    items = data if isinstance(data, list) else [data]
    violations = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("field"), str):
            description = item.get("message")
            violations.append(
                {
                    "field": _google_path(item["field"]),
                    "description": description if isinstance(description, str) else error.message,
                }
            )
    return violations


_INDEX = re.compile(r"\.(\d+)(?=\.|$)")
# The core names a part's file members as the domain model (0.x) has them; 1.0 parts are flat.
_FILE_MEMBER = re.compile(r"\.file\.(uri|bytes|mimeType|name)$")
_V1_PART_MEMBERS = {"uri": ".url", "bytes": ".raw", "mimeType": ".mediaType", "name": ".filename"}


def _google_path(field: str) -> str:
    # 0.x details name list items as `message.parts.0.text`; google.rpc wants `message.parts[0].text`.
    field = _FILE_MEMBER.sub(lambda member: _V1_PART_MEMBERS[member[1]], field)
    return _INDEX.sub(r"[\1]", field)


def _metadata(data: object) -> dict[str, str]:
    if data is None or isinstance(data, list):
        return {}
    if not isinstance(data, dict):
        return {"detail": _text(data)}
    return {str(key): _text(value) for key, value in data.items() if key != "field"}


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), default=str)
