"""Long-turn worker entry point: the turn ``A2A_LONG_TURN`` names -> `run_long_turn`, then exit.

Composition root, as the worker Lambda's handler: settings from the environment, the worker's
secrets into it, the backend's adapters and the agent; then the one turn, with no invocation
deadline (``max_turn_seconds`` is its budget) and a heartbeat lease. Exit status 0 when the turn
is done or was not due (its message deleted, or held by another live attempt), 1 when the store
failed (the message comes back and the turn is tried again), 2 when the launch is unreadable, 143
on SIGTERM (the turn given back: its message comes back at once and the next attempt takes it
over), 130 when interrupted (Ctrl-C in dev: the turn is taken over once its lease ends).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from a2a_core import redaction
from a2a_core.aws.secrets import worker_secrets
from a2a_core.compose.agent import load_agent
from a2a_core.compose.backends import build_adapters
from a2a_core.compose.long_turns import compose_long_worker
from a2a_core.core.errors import StoreUnavailableError
from a2a_core.core.turn.delivery import NO_DELIVERY, Delivery
from a2a_core.core.turn.long_turns import LongTurnLaunch, run_long_turn
from a2a_core.functions.long_worker import EMULATOR_CREDENTIALS
from a2a_core.settings import Settings

if TYPE_CHECKING:
    from a2a_core.aws.clients import AwsClients

logger = logging.getLogger("a2a_core.functions.long_worker")


def main() -> int:
    """Run the launch's turn; the process's exit status."""
    logging.basicConfig(
        level=os.environ.get("A2A_LOG_LEVEL", "INFO").upper(), format="%(levelname)s %(name)s: %(message)s"
    )
    redaction.install()  # before anything logs: no secret in a log line, at any level
    try:
        launch = LongTurnLaunch.from_env(os.environ)
    except ValueError as bad:
        logger.error("%s", bad)
        return 2
    settings = Settings.from_env()
    os.environ.update(worker_secrets(settings))  # before the agent is imported, as on Lambda
    adapters = build_adapters(settings, _emulator_clients(settings), function="long-turn worker")
    worker = compose_long_worker(adapters, load_agent(settings.agent))
    messages = adapters.run_queue_messages
    delivery: Delivery = NO_DELIVERY
    if messages is not None and launch.source and launch.receipt:
        delivery = messages.delivery(launch.source, launch.receipt)
    operation = launch.operation
    logger.info("long turn of task %s (run %s) starting", operation.task_id, operation.run_id)
    try:
        asyncio.run(_until_terminated(run_long_turn(worker, launch, delivery)))
    except StoreUnavailableError:
        logger.warning("task %s: the store failed; the turn comes back to be tried again", operation.task_id)
        return 1
    except asyncio.CancelledError:
        logger.warning("task %s: terminated; its turn was given back to be taken over", operation.task_id)
        return 143
    except KeyboardInterrupt:  # dev's Ctrl-C reaches its whole process group: the turn resumes later
        logger.warning("task %s: interrupted; the turn is taken over once its lease ends", operation.task_id)
        return 130
    logger.info("long turn of task %s done", operation.task_id)
    return 0


async def _until_terminated(turn: Coroutine[Any, Any, None]) -> None:
    """``turn``, cancelled on SIGTERM (ECS stops a task so, Spot's two-minute warning among
    them): the worker then gives its turn back before the process exits."""
    task = asyncio.ensure_future(turn)
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    await task


def _emulator_clients(settings: Settings) -> AwsClients | None:
    """dev's: clients with the emulator's credentials, which leave the environment here."""
    key, _, secret = os.environ.pop(EMULATOR_CREDENTIALS, "").partition(":")
    if not key:
        return None
    from a2a_core.aws.clients import build_clients

    return build_clients(
        settings.aws_region, settings.aws_endpoint_url, credentials=(key, secret), sdk=settings.aws_client
    )


if __name__ == "__main__":
    sys.exit(main())
