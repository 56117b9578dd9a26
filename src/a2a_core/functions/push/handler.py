"""Push Lambda: the task table's stream -> notifications to each task's webhooks.

Composition root: settings, the backend's task store, config store and push dead-letter queue, and
the KMS signer are built once per cold start, at import. It needs neither the agent nor the run
queue. The batch handling lives in `a2a_core.aws.push_stream`.
"""

from __future__ import annotations

# isort: off
from a2a_core.functions.cold_start import end_cold_start  # first: it pauses the collector in Lambda
# isort: on


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
end_cold_start()
