"""Worker Lambda: SQS run operations -> `Worker.handle`, one agent turn per operation.

Composition root: settings, clients, the task and context stores and the agent are built once per
cold start, at import. The batch handling lives in `a2a_core.aws.lambdas`.
"""

from __future__ import annotations

import gc
import os

from a2a_core.aws.clients import build_clients
from a2a_core.aws.compose import build_context_store, build_task_store
from a2a_core.aws.lambdas import worker_handler
from a2a_core.ledger import TaskLedger
from a2a_core.service import load_agent
from a2a_core.settings import Settings
from a2a_core.worker import Worker


def build(settings: Settings) -> Worker:
    clients = build_clients(settings.aws_region, settings.aws_endpoint_url)
    ledger = TaskLedger(build_task_store(settings, clients))
    return Worker(
        ledger,
        load_agent(settings.agent),
        lease_seconds=settings.lease_seconds,
        context_store=build_context_store(settings, clients),
    )


worker = build(Settings.from_env())
handler = worker_handler(worker)
if "AWS_LAMBDA_FUNCTION_NAME" in os.environ:  # in Lambda (not a process loading it for a test):
    gc.freeze()  # what the cold start built lives as long as the container; collections skip it
