"""Composition: settings + adapters -> the engine, the JSON-RPC dispatcher, the card, the worker."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from a2a_core.agent_card import CardBuilder
from a2a_core.broker import Broker
from a2a_core.engine import EngineConfig, TaskEngine
from a2a_core.executor import AgentExecutor, AgentFunction, as_executor
from a2a_core.jsonrpc import Dispatcher
from a2a_core.ledger import TaskLedger
from a2a_core.methods import a2a_methods
from a2a_core.settings import Settings, SettingsError
from a2a_core.store import TaskStore
from a2a_core.streaming import TaskStreams
from a2a_core.worker import Worker


@dataclass(frozen=True)
class A2AService:
    settings: Settings
    ledger: TaskLedger
    engine: TaskEngine
    dispatcher: Dispatcher
    cards: CardBuilder

    def worker(self, agent: AgentExecutor | AgentFunction) -> Worker:
        return Worker(self.ledger, as_executor(agent), lease_seconds=self.settings.lease_seconds)


def build_service(settings: Settings, *, store: TaskStore, broker: Broker) -> A2AService:
    ledger = TaskLedger(store)
    engine = TaskEngine(
        ledger,
        broker,
        EngineConfig(
            default_blocking=settings.default_blocking,
            blocking_timeout=settings.blocking_timeout_seconds,
            push_enabled=settings.push_enabled,
            input_modes=tuple(settings.default_input_modes),
            output_modes=tuple(settings.default_output_modes),
        ),
    )
    streams = TaskStreams(engine) if settings.streaming_enabled else None
    cards = CardBuilder(settings, streaming=streams is not None, push_notifications=False)
    return A2AService(settings, ledger, engine, Dispatcher(a2a_methods(engine, streams=streams)), cards)


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
