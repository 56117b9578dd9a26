"""The run queue the API enqueues to and the worker consumes, with its dead-letter queue."""

from __future__ import annotations

from dataclasses import replace

from aws_cdk import Duration
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from a2a_core.aws.resources import QUEUE, QueueSpec

# AWS guidance for a queue that is a Lambda event source: visibility >= 6 x the function timeout,
# so a message is not redelivered while a throttled or retried invocation still holds it.
VISIBILITY_FACTOR = 6


class RunQueues(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        worker_timeout: Duration,
        dead_letter_timeout: Duration,
        spec: QueueSpec = QUEUE,
    ) -> None:
        super().__init__(scope, id)
        self.spec = replace(spec, worker_timeout_seconds=int(worker_timeout.to_seconds()))
        self.dead_letters = sqs.Queue(
            self,
            "DeadLetters",
            retention_period=Duration.seconds(self.spec.dlq_retention_seconds),
            visibility_timeout=Duration.seconds(VISIBILITY_FACTOR * int(dead_letter_timeout.to_seconds())),
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
        )
        self.queue = sqs.Queue(
            self,
            "Runs",
            visibility_timeout=Duration.seconds(self.spec.visibility_timeout_seconds),
            retention_period=Duration.seconds(self.spec.retention_seconds),
            dead_letter_queue=sqs.DeadLetterQueue(
                max_receive_count=self.spec.max_receive_count, queue=self.dead_letters
            ),
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
        )
