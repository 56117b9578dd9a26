"""fasta2a's dialect of 0.3 JSON-RPC: 0.3 method names, 1.0-shaped objects, 0.3 enum spellings.

pydantic's fasta2a 2.x (its `A2AClient`, and its own server, which answers it) calls
``message/send`` and ``message/stream`` without ``A2A-Version``, so they reach the 0.3 methods,
but writes the message as 1.0 does: no ``kind`` on the message or its parts, a part named by its
one member (``text``, ``raw``, ``url`` or ``data``), a push config as
``configuration.taskPushNotificationConfig``. It keeps 0.3's ``blocking`` and 0.3's enum
spellings (``"user"``, ``"completed"``). It reads answers the way its server writes them: a send
result wrapped as 1.0's SendMessageResponse (``{"task": ...}`` or ``{"message": ...}``), each
stream event as a StreamResponse (``{"statusUpdate": ...}``), the objects 1.0-shaped with 0.3
spellings; a bare 0.3 Task reads as ``{}`` there.

No 0.x client sends such a message: both 0.x schemas require ``kind`` on a message and on each
part. So reading one this way (`dialect`) changes nothing for them, but the 0.3 schema refuses
it, and so does this server unless its operator opts in (``fasta2a_compat``). Opted out, the
refusal says how to call instead (`refusal`). ``tasks/get`` carries nothing that tells the
dialect: it is answered in 0.3, which fasta2a's Task type reads (it ignores ``kind``).

The 1.0 codec does the reading and writing; it is imported on the first such request, so a
0.x request pays nothing for it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from a2a_core.core.errors import InvalidParamsError
from a2a_core.core.requests import SendRequest
from a2a_core.domain import Message, Role, Task, TaskState
from a2a_core.protocol.jsonrpc import Method
from a2a_core.protocol.validation import invalid_params

Dialect = Callable[[dict[str, Any]], Method | None]

REFUSAL_HINT = (
    "A2A 0.x needs a `kind` on the message's parts; this message has A2A 1.0's shape (fasta2a 2.x "
    "sends it so). Send it as A2A 1.0 (header A2A-Version: 1.0, method SendMessage), or ask the "
    "agent's operator to accept fasta2a's shape (A2A_FASTA2A_COMPAT=true)"
)

_ROLES_TO_V1 = {role.value: f"ROLE_{role.name.upper()}" for role in Role}
_ROLES_FROM_V1 = {v1: v0 for v0, v1 in _ROLES_TO_V1.items()}
_STATES = frozenset(state.value for state in TaskState)
# `data` and `metadata` are the application's: a `role` or `state` key in them is a value.
_APPLICATION_KEYS = frozenset({"data", "metadata"})


def speaks_fasta2a(params: Mapping[str, Any]) -> bool:
    """Whether ``params`` (of message/send or message/stream) hold a kind-less message whose
    parts are all kind-less: 1.0's shape, which only fasta2a sends to a 0.3 method."""
    message = params.get("message")
    if not isinstance(message, dict) or "kind" in message:
        return False
    parts = message.get("parts")
    return (
        isinstance(parts, list)
        and bool(parts)
        and all(isinstance(part, dict) and "kind" not in part for part in parts)
    )


def dialect(method: Method, *, tenant: str | None) -> Dialect:
    """message/send or message/stream read and answered fasta2a's way when the params are
    fasta2a's; ``tenant`` is the one this server serves (1.0's rule for a request naming one)."""
    fasta2a = dataclasses.replace(
        method,
        decode=lambda params: decode_send(params, tenant),
        encode=encode_sent,
        encode_event=encode_event,
        dialect=None,
    )
    return lambda params: fasta2a if speaks_fasta2a(params) else None


def refusal(method: Method) -> Dialect:
    """The method unchanged, except that refusing fasta2a's message says how to call instead."""
    strict = method.decode

    def decode(params: dict[str, Any]) -> Any:
        try:
            return strict(params)
        except ValidationError as error:
            refused = invalid_params(error, params)
            raise InvalidParamsError(f"{refused.message}. {REFUSAL_HINT}", data=refused.data) from None

    hinted = dataclasses.replace(method, decode=decode, dialect=None)
    return lambda params: hinted if speaks_fasta2a(params) else None


def decode_send(params: dict[str, Any], tenant: str | None) -> SendRequest:
    """fasta2a's MessageSendParams as the 1.0 SendMessageRequest they are, but for the enums'
    spelling and ``blocking`` (1.0: ``returnImmediately``, its negation)."""
    from a2a_core.protocol.v1.operations import SEND_MESSAGE
    from a2a_core.protocol.v1.request_codec import check_tenant

    request = SEND_MESSAGE.decode(_as_v1(params))
    assert isinstance(request, SendRequest)
    check_tenant(request.tenant, tenant)
    return request


def _as_v1(params: dict[str, Any]) -> dict[str, Any]:
    message = dict(params["message"])
    role = message.get("role")
    if isinstance(role, str):
        message["role"] = _ROLES_TO_V1.get(role, role)  # another value is refused as 1.0 refuses it
    v1 = {**params, "message": message}
    configuration = params.get("configuration")
    if isinstance(configuration, dict) and "blocking" in configuration:
        v1["configuration"] = _returns_immediately(configuration)
    return v1


def _returns_immediately(configuration: dict[str, Any]) -> dict[str, Any]:
    settings = {key: value for key, value in configuration.items() if key != "blocking"}
    blocking = configuration["blocking"]
    if blocking is None:
        return settings
    if not isinstance(blocking, bool):
        _refuse("configuration.blocking", "Input should be a valid boolean")
    if "returnImmediately" in settings:
        _refuse("configuration.blocking", "send either blocking or returnImmediately, not both")
    settings["returnImmediately"] = not blocking
    return settings


def _refuse(field: str, message: str) -> None:
    raise InvalidParamsError(
        f"Invalid params: {field}: {message}", data=[{"field": field, "message": message}]
    )


def encode_sent(result: Task | Message) -> bytes:
    """A send result as fasta2a's server writes it: ``{"task": ...}`` or ``{"message": ...}``."""
    from a2a_core.protocol.v1.codec import send_response_to_v1

    return _dump(send_response_to_v1(result))


def encode_event(event: BaseModel) -> bytes:
    """A stream item (the Task, a message, or an update) as fasta2a reads it: a StreamResponse."""
    from a2a_core.protocol.v1.codec import event_to_v1

    assert isinstance(event, Task | Message) or hasattr(event, "task_id")
    return _dump(event_to_v1(event))  # type: ignore[arg-type]


def _dump(model: BaseModel) -> bytes:
    wire = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return json.dumps(respell(wire), separators=(",", ":")).encode()


def respell(value: Any) -> Any:
    """1.0 JSON with its enums in 0.3's spelling (``ROLE_AGENT`` -> ``agent``,
    ``TASK_STATE_INPUT_REQUIRED`` -> ``input-required``), as fasta2a's types declare them."""
    if isinstance(value, list):
        return [respell(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key in _APPLICATION_KEYS:
            out[key] = item
        elif key == "role" and isinstance(item, str):
            out[key] = _ROLES_FROM_V1.get(item, item)
        elif key == "state" and isinstance(item, str):
            out[key] = _state(item)
        else:
            out[key] = respell(item)
    return out


def _state(v1: str) -> str:
    # TASK_STATE_UNSPECIFIED (a task of unknown state) is 0.3's "unknown".
    name = v1.removeprefix("TASK_STATE_").lower().replace("_", "-")
    return name if name in _STATES else TaskState.unknown.value
