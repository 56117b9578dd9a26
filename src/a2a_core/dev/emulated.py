"""`a2a-serverless dev --backend local`: dev on the AWS emulator (`a2a_core.emulator`), moto's
server started in a process of its own. The worker and dead-letter Lambda handlers are driven by
SQS pollers (as event source mappings drive them in AWS), the push function is fed by the table's
stream, and a state directory optionally keeps it all across restarts."""

from __future__ import annotations

import asyncio
import importlib.util
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from a2a_core.compose import compose_server, compose_worker
from a2a_core.compose.adapters import Adapters
from a2a_core.compose.aws import AwsAdapters
from a2a_core.compose.backends import build_adapters
from a2a_core.compose.long_turns import compose_hand_off
from a2a_core.core.broker import Broker
from a2a_core.core.turn.executor import Agent
from a2a_core.dev import DevStack, loopback_webhooks
from a2a_core.server import AgentServer
from a2a_core.settings import ENV_PREFIX, Settings, SettingsError

if TYPE_CHECKING:
    from a2a_core.dev.long_turns import ProcessTurnLauncher
    from a2a_core.emulator.journal import WriteJournal
    from a2a_core.emulator.moto_server import EmulatedAws
    from a2a_core.emulator.state import StateDir
    from a2a_core.emulator.stream_poller import DynamoDBStreamPoller
    from a2a_core.push.signing import Signer


# What the local backend creates itself; naming them for it would be silently overridden.
_LOCAL_RESOURCES = ("aws_endpoint_url", "table_name", "queue_url", "dlq_url", "bucket_name", "push_dlq_url")


def emulated_stack(
    settings: Settings, agent: Agent, state_dir: Path | None, *, lambda_timeout: float | None = None
) -> DevStack:
    """The local backend's stack; ``lambda_timeout``: the emulated worker Lambda's timeout
    (``--lambda-timeout``; default: the worker's lease, as deployed)."""
    from a2a_core.emulator.state import StateDir

    named = [ENV_PREFIX + name.upper() for name in _LOCAL_RESOURCES if name in settings.model_fields_set]
    if named:
        raise SettingsError(
            f"{', '.join(named)} name AWS resources, which the local backend creates itself: unset "
            "them, or use --backend aws to use those resources"
        )
    state = StateDir(state_dir) if state_dir is not None else None
    try:
        return _stack_in(settings, agent, state, lambda_timeout)
    except BaseException:
        if state is not None:
            state.close()
        raise


def _stack_in(
    settings: Settings, agent: Agent, state: StateDir | None, lambda_timeout: float | None
) -> DevStack:
    from a2a_core.emulator.process import EmulatorProcess

    # moto loads in the child: without it the child could only die, so it is missed here, as an
    # import of this process would be (the CLI names the extra to install).
    if importlib.util.find_spec("moto") is None:
        raise ModuleNotFoundError("No module named 'moto'", name="moto")
    child = EmulatorProcess()
    try:
        # What this process needs next loads while the child starts moto (about a second).
        import botocore.session  # noqa: F401

        import a2a_core.aws.lambdas
        import a2a_core.compose.aws  # noqa: F401
        from a2a_core.emulator.moto_server import connect

        aws = connect(child.wait_until_serving(), settings.aws_region, child, "a2a-dev" if state else None)
    except BaseException:
        child.stop()
        raise
    try:
        return _stack_on(aws, settings, agent, state, lambda_timeout)
    except BaseException:
        aws.stop()
        raise


