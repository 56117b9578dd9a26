"""`a2a-serverless dev`: the API and a worker loop in one local process.

The same `AgentServer` and `Worker` code that runs in Lambda runs here; only the adapters and the
loop that feeds run operations to the worker differ. `dev.stack` builds the stack for a backend
(`dev.local` the local one), `dev.guard` keeps web pages out, `dev.console` binds and prints.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from a2a_core.auth.local import DevAuth
    from a2a_core.core.broker import Broker
    from a2a_core.core.worker import Worker
    from a2a_core.local.moto_server import LocalAws
    from a2a_core.server import AgentServer

Background = Callable[[asyncio.Event], Coroutine[Any, Any, None]]


@dataclass
class DevStack:
    service: AgentServer
    worker: Worker
    app: Starlette
    broker: Broker
    description: str
    local_aws: LocalAws | None = None
    background: list[Background] = field(default_factory=list)
    auth: DevAuth | None = None  # how callers authenticate, for the banner
    kept: str = "nothing: this process only"  # what survives a restart, for the banner
    startup: list[Callable[[], Awaitable[object]]] = field(default_factory=list)  # before background
    closers: list[Callable[[], None]] = field(default_factory=list)  # after everything stopped
