"""Dead-letter Lambda: a run operation no worker could finish ends its task as failed.

It needs the task table only, never the agent, so it does not import the agent's code. The batch
handling lives in `a2a_core.aws.lambdas`.
"""

from __future__ import annotations

# isort: off
from a2a_core.functions.cold_start import end_cold_start  # first: it pauses the collector in Lambda
# isort: on


from a2a_core import redaction
from a2a_core.aws.lambdas import dead_letter_handler
from a2a_core.compose.backends import build_adapters
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.settings import Settings

redaction.install()  # before anything logs: no secret in a log line, at any level


def build(settings: Settings) -> TaskLedger:
    return TaskLedger(build_adapters(settings, function="dead-letter").store)


ledger = build(Settings.from_env())
handler = dead_letter_handler(ledger)
end_cold_start()
