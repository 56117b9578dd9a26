"""Composition: settings and clients in, adapters and the assembled `AgentServer` out.

The one place (this package) that decides which adapter serves which port: here the server,
`compose.push` the push notification parts, `compose.aws` the AWS adapters (and the app's own
authenticator behind a function URL). `functions/*/handler.py` (one per
Lambda function) and `a2a-serverless dev` (`a2a_core.dev`) are thin roots over it: they read the
settings, build the AWS clients once, and call these. AWS adapters (and botocore) and the push
delivery code are imported by the builders that use them, so an in-memory API never loads them.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING

from a2a_core.compose.push import build_push_config_service, default_signers
from a2a_core.core.broker import Broker
from a2a_core.core.config import EngineConfig
from a2a_core.core.context_store import ContextStore
from a2a_core.core.engine import TaskEngine
from a2a_core.core.ledger import TaskLedger
from a2a_core.core.page_tokens import PageTokens
from a2a_core.core.push_store import InMemoryPushConfigStore, PushConfigStore
from a2a_core.core.store import TaskStore
from a2a_core.core.streams import TaskStreams
from a2a_core.protocol.bindings import build_protocols
from a2a_core.protocol.card import CardBuilder
from a2a_core.server import AgentServer
from a2a_core.settings import Settings, SettingsError

if TYPE_CHECKING:
    from a2a_core.push.service import PushConfigService
    from a2a_core.push.signing import Signer


def build_server(
    settings: Settings,
    *,
    store: TaskStore,
    broker: Broker,
    context_store: ContextStore | None = None,
    push_store: PushConfigStore | None = None,
    push_signers: Sequence[Signer] | None = None,
) -> AgentServer:
    """``push_store`` and ``push_signers`` matter only with ``settings.push_enabled``. Without a
    store the memory backend keeps configs in memory; any other backend must pass the one built
    with its other adapters. Without signers, the KMS keys the settings name sign."""
    ledger = TaskLedger(store, history_cap=settings.max_history_length)
    push: PushConfigService | None = None
    signers: tuple[Signer, ...] = ()
    if settings.push_enabled:
        push = build_push_config_service(settings, ledger, _push_store(settings, push_store))
        signers = tuple(push_signers) if push_signers is not None else default_signers(settings)
    engine = TaskEngine(
        ledger,
        broker,
        EngineConfig(
            default_blocking=settings.default_blocking,
            blocking_timeout=settings.blocking_timeout_seconds,
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
    streams = TaskStreams(engine) if settings.streaming_enabled else None
    cards = CardBuilder(settings, streaming=streams is not None, push_notifications=push is not None)
    # The 1.0 card is signed with the push key (its JWKS is published) when push is on.
    card_signer = signers[0] if signers else None
    protocols = build_protocols(
        settings, engine, streams=streams, push=push, cards=cards, card_signer=card_signer
    )
    parts = (settings, ledger, engine, protocols, cards)
    return AgentServer(*parts, context_store=context_store, push=push, push_signers=signers)


def page_token_secret(settings: Settings) -> bytes:
    """The key ListTasks page tokens are signed with: ``A2A_PAGE_TOKEN_SECRET`` when set (the
    stack sets it, so every instance and every deploy accepts each other's tokens). Otherwise the
    memory and local backends, whose tasks live in this process, use a key of the process; the
    aws backend derives one from its table, which its instances share, but anyone who knows the
    table name could sign tokens (they would still only page through their own tasks)."""
    if settings.page_token_secret is not None:
        return settings.page_token_secret.get_secret_value().encode()
    if settings.backend == "aws" and settings.table_name:
        return hashlib.sha256(f"a2a-serverless:{settings.aws_region}:{settings.table_name}".encode()).digest()
    return secrets.token_bytes(32)


def _push_store(settings: Settings, store: PushConfigStore | None) -> PushConfigStore:
    if store is not None:
        return store
    if settings.backend == "memory":
        return InMemoryPushConfigStore()
    raise SettingsError(
        f"backend {settings.backend!r} with push notifications on needs the push config store built "
        "with the other adapters: build_server(..., push_store=adapters.push_store), where adapters "
        "= a2a_core.compose.aws.build_aws_adapters(settings, clients)"
    )
