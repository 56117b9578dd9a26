"""`a2a-serverless dev`: the API and a worker loop in one local process.

The same `AgentServer` and `Worker` code that runs in Lambda runs here, over the adapters
`a2a_core.compose.backends` gives the backend; only the loop that feeds run operations to the
worker differs. `dev.stack` builds the stack (`dev.emulated` the local backend's runner, on the
AWS emulator), `dev.auth` the auth it serves with, `dev.guard` keeps web pages out,
`dev.console` binds and prints.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from a2a_core.core.broker import Broker
    from a2a_core.core.turn.worker import Worker
    from a2a_core.dev.auth import DevAuth
    from a2a_core.emulator.moto_server import EmulatedAws
    from a2a_core.server import AgentServer
    from a2a_core.settings import Settings

Background = Callable[[asyncio.Event], Coroutine[Any, Any, None]]


@dataclass
class DevStack:
    service: AgentServer
    worker: Worker
    broker: Broker
    description: str
    emulator: EmulatedAws | None = None
    background: list[Background] = field(default_factory=list)
    auth: DevAuth | None = None  # how callers authenticate, for the banner
    kept: str = "nothing: this process only"  # what survives a restart, for the banner
    startup: list[Callable[[], Awaitable[object]]] = field(default_factory=list)  # before background
    closers: list[Callable[[], None]] = field(default_factory=list)  # after everything stopped
    # The one app serving `service`, built last by `a2a_core.dev.stack.build_dev_stack`.
    app: Starlette = field(init=False)


def loopback_webhooks(settings: Settings) -> Settings:
    """``settings`` admitting webhooks on this machine (http://127.0.0.1:...: the point of dev),
    unless ``A2A_PUSH_ALLOW_INSECURE_LOOPBACK`` says otherwise."""
    if "push_allow_insecure_loopback" in settings.model_fields_set:
        return settings
    return settings.model_copy(update={"push_allow_insecure_loopback": True})
