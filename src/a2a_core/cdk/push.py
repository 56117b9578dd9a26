"""The push notifications function, added on demand: the table's stream -> signed webhooks.

Its resources are created in the service's scope (``scope``), beside the others.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from aws_cdk import Duration
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from a2a_core.aws.event_filters import PUSH_STREAM_FILTERS
from a2a_core.aws.resources import PUSH_QUEUE
from a2a_core.cdk.alarms import ServiceAlarms
from a2a_core.cdk.functions import SIGNING_KEY_ENV, ServiceFunctions
from a2a_core.cdk.options import FunctionOptions
from a2a_core.cdk.storage import TaskStorage

PUSH = FunctionOptions(memory_mb=256, timeout=Duration.seconds(60))
PUSH_MAX_RECORD_AGE = Duration.hours(1)
SQS_MAX_RETENTION = Duration.days(14)


class PushParts(NamedTuple):
    function: lambda_.Function
    failures: sqs.Queue  # the stream mapping's on-failure destination
    dead_letters: sqs.Queue  # notifications the function could not deliver


def add_push_function(
    scope: Construct,
    *,
    functions: ServiceFunctions,
    storage: TaskStorage,
    signing_key: kms.Key,
    alarms: ServiceAlarms,
    handler: str,
    options: FunctionOptions,
    filters: Sequence[Mapping[str, Any]] | None,
    batch_size: int,
    retry_attempts: int,
    max_record_age: Duration,
    environment: Mapping[str, str] | None,
) -> PushParts:
    """The function, its queues, grants, stream mapping and alarms (see `A2AService.add_push_function`)."""
    failures = _dead_letter_queue(scope, "PushFailures", SQS_MAX_RETENTION)
    dead_letters = _dead_letter_queue(
        scope, "PushDeadLetters", Duration.seconds(PUSH_QUEUE.retention_seconds)
    )
    function = functions.add(
        "Push",
        handler=handler,
        options=options,
        description="Delivers push notifications for task changes from the table's stream",
        environment={
            **(environment or {}),
            SIGNING_KEY_ENV: signing_key.key_id,
            "A2A_PUSH_DLQ_URL": dead_letters.queue_url,
        },
    )
    functions.set_environment("A2A_PUSH_ENABLED", "true")
    storage.grant_task_log(function, write=False)
    signing_key.grant(function, "kms:Sign")
    dead_letters.grant_send_messages(function)
    function.add_event_source(
        sources.DynamoEventSource(
            storage.table,
            starting_position=lambda_.StartingPosition.LATEST,
            batch_size=batch_size,
            bisect_batch_on_error=True,
            retry_attempts=retry_attempts,
            max_record_age=max_record_age,
            on_failure=sources.SqsDlq(failures),
            report_batch_item_failures=True,
            # Default: new commits the writer marked for it (a2a_core.aws.event_filters).
            filters=[lambda_.FilterCriteria.filter(f) for f in (filters or PUSH_STREAM_FILTERS)],
        )
    )
    alarms.watch_function("Push", function)
    alarms.watch_dead_letters("PushFailures", failures)
    alarms.watch_dead_letters("PushDeadLetters", dead_letters)
    return PushParts(function, failures, dead_letters)


def _dead_letter_queue(scope: Construct, id: str, retention: Duration) -> sqs.Queue:
    return sqs.Queue(
        scope,
        id,
        retention_period=retention,
        encryption=sqs.QueueEncryption.SQS_MANAGED,
        enforce_ssl=True,
    )
