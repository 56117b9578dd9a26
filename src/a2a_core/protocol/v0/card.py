"""The 0.2.5 card as served: ``/.well-known/agent.json`` for 0.2.x clients, and the extended one
0.2.5 fetches at ``GET /agent/authenticatedExtendedCard`` (0.3 and 1.0 callers get the 1.0
document, `a2a_core.protocol.v1.card_builder`, which carries 0.3's fields too). The agent they
describe is `a2a_core.protocol.card.CardBuilder`'s; a 1.x client (a2a-sdk 1.3) cannot use a card
that says 0.2.5 at all, so it is served only at the path 0.2.x clients read.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from a2a_core.domain import AgentCard, to_wire
from a2a_core.protocol.card import CardBuilder


class CardDocuments:
    """The 0.2.5 card documents, each built once per URL (a handful: one per host name the
    server is reached by)."""

    def __init__(self, builder: CardBuilder) -> None:
        self.builder = builder
        self._cache: dict[str, bytes] = {}
        self._extended_cache: dict[str, bytes] = {}

    def card_json(self, url: str) -> bytes:
        return _cached(self._cache, url, lambda: self.builder.card(url))

    def extended_card_json(self, url: str) -> bytes:
        """The card for authenticated callers: the public one plus ``extended_skills``."""
        extra = self.builder.settings.extended_skills
        return _cached(self._extended_cache, url, lambda: self.builder.card(url, extra_skills=extra))


def _cached(cache: dict[str, bytes], key: str, build: Callable[[], AgentCard]) -> bytes:
    body = cache.get(key)
    if body is None:
        body = json.dumps(to_wire(build())).encode()
        if len(cache) < 32:
            cache[key] = body
    return body
