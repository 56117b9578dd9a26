"""Plain-text views of cards, tasks and parts for a terminal."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from a2a_core.client.interfaces import Interface
from a2a_core.domain import (
    AgentCard,
    APIKeySecurityScheme,
    Artifact,
    DataPart,
    FilePart,
    FileWithBytes,
    HTTPAuthSecurityScheme,
    Message,
    OAuth2SecurityScheme,
    OpenIdConnectSecurityScheme,
    Part,
    Task,
    TextPart,
)


def part_text(part: Part) -> str:
    if isinstance(part, TextPart):
        return part.text
    if isinstance(part, DataPart):
        return json.dumps(part.data, ensure_ascii=False)
    assert isinstance(part, FilePart)
    file = part.file
    where = f"{len(file.bytes) * 3 // 4} bytes" if isinstance(file, FileWithBytes) else file.uri
    return f"[file {file.name or ''} {file.mime_type or ''} {where}]".replace("  ", " ")


def parts_text(parts: list[Part]) -> str:
    return "".join(part_text(part) for part in parts)


def _extended(card: AgentCard, extended: bool) -> str | None:
    if extended:
        return "this is the authenticated extended card"
    if card.supports_authenticated_extended_card:
        return "authenticated callers get more (card --extended with credentials)"
    return None


def card_summary(
    card: AgentCard,
    *,
    interfaces: Sequence[Interface] = (),
    using: Interface | None = None,
    signatures: int = 0,
    verified: Mapping[str, Any] | None = None,
    extended: bool = False,
) -> str:
    """The card for a person; ``interfaces`` as the card lists them, ``using`` the one the client
    chose, ``signatures`` how many the card carries and ``verified`` the header of the one that
    verified (None: not checked); ``extended``: it is the authenticated extended card."""
    caps = card.capabilities
    flags = {
        "streaming": caps.streaming,
        "push notifications": caps.push_notifications,
        "state transition history": caps.state_transition_history,
    }
    lines = [f"{card.name} (version {card.version}, A2A {card.protocol_version})", card.description, ""]
    rows = [
        ("URL", f"{card.url} ({card.preferred_transport})"),
        ("Interfaces", ", ".join(_interface(i, card.url) for i in interfaces)),
        ("Using", str(using) if using else None),
        ("Signature", _signature(signatures, verified)),
        ("Extended", _extended(card, extended)),
        ("Provider", f"{card.provider.organization} ({card.provider.url})" if card.provider else None),
        ("Docs", card.documentation_url),
        ("Capabilities", ", ".join(f"{name}: {'yes' if on else 'no'}" for name, on in flags.items())),
        ("Input modes", ", ".join(card.default_input_modes)),
        ("Output modes", ", ".join(card.default_output_modes)),
        ("Auth", auth_summary(card)),
    ]
    lines += [f"{label + ':':<14}{value}" for label, value in rows if value]
    lines += ["", f"Skills ({len(card.skills)}):" if card.skills else "Skills: none declared"]
    for skill in card.skills:
        lines.append(f"  - {skill.name} [{skill.id}]: {skill.description}")
        if skill.tags:
            lines.append(f"      tags: {', '.join(skill.tags)}")
        for example in skill.examples or []:
            lines.append(f"      e.g. {example}")
    return "\n".join(lines)


def _interface(interface: Interface, url: str) -> str:
    # Our HTTP+JSON interface's URL is the base URL without its trailing slash: the same place.
    where = "" if interface.url.rstrip("/") == url.rstrip("/") else f" at {interface.url}"
    return f"{interface.binding} {interface.version}{where}"


def _signature(count: int, verified: Mapping[str, Any] | None) -> str | None:
    if verified is not None:
        return f"verified (key {verified.get('kid')})"
    if count:
        return f"{count} signature(s), not verified (--card-jwks verifies them)"
    return None


def auth_summary(card: AgentCard) -> str:
    schemes = card.security_schemes or {}
    if not schemes:
        return "none (no security schemes declared)"
    described = []
    for name, scheme in schemes.items():
        if isinstance(scheme, HTTPAuthSecurityScheme):
            kind = f"HTTP {scheme.scheme}" + (f" ({scheme.bearer_format})" if scheme.bearer_format else "")
        elif isinstance(scheme, APIKeySecurityScheme):
            kind = f"API key in {scheme.in_} {scheme.name!r}"
        elif isinstance(scheme, OAuth2SecurityScheme):
            flows = [flow for flow, value in scheme.flows if value is not None]
            kind = f"OAuth 2.0 ({', '.join(flows)})"
        else:
            assert isinstance(scheme, OpenIdConnectSecurityScheme)
            kind = f"OpenID Connect ({scheme.open_id_connect_url})"
        described.append(f"{name}: {kind}")
    required = [" + ".join(requirement) for requirement in card.security or []]
    suffix = f"; required: {' or '.join(required)}" if required else ""
    return "; ".join(described) + suffix


def message_line(message: Message) -> str:
    return f"{message.role.value}: {parts_text(message.parts)}"


def artifact_text(artifact: Artifact) -> str:
    return parts_text(artifact.parts)


def task_line(task: Task) -> str:
    """One line of a task list: id, state, when, and the start of its status message."""
    status = task.status
    text = " ".join(parts_text(status.message.parts).split()) if status.message else ""
    when = status.timestamp or ""
    return f"{task.id}  {status.state.value:<14} {when:<24}  {text[:60]}".rstrip()


def task_summary(task: Task) -> str:
    status = task.status
    lines = [
        f"Task {task.id}",
        f"{'Context:':<10}{task.context_id}",
        f"{'State:':<10}{status.state.value}" + (f" (at {status.timestamp})" if status.timestamp else ""),
    ]
    if status.message is not None:
        lines.append(f"{'Message:':<10}{parts_text(status.message.parts)}")
    if task.history:
        lines += ["", f"History ({len(task.history)}):"] + [f"  {message_line(m)}" for m in task.history]
    if task.artifacts:
        lines += ["", f"Artifacts ({len(task.artifacts)}):"]
        for artifact in task.artifacts:
            lines.append(f"  {artifact.name or artifact.artifact_id}: {artifact_text(artifact)}")
    return "\n".join(lines)


# Strands' A2A executor lists the interrupts a task waits on in its status message, as a data
# part ``{"interrupts": [{"interruptId": ..., "name": ..., "reason": ...}]}``, and takes each
# answer as a data part ``{"interruptResponse": {"interruptId": ..., "response": ...}}``.
INTERRUPTS, INTERRUPT_RESPONSE = "interrupts", "interruptResponse"


def continue_hint(url: str, task_id: str | None, question: Message | None) -> str:
    """How to answer a task waiting for input: with a text, or, when it waits on Strands
    interrupts, with a data part answering each."""
    command = f"a2a-serverless send {url} --task {task_id}"
    ids = interrupt_ids(question)
    if not ids:
        return f'continue with: {command} "..."'
    answers = (
        "--data " + shlex.quote(json.dumps({INTERRUPT_RESPONSE: {"interruptId": i, "response": "..."}}))
        for i in ids
    )
    return f"continue with: {command} {' '.join(answers)}"


def interrupt_ids(message: Message | None) -> list[str]:
    """The ids of the Strands interrupts a status message lists (none: not such a message)."""
    found: list[str] = []
    for part in message.parts if message else []:
        pending = part.data.get(INTERRUPTS) if isinstance(part, DataPart) else None
        if isinstance(pending, list):
            found.extend(str(i["interruptId"]) for i in pending if isinstance(i, dict) and "interruptId" in i)
    return found
