"""The dev stack: the backend's adapters, the server and its worker, what feeds the worker, and
the one app serving them.

Which adapters serve a backend is `a2a_core.compose.backends`' to decide; what runs the worker is
dev's: a loop in this process (memory), the emulator's pollers (local, `a2a_core.dev.emulated`),
or nothing (aws: the deployed worker function does).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.applications import Starlette

from a2a_core import redaction
from a2a_core.compose import compose_server, compose_worker
from a2a_core.compose.app import compose_app
from a2a_core.compose.backends import build_adapters
from a2a_core.core.broker import InMemoryBroker, RunOperation
from a2a_core.core.turn.executor import Agent
from a2a_core.core.turn.worker import RunInProgressError, Worker
from a2a_core.dev import DevStack, loopback_webhooks
from a2a_core.dev.auth import dev_auth
from a2a_core.settings import Settings, SettingsError

if TYPE_CHECKING:
    from a2a_core.dev.guard import DevDoors

logger = logging.getLogger(__name__)
# How long stopping waits for the worker's pollers to finish what they hold.
STOP_GRACE_SECONDS = 3.0


def build_dev_stack(
    settings: Settings,
    agent: Agent,
    *,
    doors: DevDoors | None = None,
    state_dir: Path | None = None,
    lambda_timeout: float | None = None,
) -> DevStack:
    """The API plus whatever feeds its worker, for ``settings.backend``:

    - memory: in-process store and queue, a loop hands operations to the worker;
    - local: moto's server started in-process; the worker and dead-letter Lambda handlers are
      driven by SQS pollers, exactly as event source mappings drive them in AWS. With
      ``state_dir`` what it stores is kept there across restarts (`a2a_core.emulator.journal`),
      and runs in flight when the last process died are resumed; without, it starts empty;
    - aws: real resources from the A2A_* settings; only the API runs here (the deployed worker
      Lambda consumes the queue).

    ``doors`` guards the server's Host, Origin and content types (`a2a_core.dev.guard`);
    ``lambda_timeout`` (local only) is the emulated worker Lambda's timeout: a project whose
    ``max_turn_seconds`` is longer has its turns run by long-turn worker processes
    (`a2a_core.dev.long_turns`).
    """
    redaction.install()  # before anything logs: no secret in a log line, at any level
    auth = dev_auth(settings)  # before anything starts: a mode dev cannot serve fails here
    if state_dir is not None and settings.backend != "local":
        raise SettingsError(f"a state directory is for the local backend, not {settings.backend}")
    if lambda_timeout is not None and settings.backend != "local":
        raise SettingsError(f"--lambda-timeout is for the local backend, not {settings.backend}")
    if lambda_timeout is not None:
        stack = _on_emulator(auth.settings, agent, state_dir, lambda_timeout)
    else:
        stack = _RUNNERS[settings.backend](auth.settings, agent, state_dir)
    stack.auth = auth
    stack.app = compose_app(stack.service, lifespan=_lifespan(stack))
    if doors is not None:
        doors.install(stack.app)
    return stack


def _lifespan(stack: DevStack) -> Callable[[Starlette], contextlib.AbstractAsyncContextManager[None]]:
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
            # A poller finishes the batch in hand (its thread cannot be cancelled) before the
            # emulator goes; a turn still running after that is resumed by the next start.
            _, running = await asyncio.wait(tasks, timeout=STOP_GRACE_SECONDS) if tasks else (set(), set())
            for task in running:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if stack.emulator is not None:
                stack.emulator.stop()
            for close in stack.closers:
                close()

    return lifespan


def _in_process(settings: Settings, agent: Agent, _state_dir: Path | None) -> DevStack:
    if settings.push_enabled:
        return _in_process_with_push(settings, agent)
    adapters = build_adapters(settings)
    broker = adapters.broker
    assert isinstance(broker, InMemoryBroker)  # the memory backend's: this process's queue
    worker = compose_worker(adapters, agent)
    stack = DevStack(compose_server(adapters), worker, broker, "in-memory (this process only)")
    stack.background.append(lambda stop: run_worker_loop(broker, worker, stop))
    return stack


def _in_process_with_push(settings: Settings, agent: Agent) -> DevStack:
    """The memory backend delivering push as the others do (`a2a_core.dev.memory_push`): its store
    announces commits to the push notifier, which signs with a key of this process."""
    from a2a_core.compose.push import build_push_notifier
    from a2a_core.dev.memory_push import PushingMemoryAdapters, deliver_commits
    from a2a_core.push.signing import LocalSigner

    adapters = PushingMemoryAdapters(loopback_webhooks(settings))
    signer = LocalSigner()
    worker = compose_worker(adapters, agent)
    service = compose_server(adapters, push_signers=[signer])
    stack = DevStack(service, worker, adapters.broker, "in-memory (this process only)")
    notifier = build_push_notifier(adapters, signer=signer)
    stack.background.append(lambda stop: run_worker_loop(adapters.broker, worker))
    stack.background.append(lambda stop: deliver_commits(adapters.commits, notifier))
    return stack


def _on_emulator(
    settings: Settings, agent: Agent, state_dir: Path | None, lambda_timeout: float | None = None
) -> DevStack:
    from a2a_core.dev.emulated import emulated_stack  # moto and botocore load only for this backend

    return emulated_stack(settings, agent, state_dir, lambda_timeout=lambda_timeout)


def _on_aws(settings: Settings, agent: Agent, _state_dir: Path | None) -> DevStack:
    adapters = build_adapters(settings)
    # Nothing runs this worker here (the deployed function does); it is built like that one anyway,
    # so a configuration the function would refuse is refused here too.
    worker = compose_worker(adapters, agent)
    description = f"AWS (table {settings.table_name}; the deployed worker Lambda runs the agent)"
    stack = DevStack(compose_server(adapters), worker, adapters.broker, description)
    stack.kept = "in AWS, by the deployed table"
    return stack


# What runs the worker, per backend (the adapters are `build_adapters`').
_RUNNERS: dict[str, Callable[[Settings, Agent, Path | None], DevStack]] = {
    "memory": _in_process,
    "local": _on_emulator,
    "aws": _on_aws,
}


async def run_worker_loop(broker: InMemoryBroker, worker: Worker, stop: asyncio.Event | None = None) -> None:
    """Hand each queued operation to the worker, until ``stop``; turns of different tasks run
    concurrently."""
    running: set[asyncio.Task[None]] = set()
    while stop is None or not stop.is_set():
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
