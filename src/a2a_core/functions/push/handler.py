"""Push Lambda: the task table's stream -> notifications to each task's webhooks.

Composition root: settings, the backend's task store, config store and push dead-letter queue, and
the KMS signer are built once per cold start, at import. It needs neither the agent nor the run
queue. The batch handling lives in `a2a_core.aws.push_stream`.
"""

from __future__ import annotations

import gc
import os

from a2a_core import redaction
from a2a_core.aws.push_stream import push_stream_handler
from a2a_core.compose.backends import build_adapters
from a2a_core.compose.push import build_lambda_push_notifier
from a2a_core.push.metrics import PowertoolsMetrics
from a2a_core.push.notifier import PushNotifier
from a2a_core.settings import Settings

redaction.install()  # before anything logs: no secret in a log line, at any level


def build(settings: Settings) -> PushNotifier:
    adapters = build_adapters(settings, function="push")
    return build_lambda_push_notifier(adapters, metrics=PowertoolsMetrics())


notifier = build(Settings.from_env())
handler = push_stream_handler(notifier)
if "AWS_LAMBDA_FUNCTION_NAME" in os.environ:  # in Lambda (not a process loading it for a test):
    gc.freeze()  # what the cold start built lives as long as the container; collections skip it
