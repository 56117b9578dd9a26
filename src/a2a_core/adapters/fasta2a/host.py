"""`WorkerAgent`: one turn of a task is one ``run_task(params)`` of the fasta2a worker (see the
package docstring)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import typing
from typing import Any, cast

from fasta2a.schema import TaskSendParams
from fasta2a.worker import Worker

from a2a_core.adapters.fasta2a.convert import to_fasta2a_message
from a2a_core.adapters.fasta2a.turn import HostedTurn, entered
from a2a_core.adapters.fasta2a.turn_broker import TurnBroker
from a2a_core.adapters.fasta2a.turn_storage import TurnStorage
from a2a_core.core.errors import TaskCanceledError, TurnLostError
from a2a_core.core.turn.context import TaskContext
from a2a_core.core.turn.executor import Agent, Content

logger = logging.getLogger(__name__)

# How long a canceled task's worker gets for its cancel_task(), and then to stop once cancelled.
CANCEL_SECONDS = 1.0
STOP_SECONDS = 0.5


class WorkerAgent(Agent):
    def __init__(self, worker: Worker[Any]) -> None:
        """Host ``worker``, a fasta2a ``Worker``: its ``storage`` and ``broker`` become the kit's
        (`TurnStorage`, `TurnBroker`), whatever it was built with."""
        worker.storage = TurnStorage(context_type_of(type(worker)))
        worker.broker = TurnBroker()
        self.worker = worker

    @classmethod
    def of_class(cls, worker_class: type[Worker[Any]], label: str) -> WorkerAgent:
        """Host a worker made as ``worker_class(broker=..., storage=...)``: its fields besides those
        two need defaults."""
        try:
            worker = worker_class(broker=TurnBroker(), storage=TurnStorage(context_type_of(worker_class)))
        except TypeError as error:
            raise TypeError(
                f"{label} cannot be made with only a broker and a storage ({error}): name an instance "
                "of it, or a function without arguments that makes one"
            ) from None
        return cls(worker)

    async def run(self, ctx: TaskContext) -> Content | None:
        history = await ctx.load_history() if ctx.turn > 1 else ctx.history
        turn = HostedTurn(ctx, ctx.task.model_copy(update={"history": history}))
        with entered(turn):
            running = asyncio.create_task(self.worker.run_task(params_of(ctx)))
        interrupted = asyncio.create_task(ctx.attempt.wait_interrupted())
        try:
            await asyncio.wait({running, interrupted}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            running.cancel()
            raise
        finally:
            interrupted.cancel()
        if _canceled(ctx):
            with entered(turn):
                await self._cancel(ctx)
        if not running.done():
            await _stop(running, ctx)
        elif ctx.interruption is None:
            running.result()  # what run_task raised fails the task (unless it ended it already)
        return None

    async def _cancel(self, ctx: TaskContext) -> None:
        """Tell the worker its task was canceled (the task is canceled whatever it does)."""
        try:
            async with asyncio.timeout(CANCEL_SECONDS):
                await self.worker.cancel_task({"id": ctx.task_id})
        except Exception as error:  # noqa: BLE001 - a worker's cancel_task may raise anything
            logger.info("task %s: the worker's cancel_task() raised %r", ctx.task_id, error)


def params_of(ctx: TaskContext) -> TaskSendParams:
    """The ``TaskSendParams`` fasta2a's TaskManager would hand its broker for this turn."""
    params: dict[str, Any] = {
        "id": ctx.task_id,
        "context_id": ctx.context_id,
        "message": to_fasta2a_message(ctx.message),
    }
    if ctx.accepted_output_modes:
        params["accepted_output_modes"] = list(ctx.accepted_output_modes)
    if ctx.metadata:
        params["metadata"] = dict(ctx.metadata)
    return cast("TaskSendParams", params)


def context_type_of(worker_class: type[Any]) -> Any:
    """The ``ContextT`` a worker class declares (``Worker[list[ModelMessage]]``), or `Any`."""
    for cls in worker_class.__mro__:
        for base in getattr(cls, "__orig_bases__", ()):
            origin = typing.get_origin(base)
            if isinstance(origin, type) and issubclass(origin, Worker):
                (argument,) = typing.get_args(base) or (Any,)
                return Any if isinstance(argument, typing.TypeVar) else argument
    return Any


def _canceled(ctx: TaskContext) -> bool:
    interruption = ctx.interruption
    return isinstance(interruption, TaskCanceledError) and not isinstance(interruption, TurnLostError)


async def _stop(running: asyncio.Task[None], ctx: TaskContext) -> None:
    """Cancel ``run_task`` (its task canceled, or its turn lost)."""
    running.cancel()
    done, _ = await asyncio.wait({running}, timeout=STOP_SECONDS)
    if not done:
        logger.warning("task %s: the worker's run_task ignored its cancellation", ctx.task_id)
    else:
        with contextlib.suppress(BaseException):
            running.result()
