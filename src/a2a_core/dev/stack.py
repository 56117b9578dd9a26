"""The dev stack for each backend: the server, its worker and what feeds the worker.

The local backend's (moto, pollers, a kept state directory) is `a2a_core.dev.local`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.applications import Starlette

from a2a_core.app import create_app
from a2a_core.auth.local import dev_auth
from a2a_core.compose import build_server
from a2a_core.core.broker import InMemoryBroker, RunOperation
from a2a_core.core.context_store import InMemoryContextStore
from a2a_core.core.executor import AgentExecutor
from a2a_core.core.store import InMemoryTaskStore
from a2a_core.core.worker import RunInProgressError, Worker
from a2a_core.dev import DevStack
from a2a_core.settings import Settings, SettingsError

if TYPE_CHECKING:
    from a2a_core.dev.guard import DevDoors

logger = logging.getLogger(__name__)


def build_dev_stack(
    settings: Settings, agent: AgentExecutor, *, doors: DevDoors | None = None, state_dir: Path | None = None
) -> DevStack:
    """The API plus whatever feeds its worker, for ``settings.backend``:

    - memory: in-process store and queue, a loop hands operations to the worker;
    - local: moto's server started in-process; the worker and dead-letter Lambda handlers are
      driven by SQS pollers, exactly as event source mappings drive them in AWS. With
      ``state_dir`` what it stores is kept there across restarts (`a2a_core.local.journal`), and
      runs in flight when the last process died are resumed; without, it starts empty;
    - aws: real resources from the A2A_* settings; only the API runs here (the deployed worker
      Lambda consumes the queue).

    ``doors`` guards the server's Host, Origin and content types (`a2a_core.dev.guard`).
    """
    auth = dev_auth(settings)  # before anything starts: a mode dev cannot serve fails here
    if state_dir is not None and settings.backend != "local":
        raise SettingsError(f"a state directory is for the local backend, not {settings.backend}")
    builders = {
        "memory": _memory_stack,
        "local": lambda s, a: _local_stack(s, a, state_dir),
        "aws": _aws_stack,
    }
    stack = builders[settings.backend](auth.settings, agent)
    stack.auth = auth

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        for step in stack.startup:
            await step()
        stop = asyncio.Event()
        tasks = [asyncio.create_task(job(stop)) for job in stack.background]
        try:
            yield
        finally:
            stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if stack.local_aws is not None:
                stack.local_aws.stop()
            for close in stack.closers:
                close()

    stack.app = create_app(stack.service, lifespan=lifespan)
    if doors is not None:
        doors.install(stack.app)
    return stack


def _local_stack(settings: Settings, agent: AgentExecutor, state_dir: Path | None) -> DevStack:
    from a2a_core.dev.local import local_stack  # moto and botocore load only for this backend

    return local_stack(settings, agent, state_dir)


def _memory_stack(settings: Settings, agent: AgentExecutor) -> DevStack:
    broker = InMemoryBroker()
    service = build_server(
        settings, store=InMemoryTaskStore(), broker=broker, context_store=InMemoryContextStore()
    )
    worker = service.worker(agent)
    stack = DevStack(service, worker, create_app(service), broker, "in-memory (this process only)")
    stack.background.append(lambda stop: run_worker_loop(broker, worker))
    return stack


def _aws_stack(settings: Settings, agent: AgentExecutor) -> DevStack:
    from a2a_core.aws.clients import build_clients
    from a2a_core.compose.aws import build_aws_adapters, build_context_store

    clients = build_clients(settings.aws_region, settings.aws_endpoint_url)
    adapters = build_aws_adapters(settings, clients)
    # Nothing runs the stack's worker here (the Lambda does); it is built like the Lambda's anyway.
    context_store = build_context_store(settings, clients)
    service = build_server(
        settings,
        store=adapters.store,
        broker=adapters.broker,
        context_store=context_store,
        push_store=adapters.push_store,
    )
    description = f"AWS (table {settings.table_name}; the deployed worker Lambda runs the agent)"
    stack = DevStack(service, service.worker(agent), create_app(service), adapters.broker, description)
    stack.kept = "in AWS, by the deployed table"
    return stack


async def run_worker_loop(broker: InMemoryBroker, worker: Worker) -> None:
    """Hand each queued operation to the worker; turns of different tasks run concurrently."""
    running: set[asyncio.Task[None]] = set()
    while True:
        operation = await broker.receive(timeout=1.0)
        if operation is None:
            continue
        task = asyncio.create_task(_run_one(broker, worker, operation))
        running.add(task)
        task.add_done_callback(running.discard)


async def _run_one(broker: InMemoryBroker, worker: Worker, operation: RunOperation) -> None:
    try:
        await worker.handle(operation)
    except RunInProgressError:
        await asyncio.sleep(1.0)
        await broker.enqueue(operation)
    except Exception:
        logger.exception("worker loop: run of task %s failed", operation.task_id)
