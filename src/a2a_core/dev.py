"""`a2a-serverless dev`: the API and a worker loop in one local process.

The same `A2AService` and `Worker` code that runs in Lambda runs here; only the adapters and the
loop that feeds run operations to the worker differ.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass

from starlette.applications import Starlette

from a2a_core.app import create_app
from a2a_core.broker import InMemoryBroker, RunOperation
from a2a_core.executor import AgentExecutor
from a2a_core.service import A2AService, build_service
from a2a_core.settings import Settings
from a2a_core.store import InMemoryTaskStore
from a2a_core.worker import RunInProgressError, Worker

logger = logging.getLogger(__name__)


@dataclass
class DevStack:
    service: A2AService
    broker: InMemoryBroker
    worker: Worker
    app: Starlette


def build_dev_stack(settings: Settings, agent: AgentExecutor) -> DevStack:
    broker = InMemoryBroker()
    service = build_service(settings, store=InMemoryTaskStore(), broker=broker)
    worker = service.worker(agent)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        loop_task = asyncio.create_task(run_worker_loop(broker, worker))
        try:
            yield
        finally:
            loop_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await loop_task

    return DevStack(service, broker, worker, create_app(service, lifespan=lifespan))


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


def bind(host: str, port: int) -> socket.socket:
    """Bind before serving so ``--port 0`` can report the port the OS chose."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    # Listen now, so a client started the moment the URL is printed is queued, not refused.
    sock.listen(2048)
    return sock


def banner(url: str) -> str:
    curl = (
        f'curl -s {url} -H \'content-type: application/json\' -d \'{{"jsonrpc":"2.0","id":1,'
        '"method":"message/send","params":{"message":{"role":"user","messageId":"m1",'
        '"parts":[{"kind":"text","text":"hello"}]}}}\''
    )
    return f"A2A agent listening on {url}\nAgent card: {url}.well-known/agent-card.json\nTry it:     {curl}\n"
