"""Dead-letter Lambda: a run operation no worker could finish ends its task as failed.

It needs the task table only, never the agent, so it does not import the agent's code. The batch
handling lives in `a2a_core.aws.lambdas`.
"""

from __future__ import annotations

import gc
import os

from a2a_core import redaction
from a2a_core.aws.lambdas import dead_letter_handler
from a2a_core.compose.backends import build_adapters
from a2a_core.core.ledger import TaskLedger
from a2a_core.settings import Settings

redaction.install()  # before anything logs: no secret in a log line, at any level


def build(settings: Settings) -> TaskLedger:
    return TaskLedger(build_adapters(settings, function="dead-letter").store)


ledger = build(Settings.from_env())
handler = dead_letter_handler(ledger)
if "AWS_LAMBDA_FUNCTION_NAME" in os.environ:  # in Lambda (not a process loading it for a test):
    gc.freeze()  # what the cold start built lives as long as the container; collections skip it
