"""fasta2a 2.1.1's client (``.venv-clients/fasta2a``): `fasta2a.client.A2AClient`.

What it speaks: the 0.3 JSON-RPC method names (``message/send``, ``message/stream``,
``tasks/get``) with 1.0-shaped objects (parts without ``kind``) and 0.3's enum spellings, and no
``A2A-Version`` header. It reads a send result and each stream event as 1.0 wrappers
(``{"task": ...}``, ``{"status_update": ...}``), and ``tasks/get``'s result as a Task. It has
no cancel, resubscribe or push methods; `fetch_card=True` reads a 1.0 card
(``supportedInterfaces``). It returns JSON-RPC responses (dicts) rather than raising, and
validates a ``tasks/get`` error against the spec's default text.

Scenarios (ARGS_JSON keys): card; send (text, blocking, taskId, contextId); get (taskId);
stream (text, taskId, contextId).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx
import pydantic
from driver_common import Args, Result, error, main, summary
from fasta2a.client import A2AClient, UnexpectedResponseError


def message(args: Args) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "user", "parts": [{"text": args["text"]}], "message_id": str(uuid.uuid4())}
    if args.get("taskId"):
        msg["task_id"] = args["taskId"]
    if args.get("contextId"):
        msg["context_id"] = args["contextId"]
    return msg


def result_of(response: Mapping[str, Any]) -> dict[str, Any]:
    if "error" in response:
        raise ClientRPCError(response["error"]["code"], response["error"]["message"])
    result: dict[str, Any] = response["result"]
    return result


# The members of a 1.0 SendMessageResponse / StreamResponse, as fasta2a names them, and the kind of
# the object each holds.
WRAPPED = {
    "task": "task",
    "message": "message",
    "status_update": "status-update",
    "artifact_update": "artifact-update",
}


def unwrapped(result: Mapping[str, Any]) -> dict[str, Any]:
    """The summary of the one object a send result or stream event wraps."""
    members = [(key, value) for key, value in result.items() if key in WRAPPED]
    if len(members) != 1:
        raise ValueError(f"not a SendMessageResponse or StreamResponse: {dict(result)}")
    key, value = members[0]
    return summary({**camel(value), "kind": WRAPPED[key]})


def camel(value: Any) -> Any:
    """fasta2a hands out snake_case keys; summaries read the wire's camelCase."""
    if isinstance(value, dict):
        return {_camel(key): camel(item) for key, item in value.items()}
    if isinstance(value, list):
        return [camel(item) for item in value]
    return value


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word.title() for word in rest)


class ClientRPCError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


async def card(base_url: str, args: Args) -> AsyncIterator[Result]:
    client = A2AClient(base_url, fetch_card=True)
    found = client.agent_card
    assert found is not None
    interfaces = [
        {
            "url": i["url"],
            "transport": i.get("protocol_binding"),
            "protocolVersion": i.get("protocol_version"),
        }
        for i in found.get("supported_interfaces", [])
    ]
    yield {"kind": "card", "name": found["name"], "interfaces": interfaces}


async def send(base_url: str, args: Args) -> AsyncIterator[Result]:
    async with httpx.AsyncClient(base_url=base_url, timeout=30.0) as http:
        client = A2AClient(base_url, http_client=http)
        configuration: Any = {"blocking": args.get("blocking", True)}
        response = await client.send_message(message(args), configuration=configuration)  # type: ignore[arg-type]
        yield unwrapped(result_of(response))


async def get(base_url: str, args: Args) -> AsyncIterator[Result]:
    async with httpx.AsyncClient(base_url=base_url, timeout=30.0) as http:
        client = A2AClient(base_url, http_client=http)
        yield summary(camel(result_of(await client.get_task(args["taskId"]))))


async def stream(base_url: str, args: Args) -> AsyncIterator[Result]:
    async with httpx.AsyncClient(base_url=base_url, timeout=30.0) as http:
        client = A2AClient(base_url, http_client=http)
        events = 0
        async for response in client.stream_message(message(args)):  # type: ignore[arg-type]
            events += 1
            yield unwrapped(result_of(response))
        if not events:  # it reads only `data:` lines: a plain JSON error answer yields nothing
            yield error("NoEvents", "the stream carried no events")


def as_error(exception: Exception) -> Result | None:
    if isinstance(exception, ClientRPCError):
        return error("JSONRPCError", exception.message, exception.code)
    if isinstance(exception, UnexpectedResponseError):
        return error(type(exception).__name__, exception.content, exception.status_code)
    if isinstance(exception, pydantic.ValidationError | ValueError | httpx.HTTPError):
        return error(type(exception).__name__, str(exception))
    return None


if __name__ == "__main__":
    main({"card": card, "send": send, "get": get, "stream": stream}, as_error)
