"""`AgentHarness`: an agent behind the real engine, worker and task log, in memory, for tests.

Nothing is mocked: messages go through `TaskEngine` as a server's protocol layer hands them over,
the agent runs in a real `Worker` (claims, leases, conditional writes, cancellation), streams
read the task log through `TaskStreams`, and contexts live in an in-memory context store. Only
the transport is left out (no HTTP, no protocol codec), so a test is fast and needs no server.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from a2a_core.adapters.resolve import resolve_agent
from a2a_core.compose import build_server
from a2a_core.core.broker import InMemoryBroker, RunOperation
from a2a_core.core.caller import Caller
from a2a_core.core.errors import TaskCanceledError
from a2a_core.core.requests import ListTasksQuery, SendRequest, TaskQuery, TaskRef
from a2a_core.core.streams import TaskStreams
from a2a_core.core.tasklog.lifecycle import RETURN_STATES
from a2a_core.core.tasklog.records import reply_of
from a2a_core.core.tasklog.store import InMemoryTaskStore
from a2a_core.core.turn.content import Content, to_parts
from a2a_core.core.turn.context import TaskContext
from a2a_core.core.turn.context_store import InMemoryContextStore
from a2a_core.core.turn.executor import Agent
from a2a_core.core.turn.session_store import InMemorySessionStore
from a2a_core.core.turn.worker import RunInProgressError
from a2a_core.discovery import AgentRef, find_agent, import_agent
from a2a_core.domain import Message, Role, TaskState
from a2a_core.server import AgentServer
from a2a_core.settings import Settings
from a2a_core.testing.results import Event, StreamedTurn, TaskResult

logger = logging.getLogger(__name__)

TaskLike = TaskResult | str  # a task, or its id


class AgentHarness:
    def __init__(
        self,
        agent: object,
        *,
        settings: Settings | None = None,
        raise_agent_errors: bool = True,
        timeout: float = 30.0,
        fresh_worker: bool = False,
    ) -> None:
        """Serve ``agent`` (an async function, an `Agent`, an a2a-sdk ``AgentExecutor``, either's
        class, or a factory: what ``--agent`` may name) in memory; use it as
        ``async with AgentHarness(agent) as a:`` (or `run_agent`).

        ``fresh_worker``: each turn runs on the agent imported anew from its module, as on a Lambda
        worker that just started (`a2a_core.adapters.fresh`), so what the agent keeps in memory
        between turns is lost as it would be when deployed. The agent is then named by what a
        module defines at its top level (or as ``"package.module:attribute"``), not a lambda.

        ``raise_agent_errors``: an exception the agent raises (or content it cannot return) is
        raised again by the call that waited for the turn, with the agent's traceback, as
        Starlette's TestClient does for an app. False: the task fails as a client sees it
        (``state == "failed"`` with the server's generic message) and ``TaskResult.error``
        holds the exception. ``timeout``: how long a call waits for a turn to end (seconds).
        ``settings``: the server's (history cap, part limits, card); push notifications cannot
        be tested here (run ``a2a-serverless dev`` for that).
        """
        settings = settings or Settings(allow_unauthenticated=True)
        if settings.push_enabled:
            raise ValueError("the harness delivers no push notifications: test them with a2a-serverless dev")
        self.raise_agent_errors = raise_agent_errors
        self.timeout = timeout
        self.context_store = InMemoryContextStore()
        self.session_store = InMemorySessionStore()  # frameworks' conversations
        self._broker = InMemoryBroker()
        self._errors: dict[str, BaseException] = {}
        self.server: AgentServer = build_server(
            settings,
            store=InMemoryTaskStore(),
            broker=self._broker,
            context_store=self.context_store,
            session_store=self.session_store,
        )
        served = _fresh(agent) if fresh_worker else resolve_agent(agent)
        self._worker = self.server.worker(_Recording(served, self._errors))
        self._streams = TaskStreams(self.server.engine)
        self._caller = Caller()
        self._runs: dict[str, asyncio.Task[None]] = {}  # task id -> its turn running in the worker
        self._loop: asyncio.Task[None] | None = None

    async def __aenter__(self) -> AgentHarness:
        self._loop = asyncio.create_task(self._work(), name="agent harness worker")
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        running = [task for task in (self._loop, *self._runs.values()) if task is not None]
        for task in running:  # an agent still running when the test ends is stopped, not awaited
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        self._loop = None

    # --- what a client does ------------------------------------------------------------------

    async def send(
        self,
        content: Content | Message,
        *,
        task_id: str | None = None,
        context_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        wait: bool = True,
    ) -> TaskResult:
        """Send a message (text, a dict as a data part, parts, or a `Message`): a new task, or
        the task ``task_id`` names. Returns the task once the agent's turn has ended (completed,
        failed, input-required, ...); with ``wait=False`` at once, while the agent runs."""
        request = SendRequest(self._message(content, task_id, context_id), blocking=False, metadata=metadata)
        submission = await self.server.engine.submit(request, self._caller)
        task = submission.operation.task_id
        if not wait:
            return await self.get(task)
        result = await self.wait(task)
        view = await self.server.ledger.view(task, history_length=0)
        reply = reply_of(view.head, submission.operation.run_id)
        return result if reply is None else TaskResult(result.task, result.error, reply=reply)

    async def reply(
        self,
        task: TaskLike,
        content: Content | Message,
        *,
        metadata: dict[str, Any] | None = None,
        wait: bool = True,
    ) -> TaskResult:
        """Answer a task waiting for input (``input-required``): its next turn, as `send` runs it."""
        return await self.send(content, task_id=_id(task), metadata=metadata, wait=wait)

    async def stream(
        self,
        content: Content | Message,
        *,
        task_id: str | None = None,
        context_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> StreamedTurn:
        """Send as a streaming client does: every event of the turn, in order, then the task (a
        turn the agent answered with a message alone streams that `Message` only)."""
        request = SendRequest(self._message(content, task_id, context_id), metadata=metadata)
        submission, items = await self._streams.open(request, self._caller)
        events = [event async for event in self._events(items)]
        task = await self.wait(submission.operation.task_id)
        reply = events[0] if isinstance(events[0], Message) else None
        return StreamedTurn(events, task if reply is None else TaskResult(task.task, task.error, reply=reply))

    async def subscribe(self, task: TaskLike) -> AsyncIterator[Event]:
        """The task's events from now until it ends, a wait for input included: the task first,
        then its updates (e.g. to cancel it halfway: ``send(..., wait=False)``, then subscribe)."""
        items = await self._streams.subscribe(TaskRef(_id(task)), self._caller)
        async for event in self._events(items):
            yield event

    async def get(self, task: TaskLike, *, history_length: int | None = None) -> TaskResult:
        """The task as it is now (every message of its history unless ``history_length``)."""
        found = await self.server.engine.get_task(TaskQuery(_id(task), history_length), self._caller)
        return TaskResult(found)

    async def cancel(self, task: TaskLike) -> TaskResult:
        """Cancel the task; the agent's next emit raises `TaskCanceledError` (``wait`` returns
        once the agent has stopped)."""
        return TaskResult(await self.server.engine.cancel_task(TaskRef(_id(task)), self._caller))

    async def tasks(
        self, *, context_id: str | None = None, state: TaskState | str | None = None
    ) -> list[TaskResult]:
        """Every task sent so far (of ``context_id``, in ``state``), newest first."""
        query = ListTasksQuery(
            context_id=context_id, state=TaskState(state) if state else None, page_size=100
        )
        page = await self.server.engine.list_tasks(query, self._caller)
        return [TaskResult(task) for task in page.tasks]

    async def wait(self, task: TaskLike) -> TaskResult:
        """The task once its turn has ended and the agent has returned (see ``raise_agent_errors``)."""
        task_id = _id(task)
        try:
            async with asyncio.timeout(self.timeout):
                await self._until_returned(task_id)
                run = self._runs.get(task_id)
                if run is not None:
                    await asyncio.shield(run)
        except TimeoutError:
            now = await self.get(task_id)
            raise TimeoutError(
                f"the agent's turn on task {task_id} did not end within {self.timeout:g} s "
                f"(it is {now.state.value}); raise AgentHarness(timeout=...) for a slow agent"
            ) from None
        error = self._errors.pop(task_id, None)
        if error is not None and self.raise_agent_errors:
            raise error
        result = await self.get(task_id)
        return TaskResult(result.task, error) if error is not None else result

    async def load_context(self, context: TaskLike) -> JsonValue | None:
        """What the agent stored for a context (``ctx.update_context``), given a task of it or
        its id; None when nothing is stored."""
        context_id = context.context_id if isinstance(context, TaskResult) else context
        stored = await self.context_store.load_context(context_id)
        return None if stored is None else stored.value

    # --- the worker ------------------------------------------------------------------------

    async def _work(self) -> None:
        while True:
            operation = await self._broker.receive(timeout=1.0)
            if operation is not None:
                run = asyncio.create_task(self._run(operation), name=f"turn of {operation.task_id}")
                self._runs[operation.task_id] = run
                run.add_done_callback(self._forget)

    def _forget(self, run: asyncio.Task[None]) -> None:
        for task_id, running in list(self._runs.items()):
            if running is run:
                del self._runs[task_id]

    async def _run(self, operation: RunOperation) -> None:
        try:
            await self._worker.handle(operation)
        except RunInProgressError:  # a duplicate delivery while the turn runs: try it later
            await asyncio.sleep(0.1)
            await self._broker.enqueue(operation)
        except Exception:
            logger.exception("the harness's worker failed on task %s", operation.task_id)

    async def _until_returned(self, task_id: str) -> None:
        head = await self.server.ledger.wait_for(task_id, RETURN_STATES, self.timeout)
        while head.state not in RETURN_STATES:  # its own timeout ran out first: the caller's decides
            head = await self.server.ledger.wait_for(task_id, RETURN_STATES, self.timeout)

    # --- helpers ---------------------------------------------------------------------------

    def _message(self, content: Content | Message, task_id: str | None, context_id: str | None) -> Message:
        if self._loop is None:
            raise RuntimeError("use the harness inside `async with run_agent(agent) as a:`")
        if isinstance(content, Message):
            update = {"task_id": task_id or content.task_id, "context_id": context_id or content.context_id}
            return content.model_copy(update=update)
        return Message(
            role=Role.user,
            parts=to_parts(content),
            message_id=str(uuid.uuid4()),
            task_id=task_id,
            context_id=context_id,
        )

    @staticmethod
    async def _events(items: AsyncIterator[Any]) -> AsyncIterator[Event]:
        async for item in items:
            if item.error is not None:
                raise item.error
            yield item.result


def run_agent(
    agent: object = None,
    *,
    settings: Settings | None = None,
    raise_agent_errors: bool = True,
    timeout: float = 30.0,
    fresh_worker: bool = False,
) -> AgentHarness:
    """``async with run_agent(agent) as a:``: the agent served in memory (see `AgentHarness`,
    ``fresh_worker`` among its options); without ``agent``, the one your project names
    (`project_agent`)."""
    if agent is None:
        agent = find_agent(start=None, default=None) if fresh_worker else project_agent()
    return AgentHarness(
        agent,
        settings=settings,
        raise_agent_errors=raise_agent_errors,
        timeout=timeout,
        fresh_worker=fresh_worker,
    )


def project_agent(start: Path | str | None = None) -> Agent:
    """The agent ``[tool.a2a-serverless]`` names in the nearest ``pyproject.toml`` (from ``start``,
    default the current directory, up), imported as ``a2a-serverless dev`` imports it: the
    project's code first on ``sys.path``. Raises `ProjectError` outside a project."""
    return import_agent(find_agent(start=start, default=None))


