"""API Lambda: API Gateway (REST, HTTP API) or a function URL -> Mangum -> the Starlette app.

Composition root: settings and the backend's adapters are built once per cold start, at import
(`a2a_core.functions.cold_start`: the collector paused meanwhile; under SnapStart, primed before
the snapshot and reconnected after each restore). The AWS adapters are imported only when the
backend is "aws", so the in-memory handler used in tests and benchmarks stays light.
"""

from __future__ import annotations

# isort: off
from a2a_core.functions.cold_start import end_cold_start  # first: it pauses the collector in Lambda
# isort: on

from typing import Any

from mangum import Mangum
from mangum.adapter import DEFAULT_TEXT_MIME_TYPES

from a2a_core import redaction
from a2a_core.compose import compose_server
from a2a_core.compose.app import compose_app
from a2a_core.compose.backends import build_adapters
from a2a_core.settings import Settings

redaction.install()  # before anything logs: no secret in a log line, at any level

settings = Settings.from_env()
adapters = build_adapters(settings)
app = compose_app(compose_server(adapters), authenticator=adapters.app_authenticator())
# Mangum base64-encodes any other media type, and a REST API without binary media types hands
# that base64 to the client as the body: the HTTP+JSON binding answers application/a2a+json.
_mangum = Mangum(app, lifespan="off", text_mime_types=[*DEFAULT_TEXT_MIME_TYPES, "application/a2a+json"])


def _prime() -> None:
    from a2a_core.functions.api.priming import prime

    prime(settings)


end_cold_start(prime=_prime, restore=adapters.reconnect)


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    response: dict[str, Any] = _mangum(event, context)
    return response
