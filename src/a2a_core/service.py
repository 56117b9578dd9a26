"""Composition: settings + adapters -> the engine, the JSON-RPC dispatcher, the card, the worker."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from a2a_core.agent_card import CardBuilder
from a2a_core.broker import Broker
from a2a_core.context_store import ContextStore
from a2a_core.engine import EngineConfig, TaskEngine
from a2a_core.executor import AgentExecutor, AgentFunction, as_executor
from a2a_core.jsonrpc import Dispatcher
from a2a_core.ledger import TaskLedger
from a2a_core.methods import a2a_methods
from a2a_core.settings import Settings, SettingsError
from a2a_core.store import TaskStore
from a2a_core.streaming import TaskStreams
from a2a_core.worker import Worker

if TYPE_CHECKING:
    from a2a_core.push.service import PushConfigService
    from a2a_core.push.signing import Signer
    from a2a_core.push_store import PushConfigStore


@dataclass(frozen=True)
class A2AService:
    settings: Settings
    ledger: TaskLedger
    engine: TaskEngine
    dispatcher: Dispatcher
    cards: CardBuilder
    # Where agents keep per-context state (`TaskContext.load_context`); None: agents cannot.
    context_store: ContextStore | None = None
    # Push notifications (None: off) and the keys `/.well-known/jwks.json` publishes.
    push: PushConfigService | None = None
    push_signers: tuple[Signer, ...] = ()

    def worker(self, agent: AgentExecutor | AgentFunction) -> Worker:
        return Worker(
            self.ledger,
            as_executor(agent),
            lease_seconds=self.settings.lease_seconds,
            context_store=self.context_store,
        )


def build_service(
    settings: Settings,
    *,
    store: TaskStore,
    broker: Broker,
    context_store: ContextStore | None = None,
    push_store: PushConfigStore | None = None,
    push_signers: Sequence[Signer] | None = None,
) -> A2AService:
    """``push_store`` and ``push_signers`` matter only with ``settings.push_enabled``; when not
    given they are built from the settings (see `a2a_core.push.wiring`)."""
    ledger = TaskLedger(store, history_cap=settings.max_history_length)
    push: PushConfigService | None = None
    signers: tuple[Signer, ...] = ()
    if settings.push_enabled:
        from a2a_core.push.wiring import build_push_config_service, default_signers

        push = build_push_config_service(settings, ledger, push_store)
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
        ),
        push=push,
    )
    streams = TaskStreams(engine) if settings.streaming_enabled else None
    cards = CardBuilder(settings, streaming=streams is not None, push_notifications=push is not None)
    dispatcher = Dispatcher(a2a_methods(engine, streams=streams, push=push))
    return A2AService(
        settings,
        ledger,
        engine,
        dispatcher,
        cards,
        context_store=context_store,
        push=push,
        push_signers=signers,
    )


def load_agent(spec: str) -> AgentExecutor:
    """Import ``package.module:attribute`` and return it as an executor."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise SettingsError(f"agent {spec!r} must look like 'package.module:attribute'")
    try:
        target = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise SettingsError(f"cannot load agent {spec!r}: {error}") from None
    return as_executor(target)
