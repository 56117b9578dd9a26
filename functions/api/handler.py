"""API Lambda: API Gateway (REST, proxy) -> Mangum -> the Starlette app.

Composition root: settings and adapters are built once per cold start, at import.
"""

from __future__ import annotations

from typing import Any

from mangum import Mangum

from a2a_core.app import create_app
from a2a_core.broker import InMemoryBroker
from a2a_core.service import build_service
from a2a_core.settings import Settings
from a2a_core.store import InMemoryTaskStore

settings = Settings.from_env()
service = build_service(settings, store=InMemoryTaskStore(), broker=InMemoryBroker())
app = create_app(service)
_mangum = Mangum(app, lifespan="off")


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    response: dict[str, Any] = _mangum(event, context)
    return response
