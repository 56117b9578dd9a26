"""The app a composition root serves: `a2a_core.web.app.create_app` over a server, with the
authenticator the settings call for unless the root has one of its own (API keys kept in a
backend's storage: `Adapters.app_authenticator`)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from starlette.applications import Starlette

from a2a_core.auth import Authenticator, build_authenticator
from a2a_core.server import AgentServer
from a2a_core.web.app import create_app


def compose_app(
    service: AgentServer,
    *,
    authenticator: Authenticator | None = None,
    lifespan: Callable[[Starlette], AbstractAsyncContextManager[None]] | None = None,
) -> Starlette:
    """The app serving ``service``; without ``authenticator``, the one ``settings.auth_mode``
    names (a bad auth configuration fails here, at start-up)."""
    chosen = authenticator or build_authenticator(service.settings)
    return create_app(service, authenticator=chosen, lifespan=lifespan)
