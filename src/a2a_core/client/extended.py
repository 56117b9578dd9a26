"""The authenticated extended card: what an agent tells a caller it has authenticated (more skills,
typically), over the interface the client talks to.

1.0 has ``GetExtendedAgentCard`` (JSON-RPC, or ``GET /extendedAgentCard``) and 0.3 has
``agent/getAuthenticatedExtendedCard``, both operations of the codec like any other; 0.2.5 has
no such method but a plain GET of ``{url}/../agent/authenticatedExtendedCard`` (relative to the
card's ``url``, which is the interface's). Whatever carries it, the answer is a card document read
as the public card is (`a2a_core.client.cards`): a 1.0 server's extended card is a 1.0 card even
when asked over 0.3.

The public card must say there is one (1.0 ``capabilities.extendedAgentCard``, 0.x
``supportsAuthenticatedExtendedCard``) before anything is sent: a server that does not offer it
only has errors to answer, and a caller is better told the card's reason than the server's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import httpx

from a2a_core.client.cards import ReadCard, read_card
from a2a_core.client.discovery import get, verified
from a2a_core.client.errors import A2AClientHTTPError, A2AClientUnsupportedError
from a2a_core.client.interfaces import Interface
from a2a_core.client.operations import Codec
from a2a_core.client.transport import Transport
from a2a_core.client.wire import http_error, json_body
from a2a_core.domain import AgentCard
from a2a_core.generations import V0_2
from a2a_core.protocol.v1 import operations as v1

LEGACY_PATH = "agent/authenticatedExtendedCard"


def check_offered(card: AgentCard) -> None:
    """Raises A2AClientUnsupportedError unless ``card`` (the public card) offers an extended card."""
    if not card.supports_authenticated_extended_card:
        raise A2AClientUnsupportedError(
            "the agent's card offers no extended card (1.0: capabilities.extendedAgentCard, "
            "0.x: supportsAuthenticatedExtendedCard)"
        )


async def fetch_extended(
    http: httpx.AsyncClient,
    interface: Interface,
    headers: Mapping[str, str],
    connect: Callable[[], Awaitable[tuple[Codec, Transport]]],
    jwks: str | Mapping[str, Any] | None,
) -> ReadCard:
    """The extended card from ``interface``, `verified` with ``jwks`` (``headers`` carry the
    credentials of a 0.2.5 GET; ``connect`` gives the codec and transport of the others).

    Raises the error the agent answers (a refused credential: A2AClientHTTPError 401 or 403),
    A2AClientHTTPError for an answer that is no card, A2AClientCardError when ``jwks`` verifies
    none of its signatures.
    """
    if interface.generation is V0_2:
        url = httpx.URL(interface.url).join(LEGACY_PATH)
        response = await get(http, url, headers)
        read = _read(json_body(response), str(url), response)
    else:
        codec, transport = await connect()
        document = await transport.call(codec[v1.GET_EXTENDED_CARD.name], None)
        read = _read(document, interface.url, None)  # a result: the answer was a 200
    return await verified(http, read, jwks)


def _read(document: object, url: str, response: httpx.Response | None) -> ReadCard:
    try:
        return read_card(document, url)
    except ValueError as error:  # pydantic's ValidationError among them
        message = f"{url} did not answer with an agent card ({error})"
        if response is not None:
            raise http_error(response, message) from error
        raise A2AClientHTTPError(message, status_code=200, url=url) from error
