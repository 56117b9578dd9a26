"""Worker Lambda: SQS run operations -> `Worker.handle`, one agent turn per operation.

Composition root: settings, the worker's secrets (into its environment), the backend's task and
context stores and the agent are built once per cold start, at import
(`a2a_core.compose.worker.compose_worker`: no engine, protocol codec or web app is imported).
The batch handling lives in `a2a_core.aws.lambdas`. Under SnapStart (``worker_snap_start``) the
snapshot holds all of that built, primed before it, its connections and credentials dropped
after each restore (`a2a_core.functions.worker.snapshot`).
"""

from __future__ import annotations

# isort: off
from a2a_core.functions.cold_start import end_cold_start  # first: it pauses the collector in Lambda
# isort: on


import os

from a2a_core import redaction
from a2a_core.aws.lambdas import worker_handler
from a2a_core.aws.secrets import worker_secrets
from a2a_core.compose.agent import load_agent
from a2a_core.compose.backends import build_adapters
from a2a_core.compose.long_turns import compose_hand_off
from a2a_core.compose.worker import compose_worker
from a2a_core.settings import Settings

redaction.install()  # before anything logs: no secret in a log line, at any level

settings = Settings.from_env()
# Before the agent is imported: its module (or its model's client) may read them at import.
os.environ.update(worker_secrets(settings))
adapters = build_adapters(settings, function="worker")
worker = compose_worker(adapters, load_agent(settings.agent))
# The run queue's messages: the worker times their redelivery (their visibility) to its lease; turns
# longer than this function allows go to the long-turn worker, where one is deployed.
handler = worker_handler(worker, adapters.run_queue_messages, compose_hand_off(adapters, worker))


def _prime() -> None:
    from a2a_core.functions.worker.snapshot import prime

    prime(adapters)


def _restore() -> None:
    from a2a_core.functions.worker.snapshot import restore

    restore(adapters)


end_cold_start(prime=_prime, restore=_restore)
