"""Push Lambda: the task table's stream -> notifications to each task's webhooks.

Composition root: settings, clients, the task store, the config store, the KMS signer and the
push dead-letter queue are built once per cold start, at import. It needs neither the agent nor
the run queue. The batch handling lives in `a2a_core.aws.push_stream`.
"""

from __future__ import annotations

import gc
import os

from a2a_core.aws.clients import build_clients
from a2a_core.aws.push_stream import push_stream_handler
from a2a_core.compose.push import build_lambda_push_notifier
from a2a_core.push.metrics import PowertoolsMetrics
from a2a_core.push.notifier import PushNotifier
from a2a_core.settings import Settings


def build(settings: Settings) -> PushNotifier:
    clients = build_clients(settings.aws_region, settings.aws_endpoint_url)
    return build_lambda_push_notifier(settings, clients, metrics=PowertoolsMetrics())


notifier = build(Settings.from_env())
handler = push_stream_handler(notifier)
if "AWS_LAMBDA_FUNCTION_NAME" in os.environ:  # in Lambda (not a process loading it for a test):
    gc.freeze()  # what the cold start built lives as long as the container; collections skip it
