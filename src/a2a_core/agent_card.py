"""The public agent card, built from `Settings` and the capabilities that are enabled."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from a2a_core.settings import Settings
from a2a_core.types import AgentCapabilities, AgentCard, to_wire


class CardBuilder:
    def __init__(self, settings: Settings, *, streaming: bool, push_notifications: bool) -> None:
        self.settings = settings
        self.capabilities = AgentCapabilities(
            streaming=streaming,
            push_notifications=push_notifications,
            state_transition_history=True,
        )
        self._cache: dict[str, bytes] = {}

    def card(self, url: str) -> AgentCard:
        s = self.settings
        return AgentCard(
            name=s.name,
            description=s.description,
            version=s.version,
            url=url,
            provider=s.provider,
            documentation_url=s.documentation_url,
            capabilities=self.capabilities,
            default_input_modes=list(s.default_input_modes),
            default_output_modes=list(s.default_output_modes),
            skills=list(s.skills),
        )

    def card_json(self, url: str) -> bytes:
        """The card as served; cached per URL (a handful: one per host name it is reached by)."""
        body = self._cache.get(url)
        if body is None:
            body = json.dumps(to_wire(self.card(url))).encode()
            if len(self._cache) < 32:
                self._cache[url] = body
        return body


def public_url(configured: str | None, scope: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    """The JSON-RPC endpoint URL as the caller reached it, unless one is configured.

    Behind API Gateway the stage is part of the path the client used (``/prod/``) but not of the
    path Lambda sees, so it is taken from the event's request context.
    """
    if configured:
        return configured.rstrip("/") + "/"
    event = scope.get("aws.event")
    if isinstance(event, dict):
        context = event.get("requestContext") or {}
        domain = context.get("domainName")
        stage = context.get("stage")
        if domain:
            on_default_host = domain.endswith(".amazonaws.com")
            prefix = f"/{stage}" if on_default_host and stage and stage != "$default" else ""
            return f"https://{domain}{prefix}/"
    proto = headers.get("x-forwarded-proto", scope.get("scheme", "http")).split(",")[0].strip()
    host = headers.get("x-forwarded-host") or headers.get("host")
    if not host:
        server = scope.get("server") or ("127.0.0.1", 80)
        host = f"{server[0]}:{server[1]}"
    root = str(scope.get("root_path", "")).rstrip("/")
    return f"{proto}://{host.split(',')[0].strip()}{root}/"
