"""`SqsBroker` against moto's SQS server."""

from __future__ import annotations

import asyncio

import pytest

from a2a_core.aws.resources import ResourceNames
from a2a_core.aws.sqs_broker import SqsBroker
from a2a_core.compose.aws import build_aws_adapters
from a2a_core.core.broker import RunOperation
from a2a_core.core.errors import BrokerUnavailableError
from a2a_core.emulator.moto_server import EmulatedAws
from a2a_core.settings import Settings, SettingsError
from aws_events import receive


def test_enqueue_puts_the_operation_on_the_queue(
    local_aws: EmulatedAws, aws_resources: ResourceNames
) -> None:
    sqs = local_aws.clients.sqs
    operation = RunOperation(task_id="task-1", run_id="msg-1")
    asyncio.run(SqsBroker(sqs, aws_resources.queue_url).enqueue(operation))
    messages = receive(sqs, aws_resources.queue_url)
    assert [RunOperation.model_validate_json(m["Body"]) for m in messages] == [operation]


def test_an_unreachable_queue_is_a_broker_error_that_tells_the_client_nothing_about_aws(
    local_aws: EmulatedAws, aws_resources: ResourceNames, caplog: pytest.LogCaptureFixture
) -> None:
    missing = aws_resources.queue_url + "-gone"
    broker = SqsBroker(local_aws.clients.sqs, missing)
    with pytest.raises(BrokerUnavailableError) as raised:
        asyncio.run(broker.enqueue(RunOperation(task_id="task-1", run_id="msg-1")))
    assert raised.value.code == -32603
    assert raised.value.message == BrokerUnavailableError.default_message
    assert "NonExistentQueue" in caplog.text  # the cause is in the log, for the operator


def test_the_adapters_name_the_queue_setting_they_are_missing(local_aws: EmulatedAws) -> None:
    settings = Settings(backend="aws", table_name="tasks", bucket_name="parts")
    with pytest.raises(SettingsError, match="A2A_QUEUE_URL"):
        build_aws_adapters(settings, local_aws.clients)
