"""Framework hooks: an executor made of conversions, like fasta2a's worker hooks.

`FrameworkExecutor` is a convenience on top of the executor API, not a second path through the
system: its `execute` converts the task's A2A messages to the framework's (`build_message_history`),
runs the framework (`run`), emits the artifacts built from its result (`build_artifacts`) through
the `TaskContext`, and returns the reply (`build_reply`), which the worker turns into a completed
task exactly as it does for any other executor.
"""

from __future__ import annotations

import uuid
from abc import abstractmethod
from typing import Any, Generic, TypeVar

from a2a_core.core.executor import AgentExecutor, Content, TaskContext, to_parts
from a2a_core.domain import Artifact, Message

MessageT = TypeVar("MessageT")
ResultT = TypeVar("ResultT")


class FrameworkExecutor(AgentExecutor, Generic[MessageT, ResultT]):
    """Hosts an agent framework whose messages are ``MessageT`` and whose runs give a ``ResultT``.

    `run` gets the `TaskContext` too, for anything the hooks do not cover: progress updates,
    streamed artifact chunks, the context store, or ending the turn itself (``ctx.ask``,
    ``ctx.fail``), in which case no artifacts are built and nothing is replied. Errors propagate
    as from any executor: the task fails with a generic message and the exception is logged.
    """

    @abstractmethod
    def build_message_history(self, history: list[Message]) -> list[MessageT]:
        """The task's recent messages (``ctx.history``: the last `HISTORY_WINDOW`, oldest first,
        the user message of this turn among them) in the framework's format. A framework that
        needs the whole conversation keeps it in the context store, as the pydantic-ai adapter
        does, or reads more with ``ctx.load_history``."""

    @abstractmethod
    async def run(self, history: list[MessageT], ctx: TaskContext) -> ResultT:
        """Run the framework on ``history`` for this turn."""

    @abstractmethod
    def build_artifacts(self, result: ResultT) -> list[Artifact]:
        """The artifacts ``result`` produced, each emitted whole (``lastChunk``); [] for none."""

    def build_reply(self, result: ResultT) -> Content | None:
        """The message the task completes with; by default none (the artifacts carry the result)."""
        return None

    async def execute(self, ctx: TaskContext) -> Content | None:
        result = await self.run(self.build_message_history(ctx.history), ctx)
        if ctx.ended:
            return None
        for artifact in self.build_artifacts(result):
            await ctx.emit_artifact(artifact, last_chunk=True)
        return self.build_reply(result)


def artifact(
    content: Content,
    *,
    name: str | None = None,
    description: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> Artifact:
    """An `Artifact` with a fresh id, for `FrameworkExecutor.build_artifacts`."""
    return Artifact(
        artifact_id=str(uuid.uuid4()),
        parts=to_parts(content),
        name=name,
        description=description,
        metadata=metadata,
    )
