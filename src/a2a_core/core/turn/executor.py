"""The agent port: what the worker runs for each turn of a task (`Agent`, or an async function).

An agent gets the turn's `TaskContext` (`a2a_core.core.turn.context`) and emits through it. This is
the kit's own, short way to write one; an a2a-sdk ``AgentExecutor`` is hosted unchanged by an
adapter (`a2a_core.adapters.a2a_sdk`), and `a2a_core.adapters.resolve` tells them apart.
"""

from __future__ import annotations

import inspect
import warnings
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import Any

from a2a_core.core.turn.content import Content, to_parts
from a2a_core.core.turn.context import HISTORY_WINDOW, TaskContext

# Importable from here as before the context got a module of its own.
__all__ = [
    "HISTORY_WINDOW",
    "Agent",
    "AgentExecutor",
    "AgentFunction",
    "Content",
    "FunctionAgent",
    "TaskContext",
    "as_agent",
    "as_executor",
    "to_parts",
]


class Agent(ABC):
    """Runs the agent for one turn. Subclass it, or pass a plain async function instead.

    `run` emits through the context and returns. If it returns without ending the turn the
    task is completed (with the returned content as the final message, if any); if it raises
    (anything, `asyncio.CancelledError` included), the task fails with a generic message (the
    exception is logged, never shown to clients). The errors the context raises are not the
    agent's failures, however it passes them on: `TaskCanceledError` (the task was canceled, or
    this run's turn was taken over) ends the run, `StoreUnavailableError` has the turn run again.
    `run` runs in an asyncio task of its own, which the worker cancels when the turn's time is
    up, when the task is canceled, or when its run was interrupted.
    """

    @abstractmethod
    async def run(self, ctx: TaskContext) -> Content | None: ...


AgentFunction = Callable[[TaskContext], Awaitable[Content | None]]


class FunctionAgent(Agent):
    """An async function ``agent(ctx)``, as an `Agent`."""

    def __init__(self, function: AgentFunction) -> None:
        self.function = function

    async def run(self, ctx: TaskContext) -> Content | None:
        result = self.function(ctx)
        if not inspect.isawaitable(result):
            raise TypeError(
                f"{self.function!r} returned {type(result).__name__}, not an awaitable: "
                "an agent function is `async def agent(ctx)`"
            )
        return await result


class AgentExecutor(ABC):
    """Deprecated: subclass `Agent` and name the method ``run(ctx)`` instead of ``execute(ctx)``.

    The old name of the kit's agent base class; it collided with a2a-sdk's ``AgentExecutor``
    (``execute(context, event_queue)``), which the kit now hosts as it is. Subclasses still run
    (`as_agent` wraps them) and warn once, when they are defined.
    """

    # What a subclass is told to do instead (a deprecated subclass of the kit's says its own).
    _instead = "subclass a2a_core.Agent and rename execute(ctx) to run(ctx)"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.__module__.startswith("a2a_core."):
            base = next(c for c in cls.__mro__[1:] if c.__module__.startswith("a2a_core."))
            warnings.warn(
                f"{cls.__qualname__}: a2a_core's {base.__name__} is deprecated; {cls._instead} "
                "(an a2a-sdk AgentExecutor is hosted as it is)",
                DeprecationWarning,
                stacklevel=2,
            )

    @abstractmethod
    async def execute(self, ctx: TaskContext) -> Content | None: ...


class _Executing(Agent):
    """A deprecated `AgentExecutor`, as an `Agent`."""

    def __init__(self, executor: AgentExecutor) -> None:
        self.executor = executor

    async def run(self, ctx: TaskContext) -> Content | None:
        return await self.executor.execute(ctx)


def as_agent(agent: Agent | AgentFunction | AgentExecutor) -> Agent:
    """``agent`` as the worker runs it: an `Agent` as it is, a function ``agent(ctx)`` wrapped.
    Raises `TypeError` for anything else (what else a user may name, such as an a2a-sdk
    executor, a class or a factory: `a2a_core.adapters.resolve.resolve_agent`)."""
    if isinstance(agent, Agent):
        return agent
    if isinstance(agent, AgentExecutor):
        return _Executing(agent)
    if callable(agent) and not isinstance(agent, type):
        return FunctionAgent(agent)
    raise TypeError(f"{agent!r} is neither an a2a_core.Agent nor an async function taking a TaskContext")


as_executor = as_agent  # the name it had before `Agent`