class _Recording(Agent):
    """The agent, with what it raised kept for the test (the worker still fails the task)."""

    def __init__(self, agent: Agent, errors: dict[str, BaseException]) -> None:
        self.agent = agent
        self.errors = errors

    async def run(self, ctx: TaskContext) -> Content | None:
        try:
            result = await self.agent.run(ctx)
            if result is not None and not ctx.ended:
                to_parts(result)  # content the worker cannot send raises here, where the test sees it
            return result
        except TaskCanceledError:
            raise
        except Exception as error:
            self.errors[ctx.task_id] = error
            raise


def _fresh(agent: object) -> Agent:
    """``agent`` imported anew for each turn: named by a reference, or by what its module defines."""
    from a2a_core.adapters.fresh import FreshAgent

    if isinstance(agent, AgentRef):
        return FreshAgent(agent)
    if isinstance(agent, str):
        return FreshAgent(find_agent(agent, named_by="run_agent(fresh_worker=True)"))
    spec = _top_level_name(agent)
    if spec is None:
        raise TypeError(
            f"{agent!r} cannot be imported anew for each turn: name what a module defines at its top "
            "level (an agent function, class or factory), or pass 'package.module:attribute' (an instance)"
        )
    return FreshAgent(find_agent(spec, named_by="run_agent(fresh_worker=True)"))


def _top_level_name(agent: object) -> str | None:
    """``module:attribute`` for a function or class a module defines at its top level (an instance
    has no name of its own to find it by: it is named by a string)."""
    module = sys.modules.get(getattr(agent, "__module__", None) or "")
    name = getattr(agent, "__qualname__", None)
    if module is not None and isinstance(name, str) and getattr(module, name, None) is agent:
        return f"{module.__name__}:{name}"
    return None


def _id(task: TaskLike) -> str:
    return task.id if isinstance(task, TaskResult) else task
