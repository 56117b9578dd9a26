"""`a2a-serverless dev`: the API and a worker loop in one local process.

The same `AgentServer` and `Worker` code that runs in Lambda runs here; only the adapters and the
loop that feeds run operations to the worker differ.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette

from a2a_core.app import create_app
from a2a_core.auth.local import DevAuth, dev_auth
from a2a_core.compose import build_server
from a2a_core.core.broker import Broker, InMemoryBroker, RunOperation
from a2a_core.core.context_store import InMemoryContextStore
from a2a_core.core.executor import AgentExecutor
from a2a_core.core.notifying_store import NotifyingTaskStore
from a2a_core.core.store import InMemoryTaskStore
from a2a_core.core.worker import RunInProgressError, Worker
from a2a_core.server import AgentServer
from a2a_core.settings import ENV_PREFIX, Settings, SettingsError

if TYPE_CHECKING:
    from a2a_core.dev_guard import DevDoors
    from a2a_core.local.journal import WriteJournal
    from a2a_core.local.moto_server import LocalAws
    from a2a_core.local.state import StateDir

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
    kept: str = "nothing: this process only"  # what survives a restart, for the banner
    startup: list[Callable[[], Awaitable[object]]] = field(default_factory=list)  # before background
    closers: list[Callable[[], None]] = field(default_factory=list)  # after everything stopped


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

    ``doors`` guards the server's Host, Origin and content types (`a2a_core.dev_guard`).
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


def _memory_stack(settings: Settings, agent: AgentExecutor) -> DevStack:
    broker = InMemoryBroker()
    service = build_server(
        settings, store=InMemoryTaskStore(), broker=broker, context_store=InMemoryContextStore()
    )
    worker = service.worker(agent)
    stack = DevStack(service, worker, create_app(service), broker, "in-memory (this process only)")
    stack.background.append(lambda stop: run_worker_loop(broker, worker))
    return stack


# What the local backend creates itself; naming them for it would be silently overridden.
_LOCAL_RESOURCES = ("aws_endpoint_url", "table_name", "queue_url", "dlq_url", "bucket_name", "push_dlq_url")


def _local_stack(settings: Settings, agent: AgentExecutor, state_dir: Path | None) -> DevStack:
    from a2a_core.local.state import StateDir

    named = [ENV_PREFIX + name.upper() for name in _LOCAL_RESOURCES if name in settings.model_fields_set]
    if named:
        raise SettingsError(
            f"{', '.join(named)} name AWS resources, which the local backend creates itself: unset "
            "them, or use --backend aws to use those resources"
        )
    state = StateDir(state_dir) if state_dir is not None else None
    try:
        return _local_stack_in(settings, agent, state)
    except BaseException:
        if state is not None:
            state.close()
        raise


def _local_stack_in(settings: Settings, agent: AgentExecutor, state: StateDir | None) -> DevStack:
    from a2a_core.aws.lambdas import dead_letter_handler, worker_handler
    from a2a_core.compose.aws import build_aws_adapters, build_context_store
    from a2a_core.local.moto_server import start_local_aws
    from a2a_core.local.pollers import SqsPoller
    from a2a_core.local.stream_poller import local_push_poller
    from a2a_core.push.signing import LocalSigner

    aws = start_local_aws("a2a-dev" if state is not None else None, settings.aws_region)
    # Dev only, and only unless the variable says otherwise: webhooks on this machine
    # (http://127.0.0.1:...) are the point of dev.
    loopback = "push_allow_insecure_loopback" in settings.model_fields_set
    settings = settings.model_copy(
        update={
            "aws_endpoint_url": aws.endpoint_url,
            "table_name": aws.names.table,
            "queue_url": aws.names.queue_url,
            "dlq_url": aws.names.dlq_url,
            "bucket_name": aws.names.bucket,
            "push_dlq_url": aws.names.push_dlq_url,
            "push_allow_insecure_loopback": settings.push_allow_insecure_loopback if loopback else True,
        }
    )
    kept = "nothing: --fresh, it starts empty and forgets everything when it stops"
    closers: list[Callable[[], None]] = []
    if state is not None:
        kept, journal = _restore(state, aws)
        closers.extend([journal.close, state.close])
    adapters = build_aws_adapters(settings, aws.clients)
    # moto's KMS holds no key of ours: the JWKS serves this one (kept with the state, if any).
    signer = state.signer() if state is not None and settings.push_enabled else LocalSigner()
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
    stack.kept, stack.closers = kept, closers
    stack.background.extend(poller.run for poller in pollers)
    if settings.push_enabled:  # the push function, fed by the table's stream
        push_poller = local_push_poller(settings, aws, signer)
        if state is not None:
            push_poller.skip_existing()  # the restored history was notified before
        stack.background.append(push_poller.run)
    if state is not None:
        stack.startup.append(lambda: _resume(service, adapters.broker, aws))
    return stack


def _restore(state: StateDir, aws: LocalAws) -> tuple[str, WriteJournal]:
    """Replay the state's journal into the fresh emulator and journal from now on; the banner's
    account of it, and the journal."""
    from a2a_core.local.journal import WriteJournal, restore

    restored = restore(
        state.journal,
        dynamodb=aws.clients.dynamodb,
        s3=aws.clients.s3,
        table=aws.names.table,
        bucket=aws.names.bucket,
        now=time.time(),
    )
    journal = WriteJournal(state.journal)
    journal.attach(aws.clients.dynamodb)
    journal.attach(aws.clients.s3)
    kept = f"persistent at {state.path} ({restored.tasks} task(s) restored; --fresh starts empty)"
    if restored.failed:
        kept += f"; {restored.failed} journal entries could not be replayed (see the log)"
    return kept, journal


async def _resume(service: AgentServer, broker: Broker, aws: LocalAws) -> None:
    from a2a_core.local.recovery import resume_runs, unfinished_tasks

    task_ids = await asyncio.to_thread(unfinished_tasks, aws.clients.dynamodb, aws.names.table)
    await resume_runs(service.ledger, broker, task_ids)


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


def banner(url: str, backend: str = "", auth: DevAuth | None = None, kept: str = "") -> str:
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
        + (f"Kept:       {kept}\n" if kept else "")
        + "".join(f"{line}\n" for line in (auth.lines if auth else []))
        + f"Try it:     {curl}\n"
    )
