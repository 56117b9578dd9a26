"""Worker Lambda: SQS run operations -> `Worker.handle`, one agent turn per operation.

Composition root: settings, clients, the task and context stores and the agent are built once per
cold start, at import (`a2a_core.compose.aws.build_worker`). The batch handling lives in
`a2a_core.aws.lambdas`.
"""

from __future__ import annotations

import gc
import os

from a2a_core.aws.clients import build_clients
from a2a_core.aws.lambdas import worker_handler
from a2a_core.aws.sqs_broker import SqsMessages
from a2a_core.compose.aws import build_worker
from a2a_core.settings import Settings

settings = Settings.from_env()
clients = build_clients(settings.aws_region, settings.aws_endpoint_url)
worker = build_worker(settings, clients)
# The run queue's messages: the worker times their redelivery (their visibility) to its lease.
handler = worker_handler(worker, SqsMessages(clients.sqs, settings.queue_url))
if "AWS_LAMBDA_FUNCTION_NAME" in os.environ:  # in Lambda (not a process loading it for a test):
    gc.freeze()  # what the cold start built lives as long as the container; collections skip it
