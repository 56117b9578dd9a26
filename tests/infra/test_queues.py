"""The run queue, its dead-letter queue, and the functions that consume them."""

from __future__ import annotations

import json
from typing import Any, cast

from aws_cdk.assertions import Match, Template

from a2a_core.aws.resources import QUEUE, create_queues
from a2a_core.cdk.testing import logical_id, properties


class FakeSqs:
    def __init__(self) -> None:
        self.queues: dict[str, dict[str, str]] = {}

    def create_queue(self, QueueName: str, Attributes: dict[str, str]) -> dict[str, str]:
        self.queues[QueueName] = Attributes
        return {"QueueUrl": QueueName}

    def get_queue_attributes(self, QueueUrl: str, AttributeNames: list[str]) -> dict[str, Any]:
        return {"Attributes": {"QueueArn": f"arn:{QueueUrl}"}}


def _queue(template: Template, name: str) -> dict[str, Any]:
    return properties(template, "AWS::SQS::Queue", f"/Queues/{name}/Resource")


def test_queues_match_what_the_local_emulation_creates(default: Template) -> None:
    sqs = FakeSqs()
    create_queues(cast(Any, sqs), "runs")
    local, local_dlq = sqs.queues["runs"], sqs.queues["runs-dlq"]
    runs, dead_letters = _queue(default, "Runs"), _queue(default, "DeadLetters")

    assert runs["VisibilityTimeout"] == int(local["VisibilityTimeout"])
    assert runs["MessageRetentionPeriod"] == int(local["MessageRetentionPeriod"])
    assert runs["RedrivePolicy"]["maxReceiveCount"] == int(
        json.loads(local["RedrivePolicy"])["maxReceiveCount"]
    )
    assert dead_letters["MessageRetentionPeriod"] == int(local_dlq["MessageRetentionPeriod"])


def test_visibility_timeouts_are_six_times_their_consumers_timeout(default: Template, full: Template) -> None:
    assert _queue(default, "Runs")["VisibilityTimeout"] == 6 * QUEUE.worker_timeout_seconds
    assert _queue(full, "Runs")["VisibilityTimeout"] == 6 * 600  # worker timeout of 10 minutes
    assert _queue(default, "DeadLetters")["VisibilityTimeout"] == 6 * 60


def test_run_queue_redrives_to_its_dead_letter_queue(default: Template) -> None:
    dlq = logical_id(default, "AWS::SQS::Queue", "/Queues/DeadLetters/Resource")
    assert _queue(default, "Runs")["RedrivePolicy"] == {
        "deadLetterTargetArn": {"Fn::GetAtt": [dlq, "Arn"]},
        "maxReceiveCount": QUEUE.max_receive_count,
    }


def test_queues_are_encrypted_and_refuse_plain_http(default: Template) -> None:
    for name in ("Runs", "DeadLetters"):
        assert _queue(default, name)["SqsManagedSseEnabled"] is True
        queue = logical_id(default, "AWS::SQS::Queue", f"/Queues/{name}/Resource")
        default.has_resource_properties(
            "AWS::SQS::QueuePolicy",
            {
                "Queues": [{"Ref": queue}],
                "PolicyDocument": {
                    "Statement": [
                        Match.object_like(
                            {
                                "Effect": "Deny",
                                "Action": "sqs:*",
                                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                            }
                        )
                    ]
                },
            },
        )


def test_worker_consumes_runs_with_partial_batch_failures_and_bounded_concurrency(
    default: Template, full: Template
) -> None:
    for template, batch, concurrency in ((default, 10, 10), (full, 5, 20)):
        template.has_resource_properties(
            "AWS::Lambda::EventSourceMapping",
            {
                "EventSourceArn": {
                    "Fn::GetAtt": [logical_id(template, "AWS::SQS::Queue", "/Queues/Runs/Resource"), "Arn"]
                },
                "FunctionName": {
                    "Ref": logical_id(template, "AWS::Lambda::Function", "/Functions/Worker/Resource")
                },
                "BatchSize": batch,
                "FunctionResponseTypes": ["ReportBatchItemFailures"],
                "ScalingConfig": {"MaximumConcurrency": concurrency},
            },
        )


def test_dead_letter_function_consumes_the_dead_letter_queue(default: Template) -> None:
    default.has_resource_properties(
        "AWS::Lambda::EventSourceMapping",
        {
            "EventSourceArn": {
                "Fn::GetAtt": [logical_id(default, "AWS::SQS::Queue", "/Queues/DeadLetters/Resource"), "Arn"]
            },
            "FunctionName": {
                "Ref": logical_id(default, "AWS::Lambda::Function", "/Functions/DeadLetter/Resource")
            },
            "FunctionResponseTypes": ["ReportBatchItemFailures"],
            "ScalingConfig": {"MaximumConcurrency": 2},
        },
    )
