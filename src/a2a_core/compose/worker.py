"""The worker, composed: what the worker function runs, dev's loop and pollers feed, and a test
drives. Nothing here imports the engine, a protocol codec or the web app: the worker function's
import is this module's, its backend's adapters and the user's agent."""

from __future__ import annotations

from a2a_core.compose.adapters import Adapters
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.turn.context_store import ContextStore
from a2a_core.core.turn.session_store import SessionStore
from a2a_core.core.turn.worker import Worker
from a2a_core.settings import Settings


def compose_worker(adapters: Adapters, agent: object) -> Worker:
    """The worker over one backend's adapters (`a2a_core.compose.backends.build_adapters`): what
    the worker function runs, and what dev's loop or pollers feed."""
    ledger = TaskLedger(adapters.store, history_cap=adapters.settings.max_history_length)
    return build_worker(
        adapters.settings,
        ledger,
        agent,
        context_store=adapters.context_store,
        session_store=adapters.session_store,
    )


def build_worker(
    settings: Settings,
    ledger: TaskLedger,
    agent: object,
    *,
    context_store: ContextStore | None = None,
    session_store: SessionStore | None = None,
) -> Worker:
    """The one way a worker is built (the worker function's, dev's, a test's). A turn is claimed
    at most `a2a_core.core.turn.worker.MAX_ATTEMPTS` times, which is also how often the run queue
    delivers an operation before its dead-letter queue takes it (`a2a_core.aws.resources`)."""
    from a2a_core.adapters.resolve import resolve_agent  # not on the API function's import path

    return Worker(
        ledger,
        resolve_agent(agent),
        lease_seconds=settings.lease_seconds,
        context_store=context_store,
        session_store=session_store,
        hold_after_seconds=settings.recovery_hold_after_seconds,
        max_turn_seconds=settings.max_turn_seconds,
    )
