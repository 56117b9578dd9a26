"""Framework hooks: an agent made of conversions, like fasta2a's worker hooks.

`FrameworkAgent` is a convenience on top of the agent API, not a second path through the system:
its `run` converts the task's A2A messages to the framework's (`build_message_history`), runs the
framework (`invoke`), emits the artifacts built from its result (`build_artifacts`) through the
`TaskContext`, and returns the reply (`build_reply`), which the worker turns into a completed
task exactly as it does for any other agent.
"""

from __future__ import annotations

import uuid
from abc import abstractmethod
from typing import Any, Generic, TypeVar

from a2a_core.core.turn.executor import Agent, AgentExecutor, Content, TaskContext, to_parts
from a2a_core.domain import Artifact, Message

MessageT = TypeVar("MessageT")
ResultT = TypeVar("ResultT")


class FrameworkAgent(Agent, Generic[MessageT, ResultT]):
    """Hosts an agent framework whose messages are ``MessageT`` and whose runs give a ``ResultT``.

    `invoke` gets the `TaskContext` too, for anything the hooks do not cover: progress updates,
    streamed artifact chunks, the context store, or ending the turn itself (``ctx.ask``,
    ``ctx.fail``), in which case no artifacts are built and nothing is replied. Errors propagate
    as from any agent: the task fails with a generic message and the exception is logged.
    """

    @abstractmethod
    def build_message_history(self, history: list[Message]) -> list[MessageT]:
        """The task's recent messages (``ctx.history``: the last `HISTORY_WINDOW`, oldest first,
        the user message of this turn among them) in the framework's format. A framework that
        needs the whole conversation keeps it in the context store, as the pydantic-ai adapter
        does, or reads more with ``ctx.load_history``."""

    @abstractmethod
    async def invoke(self, history: list[MessageT], ctx: TaskContext) -> ResultT:
        """Run the framework on ``history`` for this turn."""

    @abstractmethod
    def build_artifacts(self, result: ResultT) -> list[Artifact]:
        """The artifacts ``result`` produced, each emitted whole (``lastChunk``); [] for none."""

    def build_reply(self, result: ResultT) -> Content | None:
        """The message the task completes with; by default none (the artifacts carry the result)."""
        return None

    async def run(self, ctx: TaskContext) -> Content | None:
        result = await self.invoke(self.build_message_history(ctx.history), ctx)
        return await finish(self, result, ctx)


async def finish(
    hooks: FrameworkAgent[Any, ResultT] | FrameworkExecutor[Any, ResultT], result: ResultT, ctx: TaskContext
) -> Content | None:
    """Emit ``result``'s artifacts and return its reply, unless the framework ended the turn."""
    if ctx.ended:
        return None
    for built in hooks.build_artifacts(result):
        await ctx.emit_artifact(built, last_chunk=True)
    return hooks.build_reply(result)


class FrameworkExecutor(AgentExecutor, Generic[MessageT, ResultT]):
    """Deprecated: subclass `FrameworkAgent` and rename the ``run(history, ctx)`` hook to
    ``invoke(history, ctx)``. Subclasses still run (and warn once, when they are defined)."""

    _instead = (
        "subclass a2a_core.FrameworkAgent and rename its run(history, ctx) hook to invoke(history, ctx)"
    )

    @abstractmethod
    def build_message_history(self, history: list[Message]) -> list[MessageT]: ...

    @abstractmethod
    async def run(self, history: list[MessageT], ctx: TaskContext) -> ResultT: ...

    @abstractmethod
    def build_artifacts(self, result: ResultT) -> list[Artifact]: ...

    def build_reply(self, result: ResultT) -> Content | None:
        return None

    async def execute(self, ctx: TaskContext) -> Content | None:
        result = await self.run(self.build_message_history(ctx.history), ctx)
        return await finish(self, result, ctx)


def artifact(
    content: Content,
    *,
    name: str | None = None,
    description: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> Artifact:
    """An `Artifact` with a fresh id, for `FrameworkAgent.build_artifacts`."""
    return Artifact(
        artifact_id=str(uuid.uuid4()),
        parts=to_parts(content),
        name=name,
        description=description,
        metadata=metadata,
    )
