"""Every protocol generation's surface over one engine: the JSON-RPC dispatcher (0.2.5 / 0.3 and
1.0 on the same path, chosen by ``A2A-Version``), the 1.0 HTTP+JSON binding, and each
generation's card documents.

The 1.0 modules are imported on the first 1.0 request, not at start-up: a 0.x request (and a
Lambda cold start serving one) pays nothing for them.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from a2a_core.core.caller import Caller
from a2a_core.core.engine import TaskEngine
from a2a_core.protocol.card import CardBuilder
from a2a_core.protocol.jsonrpc import Binding, Dispatcher, Method
from a2a_core.protocol.v0 import card as v0_card
from a2a_core.protocol.v0.method_names import MethodName
from a2a_core.protocol.v0.methods import v0_binding, v0_methods
from a2a_core.protocol.versions import Version
from a2a_core.settings import Settings

if TYPE_CHECKING:
    from a2a_core.core.streams import TaskStreams
    from a2a_core.protocol.v1.card_builder import CardDocuments
    from a2a_core.protocol.v1.rest import RestBinding
    from a2a_core.push.service import PushConfigService
    from a2a_core.push.signing import Signer

_V0_METHODS = frozenset(MethodName)


def _v0_hint(name: str) -> str | None:
    if name not in _V0_METHODS:
        return None
    return f"{name} is an A2A 0.2.5/0.3 method: send it without A2A-Version (or with A2A-Version: 0.3)"


def _v1_hint(name: str) -> str | None:
    # Read on an unknown 0.x method only, so a 0.x request still loads nothing of 1.0.
    from a2a_core.protocol.v1.operations import OPERATIONS

    return f"{name} is an A2A 1.0 method: send the header A2A-Version: 1.0" if name in OPERATIONS else None


@dataclass(frozen=True)
class Protocols:
    dispatcher: Dispatcher
    # The 0.2.5 card documents (`/.well-known/agent.json`, the extended card's GET).
    cards_v0: v0_card.CardDocuments
    _rest: Callable[[], RestBinding]
    _cards_v1: Callable[[], CardDocuments]

    @property
    def rest(self) -> RestBinding:
        return self._rest()

    @property
    def cards_v1(self) -> CardDocuments:
        """The 1.0 card documents (public and extended), signed when push signing is on."""
        return self._cards_v1()


def build_protocols(
    settings: Settings,
    engine: TaskEngine,
    *,
    streams: TaskStreams | None,
    push: PushConfigService | None,
    cards: CardBuilder,
    card_signer: Signer | None = None,
) -> Protocols:
    @functools.cache
    def documents() -> CardDocuments:
        from a2a_core.protocol.v1.card_builder import CardDocuments

        return CardDocuments(cards, signer=card_signer)

    extended: Callable[[Caller], Awaitable[bytes]] | None = None
    if cards.extended:

        async def extended_card(caller: Caller) -> bytes:
            return await documents().extended_card_json(caller.base_url)

        extended = extended_card

    @functools.cache
    def v1_methods() -> dict[str, Method]:
        from a2a_core.protocol.v1.methods import v1_methods as build

        return build(engine, streams=streams, push=push, extended_card=extended, tenant=settings.tenant)

    def v1() -> Binding:
        from a2a_core.protocol.v1.methods import v1_binding

        return v1_binding(v1_methods(), _v0_hint)

    @functools.cache
    def v1_1_methods() -> dict[str, Method]:
        from a2a_core.protocol.v1.methods import draft_methods

        return draft_methods(v1_methods())

    def v1_1() -> Binding:
        from a2a_core.protocol.v1.methods import v1_binding

        return v1_binding(v1_1_methods(), _v0_hint, Version.V1_1)

    def v0() -> Binding:
        methods = v0_methods(
            engine,
            streams=streams,
            push=push,
            extended_card=extended,
            fasta2a_compat=settings.fasta2a_compat,
            tenant=settings.tenant,
        )
        return v0_binding(methods, _v1_hint)

    @functools.cache
    def rest() -> RestBinding:
        from a2a_core.protocol.v1.rest import RestBinding

        return RestBinding({Version.V1_0: v1_methods(), Version.V1_1: v1_1_methods()})

    dispatcher = Dispatcher({Version.V0_3: v0, Version.V1_0: v1, Version.V1_1: v1_1})
    return Protocols(dispatcher, v0_card.CardDocuments(cards), rest, documents)
