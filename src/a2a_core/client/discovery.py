"""Finding an agent's card: at the URL given, or at its well-known paths; verified when asked."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import httpx

from a2a_core.client.cards import ReadCard, read_card, verify_signatures
from a2a_core.client.errors import A2AClientCardError, A2AClientConnectionError
from a2a_core.client.wire import describe, http_error, json_body
from a2a_core.generations import V0_2, generation

# The 1.x/0.3 card first; 0.2.5 agents publish only the second.
CARD_PATHS = (".well-known/agent-card.json", ".well-known/agent.json")


async def public_card(
    http: httpx.AsyncClient,
    base_url: str,
    headers: Mapping[str, str],
    *,
    version: str | None,
    jwks: str | Mapping[str, Any] | None,
) -> ReadCard:
    """The card `fetch_card` finds (the 0.2.5 one first when ``version`` is 0.2.5), `verified`."""
    legacy = version is not None and generation(version) is V0_2
    return await verified(http, await fetch_card(http, base_url, headers, legacy_first=legacy), jwks)


async def fetch_card(
    http: httpx.AsyncClient, base_url: str, headers: Mapping[str, str], *, legacy_first: bool = False
) -> ReadCard:
    """The card at ``base_url`` if it names a JSON file, else the first well-known path that
    is not a 404 (``legacy_first``: the 0.2.5 one first, for a caller that wants 0.2.5 from an
    agent that publishes both). Raises A2AClientHTTPError for an answer that is no card."""
    base = httpx.URL(base_url)
    if base.path.endswith(".json"):
        candidates = [base]
    else:
        root = base if base.path.endswith("/") else base.copy_with(path=base.path + "/")
        paths = CARD_PATHS[::-1] if legacy_first else CARD_PATHS
        candidates = [root.join(path) for path in paths]
    for url in candidates[:-1]:
        response = await get(http, url, headers)
        if response.status_code != 404:
            break
    else:
        url = candidates[-1]
        response = await get(http, url, headers)
    try:
        return read_card(json_body(response), str(url))
    except ValueError as error:
        raise http_error(response, f"{url} did not answer with an agent card ({error})") from error


async def verified(http: httpx.AsyncClient, card: ReadCard, jwks: str | Mapping[str, Any] | None) -> ReadCard:
    """``card`` with the ``signature`` that `verify` finds, or as it is without ``jwks``."""
    if jwks is None:
        return card
    return dataclasses.replace(card, signature=await verify(http, card, jwks))


async def verify(http: httpx.AsyncClient, card: ReadCard, jwks: str | Mapping[str, Any]) -> dict[str, Any]:
    """The protected header of the card's signature that ``jwks`` (or the JWKS at that URL)
    verifies; A2AClientCardError when none does. The URL is fetched without the caller's
    headers: those credentials are for the agent, and the key set may live elsewhere."""
    if isinstance(jwks, str):
        jwks = json_body(await get(http, jwks, {}))
    if not isinstance(jwks, Mapping):
        raise A2AClientCardError("the key set to verify the card with is not a JWKS (a JSON object)")
    try:
        return verify_signatures(card.document, jwks)
    except ValueError as error:
        raise A2AClientCardError(str(error)) from None


async def get(http: httpx.AsyncClient, url: httpx.URL | str, headers: Mapping[str, str]) -> httpx.Response:
    try:
        return await http.get(url, headers=headers)
    except httpx.TransportError as error:
        raise A2AClientConnectionError(f"cannot reach {url}: {describe(error)}") from error