def _stack_on(
    aws: EmulatedAws, settings: Settings, agent: Agent, state: StateDir | None, lambda_timeout: float | None
) -> DevStack:
    from a2a_core.aws.lambdas import dead_letter_handler, worker_handler
    from a2a_core.emulator.pollers import SqsPoller
    from a2a_core.push.signing import LocalSigner

    settings = loopback_webhooks(settings).model_copy(
        update={
            "aws_endpoint_url": aws.endpoint_url,
            "table_name": aws.names.table,
            "queue_url": aws.names.queue_url,
            "dlq_url": aws.names.dlq_url,
            "bucket_name": aws.names.bucket,
            "push_dlq_url": aws.names.push_dlq_url,
        }
    )
    kept = "nothing: --fresh, it starts empty and forgets everything when it stops"
    closers: list[Callable[[], None]] = []
    if state is not None:
        kept, journal = _restore(state, aws)
        closers.extend([journal.close, state.close])
    timeout = settings.lease_seconds if lambda_timeout is None else lambda_timeout
    launcher = _launcher(settings, aws, timeout)
    closers.extend([] if launcher is None else [launcher.stop])
    # Long-turn workers write the table from processes of their own: nothing may be answered
    # from what this process alone wrote (`WakingTaskStore`).
    adapters = (
        build_adapters(settings, aws.clients) if launcher is None else AwsAdapters(settings, aws.clients)
    )
    # moto's KMS holds no key of ours: the JWKS serves this one (kept with the state, if any).
    signer = state.signer() if state is not None and settings.push_enabled else LocalSigner()
    service = compose_server(adapters, push_signers=[signer])
    worker = compose_worker(adapters, agent)
    # The margin that records a turn out of time, within a Lambda timeout shrunk to seconds.
    worker.safety_margin = min(worker.safety_margin, timeout / 4)
    pollers = [
        SqsPoller(
            aws.clients.sqs,
            aws.names.queue_url,
            worker_handler(worker, adapters.run_queue_messages, compose_hand_off(adapters, worker, launcher)),
            function_name="a2a-worker",
            region=aws.region,
            timeout_seconds=timeout,
            retry_delay=None,  # the worker handler times each redelivery (its lease, a store error)
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
    if launcher is not None:
        description += (
            f"; turns of max_turn_seconds = {settings.max_turn_seconds:g} s, over the worker Lambda's "
            f"{timeout:g} s, each run by a long-turn worker process"
        )
    stack = DevStack(service, worker, adapters.broker, description, emulator=aws)
    stack.kept, stack.closers = kept, closers
    stack.background.extend(poller.run for poller in pollers)
    if launcher is not None:  # its workers stop before the emulator they write to
        stack.background.append(launcher.run)
    if settings.push_enabled:  # the push function, fed by the table's stream
        poller = push_poller(adapters, aws, signer)
        if state is not None:
            poller.skip_existing()  # the restored history was notified before
        stack.background.append(poller.run)
    if state is not None:
        stack.startup.append(lambda: _list_restored(adapters, aws))
        stack.startup.append(lambda: _resume(service, adapters.broker, aws))
    return stack


def _launcher(settings: Settings, aws: EmulatedAws, lambda_timeout: float) -> ProcessTurnLauncher | None:
    """dev's long-turn worker, when the project's turns may run longer than the emulated Lambda
    worker's ``lambda_timeout``: a process per turn on the aws backend, pointed at the emulator."""
    if settings.max_turn_seconds is None or settings.max_turn_seconds <= lambda_timeout:
        return None
    from a2a_core.dev.long_turns import ProcessTurnLauncher
    from a2a_core.functions.long_worker import EMULATOR_CREDENTIALS

    child = settings.model_copy(update={"backend": "aws"})
    return ProcessTurnLauncher({**child.to_env(), EMULATOR_CREDENTIALS: ":".join(aws.credentials)})


def push_poller(adapters: Adapters, aws: EmulatedAws, signer: Signer) -> DynamoDBStreamPoller:
    """The push function, as dev runs it: the real handler on the emulator's table stream."""
    from a2a_core.aws.clients import client_factory
    from a2a_core.aws.event_filters import passes_push_filter
    from a2a_core.aws.push_stream import push_stream_handler
    from a2a_core.compose.push import build_push_notifier
    from a2a_core.emulator.stream_poller import DynamoDBStreamPoller

    make = client_factory(aws.region, aws.endpoint_url, read_timeout=10, credentials=aws.credentials)
    streams = make("dynamodbstreams")
    handler = push_stream_handler(build_push_notifier(adapters, signer=signer))
    return DynamoDBStreamPoller.for_table(
        aws.clients.dynamodb,
        streams,
        aws.names.table,
        handler,
        function_name="a2a-push",
        region=aws.region,
        accept=passes_push_filter,  # the deployed mapping's own patterns
    )


def _restore(state: StateDir, aws: EmulatedAws) -> tuple[str, WriteJournal]:
    """Replay the state's journal into the fresh emulator and journal from now on; the banner's
    account of it, and the journal."""
    from a2a_core.emulator.journal import WriteJournal, restore

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


async def _list_restored(adapters: Adapters, aws: EmulatedAws) -> None:
    """Tasks a previous version of dev kept are listed as this one lists them."""
    from a2a_core.aws.dynamodb.list_migration import migrate

    await migrate(aws.clients.dynamodb, aws.names.table, adapters.store)


async def _resume(service: AgentServer, broker: Broker, aws: EmulatedAws) -> None:
    from a2a_core.emulator.recovery import resume_runs, unfinished_tasks

    task_ids = await asyncio.to_thread(unfinished_tasks, aws.clients.dynamodb, aws.names.table)
    await resume_runs(service.ledger, broker, task_ids)
