"""`AgentServer`: one agent's server, assembled (`a2a_core.compose.build_server` builds it), and
`build_worker`, the worker that runs the agent against it.

What the HTTP app (`a2a_core.web.app.create_app`) serves and what a worker runs against: the ledger
over the task store, the engine, every protocol generation's surface (`protocols`: the JSON-RPC
dispatcher, the 1.0 HTTP+JSON binding, the 1.0 card), the cards, and push notifications.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from a2a_core.core.engine import TaskEngine
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.turn.context_store import ContextStore
from a2a_core.core.turn.session_store import SessionStore
from a2a_core.core.turn.worker import Worker
from a2a_core.protocol.bindings import Protocols
from a2a_core.protocol.card import CardBuilder
from a2a_core.protocol.jsonrpc import Dispatcher
from a2a_core.settings import Settings

if TYPE_CHECKING:
    from a2a_core.push.service import PushConfigService
    from a2a_core.push.signing import Signer


@dataclass(frozen=True)
class AgentServer:
    settings: Settings
    ledger: TaskLedger
    engine: TaskEngine
    protocols: Protocols
    cards: CardBuilder
    # Where agents keep per-context state (`TaskContext.load_context`); None: agents cannot.
    context_store: ContextStore | None = None
    # Where frameworks keep their conversations (`a2a_core.core.turn.session_scope`); None: nowhere.
    session_store: SessionStore | None = None
    # Push notifications (None: off) and the keys `/.well-known/jwks.json` publishes.
    push: PushConfigService | None = None
    push_signers: tuple[Signer, ...] = ()

    @property
    def dispatcher(self) -> Dispatcher:
        return self.protocols.dispatcher

    def worker(self, agent: object) -> Worker:
        """A worker running ``agent`` over this server's tasks, in this process (any agent
        `a2a_core.adapters.resolve.resolve_agent` takes: a function, an `Agent`, an a2a-sdk
        executor, either's class, or a factory)."""
        return build_worker(
            self.settings,
            self.ledger,
            agent,
            context_store=self.context_store,
            session_store=self.session_store,
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
