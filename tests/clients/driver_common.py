"""What the Python client drivers share. Standard library only: each driver runs in its own
environment (`.venv-clients/<name>/`), next to nothing of ours but this file.

A driver is run as ``<python> tests/clients/<name>_driver.py BASE_URL SCENARIO [ARGS_JSON]`` and
prints one JSON object per line, each a summary of what the client returned (the same shapes for
every client, so one test reads any of them; `clients.drivers` has the list). A client error
(a JSON-RPC error, a refused request) is a result too: ``{"kind": "error", ...}`` and exit code 0.
Anything else (a bug in the driver, a client that crashed) is a traceback and exit code 1; a
bad command line is exit code 2.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

Result = dict[str, Any]
Args = dict[str, Any]
Scenario = Callable[[str, Args], AsyncIterator[Result]]


def main(scenarios: Mapping[str, Scenario], as_error: Callable[[Exception], Result | None]) -> None:
    """Run the scenario the command line names; ``as_error`` turns a client's exception into an
    error result (None: not a client error, let it crash)."""
    if len(sys.argv) not in (3, 4) or sys.argv[2] not in scenarios:
        print(f"usage: {sys.argv[0]} BASE_URL {{{','.join(scenarios)}}} [ARGS_JSON]", file=sys.stderr)
        sys.exit(2)
    base_url, name = sys.argv[1], sys.argv[2]
    args: Args = json.loads(sys.argv[3]) if len(sys.argv) == 4 else {}

    async def run() -> None:
        try:
            async for result in scenarios[name](base_url, args):
                emit(result)
        except Exception as exception:
            failure = as_error(exception)
            if failure is None:
                raise
            emit(failure)

    asyncio.run(run())


def emit(result: Result) -> None:
    print(json.dumps(result), flush=True)


def error(kind: str, message: str, code: int | None = None) -> Result:
    return {"kind": "error", "error": kind, "code": code, "message": message}


# --- summaries of 0.2.5 / 0.3 wire objects (camelCase; `kind` optional, as fasta2a drops it) -----


def summary(obj: Mapping[str, Any]) -> Result:
    """The summary of a Task, Message, status or artifact update in wire form."""
    kind = obj.get("kind") or _kind_of(obj)
    if kind == "task":
        return task_summary(obj)
    if kind == "message":
        return {
            "kind": "message",
            "messageId": obj["messageId"],
            "role": role(obj["role"]),
            "text": text(obj.get("parts", [])),
            "taskId": obj.get("taskId"),
            "contextId": obj.get("contextId"),
        }
    if kind == "status-update":
        return {
            "kind": "status-update",
            "taskId": obj["taskId"],
            "contextId": obj.get("contextId"),
            "state": state(obj["status"]["state"]),
            "text": _status_text(obj["status"]),
            "final": obj.get("final"),
        }
    if kind == "artifact-update":
        artifact = obj["artifact"]
        return {
            "kind": "artifact-update",
            "taskId": obj["taskId"],
            "artifactId": artifact["artifactId"],
            "name": artifact.get("name"),
            "text": text(artifact.get("parts", [])),
            "append": bool(obj.get("append")),
            "lastChunk": bool(obj.get("lastChunk")),
        }
    raise ValueError(f"not a task, message or update: {obj}")


def _kind_of(obj: Mapping[str, Any]) -> str | None:
    if "artifact" in obj:
        return "artifact-update"
    if "status" in obj:
        return "status-update" if "taskId" in obj else "task"
    return "message" if "messageId" in obj else None


def task_summary(obj: Mapping[str, Any]) -> Result:
    return {
        "kind": "task",
        "id": obj["id"],
        "contextId": obj.get("contextId"),
        "state": state(obj["status"]["state"]),
        "text": _status_text(obj["status"]),
        "history": [
            {"role": role(m["role"]), "text": text(m.get("parts", []))} for m in obj.get("history") or []
        ],
        "artifacts": [
            {"artifactId": a["artifactId"], "name": a.get("name"), "text": text(a.get("parts", []))}
            for a in obj.get("artifacts") or []
        ],
    }


def push_summary(config: Mapping[str, Any]) -> Result:
    """A 0.3 TaskPushNotificationConfig (``taskId`` + ``pushNotificationConfig``)."""
    inner = config["pushNotificationConfig"]
    return {
        "kind": "push-config",
        "taskId": config["taskId"],
        "id": inner.get("id"),
        "url": inner["url"],
        "token": inner.get("token"),
    }


def card_summary(card: Mapping[str, Any]) -> Result:
    capabilities = card.get("capabilities") or {}
    return {
        "kind": "card",
        "name": card["name"],
        "protocolVersion": card.get("protocolVersion"),
        "url": card.get("url"),
        "preferredTransport": card.get("preferredTransport"),
        "streaming": capabilities.get("streaming"),
        "pushNotifications": capabilities.get("pushNotifications"),
    }


def _status_text(status: Mapping[str, Any]) -> str | None:
    message = status.get("message")
    return text(message.get("parts", [])) if message else None


def text(parts: list[Mapping[str, Any]]) -> str:
    return "".join(str(part["text"]) for part in parts if "text" in part)


def state(value: str) -> str:
    """0.3 spelling (``input-required``) of a state in either spelling (1.0: ``TASK_STATE_...``)."""
    return value.removeprefix("TASK_STATE_").lower().replace("_", "-")


def role(value: str) -> str:
    return value.removeprefix("ROLE_").lower()
