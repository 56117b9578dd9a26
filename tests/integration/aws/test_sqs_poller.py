"""The SQS poller dev runs its worker with, on moto's server: as the event source mapping does, it
deletes a batch's handled messages with one call, and leaves a reported failure to come back."""

from __future__ import annotations

from collections import Counter
from typing import Any

from a2a_core.aws.resources import ResourceNames
from a2a_core.emulator.moto_server import EmulatedAws
from a2a_core.emulator.pollers import SqsPoller


def test_a_batch_is_deleted_in_one_call_and_a_failed_record_comes_back(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    sqs, queue = local_aws.clients.sqs, aws_resources.queue_url
    for body in ("one", "two", "three"):
        sqs.send_message(QueueUrl=queue, MessageBody=body)
    seen: list[str] = []

    def handler(event: dict[str, Any], _context: Any) -> dict[str, Any]:
        records = event["Records"]
        seen.extend(record["body"] for record in records)
        failed = [{"itemIdentifier": r["messageId"]} for r in records if r["body"] == "two"]
        return {"batchItemFailures": failed}

    calls: Counter[str] = Counter()
    sqs.meta.events.register("before-call.sqs.*", lambda model, **_: calls.update([model.name]))
    poller = SqsPoller(sqs, queue, handler, function_name="worker", region=local_aws.region, retry_delay=0)
    handled = 0
    while handled < 3:
        handled += poller.poll_once(wait_seconds=1)
    assert sorted(seen) == ["one", "three", "two"]
    assert calls["DeleteMessageBatch"] == 1
    assert "DeleteMessage" not in calls

    seen.clear()

    def take(event: dict[str, Any], _context: Any) -> dict[str, Any]:
        seen.extend(record["body"] for record in event["Records"])
        return {}

    poller.handler = take
    while not seen:
        poller.poll_once(wait_seconds=1)
    assert seen == ["two"]
    assert sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=0).get("Messages", []) == []
