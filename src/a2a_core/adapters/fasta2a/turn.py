"""The turn a hosted fasta2a worker is running, as its `Storage` and `Broker` see it.

A fasta2a worker keeps one ``storage`` and one ``broker`` for all its tasks, while the kit may
run several turns in one process at once: `WorkerAgent` enters each turn around its
``run_task`` (and the tasks that starts), and the storage and broker find it here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

from a2a_core.core.turn.context import TaskContext
from a2a_core.domain import Artifact, Message, Task, TaskState, TaskStatus

_current: ContextVar[HostedTurn | None] = ContextVar("a2a_fasta2a_turn", default=None)


@dataclass
class HostedTurn:
    """One turn of a task as the worker's storage shows it: the task as the turn found it, then
    what the worker wrote through `Storage.update_task`."""

    ctx: TaskContext
    task: Task
    # What the worker last wrote; None until its first write: the task is then "submitted" to it,
    # as fasta2a's TaskManager hands a task to its worker.
    state: TaskState | None = None
    streamed: set[str] = field(default_factory=set)  # artifact ids the worker streamed chunks of

    def record(self, state: TaskState, artifacts: list[Artifact], messages: list[Message]) -> None:
        """Note a write of the worker's in the task it reads back."""
        kept = {artifact.artifact_id: artifact for artifact in self.task.artifacts or []}
        kept.update((artifact.artifact_id, artifact) for artifact in artifacts)
        self.task = self.task.model_copy(
            update={
                "status": TaskStatus(state=state, message=messages[-1] if messages else None),
                "history": [*(self.task.history or []), *messages],
                "artifacts": list(kept.values()),
            }
        )
        self.state = state


def current() -> HostedTurn:
    """The turn running in this asyncio task; `RuntimeError` outside one."""
    turn = _current.get()
    if turn is None:
        raise RuntimeError(
            "this fasta2a Storage/Broker serves the turns of a worker the kit hosts (a2a-serverless "
            "dev, the worker Lambda, a2a_core.testing); for a FastA2A app of your own use "
            "a2a_core.adapters.fasta2a.KitStorage and KitBroker"
        )
    return turn


@contextlib.contextmanager
def entered(turn: HostedTurn) -> Iterator[None]:
    """Run the block, and the tasks it starts, as ``turn``."""
    token = _current.set(turn)
    try:
        yield
    finally:
        _current.reset(token)
