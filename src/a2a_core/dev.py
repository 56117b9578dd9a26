"""`a2a-serverless dev`: the API and a worker loop in one local process.

The same `AgentServer` and `Worker` code that runs in Lambda runs here; only the adapters and the
loop that feeds run operations to the worker differ.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette

from a2a_core.app import create_app
from a2a_core.auth.local import DevAuth, dev_auth
from a2a_core.compose import build_server
from a2a_core.core.broker import Broker, InMemoryBroker, RunOperation
from a2a_core.core.context_store import InMemoryContextStore
from a2a_core.core.executor import AgentExecutor
from a2a_core.core.store import InMemoryTaskStore, NotifyingTaskStore
from a2a_core.core.worker import RunInProgressError, Worker
from a2a_core.server import AgentServer
from a2a_core.settings import Settings

if TYPE_CHECKING:
    from a2a_core.local.moto_server import LocalAws

logger = logging.getLogger(__name__)


Background = Callable[[asyncio.Event], Coroutine[Any, Any, None]]


@dataclass
class DevStack:
    service: AgentServer
    worker: Worker
    app: Starlette
    broker: Broker
    description: str
    local_aws: LocalAws | None = None
    background: list[Background] = field(default_factory=list)
    auth: DevAuth | None = None  # how callers authenticate, for the banner


def build_dev_stack(settings: Settings, agent: AgentExecutor) -> DevStack:
    """The API plus whatever feeds its worker, for ``settings.backend``:

    - memory: in-process store and queue, a loop hands operations to the worker;
    - local: moto's server started in-process; the worker and dead-letter Lambda handlers are
      driven by SQS pollers, exactly as event source mappings drive them in AWS;
    - aws: real resources from the A2A_* settings; only the API runs here (the deployed worker
      Lambda consumes the queue).
    """
    auth = dev_auth(settings)  # before anything starts: a mode dev cannot serve fails here
    builders = {"memory": _memory_stack, "local": _local_stack, "aws": _aws_stack}
    stack = builders[settings.backend](auth.settings, agent)
    stack.auth = auth

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
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

    stack.app = create_app(stack.service, lifespan=lifespan)
    return stack


def _memory_stack(settings: Settings, agent: AgentExecutor) -> DevStack:
    broker = InMemoryBroker()
    service = build_server(
        settings, store=InMemoryTaskStore(), broker=broker, context_store=InMemoryContextStore()
    )
    worker = service.worker(agent)
    stack = DevStack(service, worker, create_app(service), broker, "in-memory (this process only)")
    stack.background.append(lambda stop: run_worker_loop(broker, worker))
    return stack


def _local_stack(settings: Settings, agent: AgentExecutor) -> DevStack:
    from a2a_core.aws.lambdas import dead_letter_handler, worker_handler
    from a2a_core.compose import build_aws_adapters, build_context_store
    from a2a_core.local.moto_server import start_local_aws
    from a2a_core.local.pollers import SqsPoller
    from a2a_core.local.stream_poller import local_push_poller
    from a2a_core.push.signing import LocalSigner

    aws = start_local_aws()
    settings = settings.model_copy(
        update={
            "aws_endpoint_url": aws.endpoint_url,
            "aws_region": aws.region,
            "table_name": aws.names.table,
            "queue_url": aws.names.queue_url,
            "dlq_url": aws.names.dlq_url,
            "bucket_name": aws.names.bucket,
            "push_dlq_url": aws.names.push_dlq_url,
            # Dev only: webhooks on this machine (http://127.0.0.1:...) are the point of dev.
            "push_allow_insecure_loopback": True,
        }
    )
    adapters = build_aws_adapters(settings, aws.clients)
    signer = LocalSigner()  # moto's KMS holds no key of ours; the JWKS serves this one
    service = build_server(
        settings,
        store=NotifyingTaskStore(adapters.store),
        broker=adapters.broker,
        context_store=build_context_store(settings, aws.clients),
        push_store=adapters.push_store,
        push_signers=[signer],
    )
    worker = service.worker(agent)
    pollers = [
        SqsPoller(
            aws.clients.sqs,
            aws.names.queue_url,
            worker_handler(worker),
            function_name="a2a-worker",
            region=aws.region,
            timeout_seconds=settings.lease_seconds,
        ),
        SqsPoller(
            aws.clients.sqs,
            aws.names.dlq_url,
            dead_letter_handler(service.ledger),
            function_name="a2a-dead-letters",
            region=aws.region,
        ),
    ]
    description = f"local AWS emulation (moto at {aws.endpoint_url}, table {aws.names.table})"
    stack = DevStack(service, worker, create_app(service), adapters.broker, description, local_aws=aws)
    stack.background.extend(poller.run for poller in pollers)
    if settings.push_enabled:  # the push function, fed by the table's stream
        stack.background.append(local_push_poller(settings, aws, signer).run)
    return stack


def _aws_stack(settings: Settings, agent: AgentExecutor) -> DevStack:
    from a2a_core.aws.clients import build_clients
    from a2a_core.compose import build_aws_adapters, build_context_store

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
    return DevStack(service, service.worker(agent), create_app(service), adapters.broker, description)


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
    # IPPROTO_TCP explicitly: asyncio only turns Nagle off (TCP_NODELAY) on sockets created that
    # way, and without it every stream's first SSE event waited ~40 ms for a delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    # Listen now, so a client started the moment the URL is printed is queued, not refused.
    sock.listen(2048)
    return sock


def banner(url: str, backend: str = "", auth: DevAuth | None = None) -> str:
    credentials = auth.curl_header if auth else ""
    curl = (
        f'curl -s {url} {credentials}-H \'content-type: application/json\' -d \'{{"jsonrpc":"2.0","id":1,'
        '"method":"message/send","params":{"message":{"role":"user","messageId":"m1",'
        '"parts":[{"kind":"text","text":"hello"}]}}}\''
    )
    return (
        f"A2A agent listening on {url}\n"
        f"Agent card: {url}.well-known/agent-card.json\n"
        f"Tasks in:   {backend}\n"
        + "".join(f"{line}\n" for line in (auth.lines if auth else []))
        + f"Try it:     {curl}\n"
    )
