"""The server, composed: the engine, the protocol bindings, the cards and push over one backend's
ports, assembled as the `AgentServer` every app serves (`a2a_core.compose.app.compose_app`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from a2a_core.compose.adapters import Adapters
from a2a_core.compose.backends import build_adapters
from a2a_core.compose.push import build_push_config_service, default_signers
from a2a_core.core.broker import Broker
from a2a_core.core.config import EngineConfig
from a2a_core.core.engine import TaskEngine
from a2a_core.core.listing.page_tokens import PageTokens
from a2a_core.core.push_store import PushConfigStore
from a2a_core.core.streams import REPLY_WAIT_SECONDS, TaskStreams
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.store import TaskStore
from a2a_core.core.turn.context_store import ContextStore
from a2a_core.core.turn.session_store import SessionStore
from a2a_core.protocol.bindings import build_protocols
from a2a_core.protocol.card import CardBuilder
from a2a_core.server import AgentServer
from a2a_core.settings import Settings

if TYPE_CHECKING:
    from a2a_core.push.service import PushConfigService
    from a2a_core.push.signing import Signer


def compose_server(adapters: Adapters, *, push_signers: Sequence[Signer] | None = None) -> AgentServer:
    """The server over one backend's adapters (`a2a_core.compose.backends.build_adapters`): what
    every composition root serves. Its worker is `a2a_core.compose.worker.compose_worker`'s (the
    API function has none)."""
    return build_server(
        adapters.settings,
        store=adapters.store,
        broker=adapters.broker,
        push_store=adapters.push_store if adapters.settings.push_enabled else None,
        push_signers=push_signers,
    )


def build_server(
    settings: Settings,
    *,
    store: TaskStore,
    broker: Broker,
    context_store: ContextStore | None = None,
    session_store: SessionStore | None = None,
    push_store: PushConfigStore | None = None,
    push_signers: Sequence[Signer] | None = None,
) -> AgentServer:
    """The server over these ports (a test's, or a wrapped store). ``push_store`` and
    ``push_signers`` matter only with ``settings.push_enabled``: without a store, the backend's
    (`build_adapters`); without signers, the KMS keys the settings name."""
    backend = build_adapters(settings)  # builds nothing until asked (push store, page token key)
    ledger = TaskLedger(store, history_cap=settings.max_history_length)
    push: PushConfigService | None = None
    signers: tuple[Signer, ...] = ()
    if settings.push_enabled:
        configs = push_store if push_store is not None else backend.push_store
        push = build_push_config_service(settings, ledger, configs)
        signers = tuple(push_signers) if push_signers is not None else default_signers(settings)
    engine = TaskEngine(
        ledger,
        broker,
        EngineConfig(
            default_blocking=settings.default_blocking,
            blocking_timeout=settings.blocking_timeout_seconds,
            long_poll_timeout=settings.long_poll_seconds,
            input_modes=tuple(settings.default_input_modes),
            output_modes=tuple(settings.default_output_modes),
            max_parts_per_message=settings.max_parts_per_message,
            max_text_part_chars=settings.max_text_part_chars,
            max_history_length=settings.max_history_length,
            file_uri_schemes=tuple(settings.file_uri_schemes),
        ),
        push=push,
        page_tokens=PageTokens(page_token_secret(settings)),
    )
    # A stream held for a possible message answer must open well within a buffered stream's
    # budget (one response body), or its buffered answer would hold nothing at all.
    reply_wait = min(REPLY_WAIT_SECONDS, settings.stream_buffer_seconds / 2)
    streams = TaskStreams(engine, reply_wait=reply_wait) if settings.streaming_enabled else None
    cards = CardBuilder(settings, streaming=streams is not None, push_notifications=push is not None)
    # The 1.0 card is signed with the push key (its JWKS is published) when push is on.
    card_signer = signers[0] if signers else None
    protocols = build_protocols(
        settings, engine, streams=streams, push=push, cards=cards, card_signer=card_signer
    )
    parts = (settings, ledger, engine, protocols, cards)
    return AgentServer(
        *parts, context_store=context_store, session_store=session_store, push=push, push_signers=signers
    )


def page_token_secret(settings: Settings) -> bytes:
    """The key ListTasks page tokens are signed with: ``A2A_PAGE_TOKEN_SECRET`` when set (the
    stack sets it, so every instance and every deploy accepts each other's tokens), else the
    backend's (`Adapters.page_token_key`): a key of the process where tasks live in it, one
    derived from the table for the aws backend."""
    if settings.page_token_secret is not None:
        return settings.page_token_secret.get_secret_value().encode()
    return build_adapters(settings).page_token_key()
