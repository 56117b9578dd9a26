"""Alarms on dead letters, function errors and throttles, and API 5xx, sent to the topic."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk.assertions import Template

from a2a_core.cdk.testing import logical_id


def _alarms(template: Template) -> dict[str, Any]:
    return {
        body["Metadata"]["aws:cdk:path"].rsplit("/Alarms/", 1)[1].removesuffix("/Resource"): body[
            "Properties"
        ]
        for body in template.find_resources("AWS::CloudWatch::Alarm").values()
    }


@pytest.mark.parametrize("name", ["Api", "Worker", "DeadLetter"])
@pytest.mark.parametrize("metric", ["Errors", "Throttles"])
def test_each_function_alarms_on_any_error_and_throttle(default: Template, name: str, metric: str) -> None:
    alarm = _alarms(default)[f"{name}{metric}"]
    function = logical_id(default, "AWS::Lambda::Function", f"/Functions/{name}/Resource")
    assert alarm["Namespace"] == "AWS/Lambda"
    assert alarm["MetricName"] == metric
    assert alarm["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": function}}]
    assert (alarm["Statistic"], alarm["Threshold"], alarm["ComparisonOperator"]) == (
        "Sum",
        0,
        "GreaterThanThreshold",
    )
    assert alarm["TreatMissingData"] == "notBreaching"


def test_dead_letter_queue_depth_alarms_above_zero(default: Template) -> None:
    alarm = _alarms(default)["DeadLettersDepth"]
    queue = logical_id(default, "AWS::SQS::Queue", "/Queues/DeadLetters/Resource")
    assert (alarm["Namespace"], alarm["MetricName"]) == ("AWS/SQS", "ApproximateNumberOfMessagesVisible")
    assert alarm["Dimensions"] == [{"Name": "QueueName", "Value": {"Fn::GetAtt": [queue, "QueueName"]}}]
    assert (alarm["Statistic"], alarm["Threshold"], alarm["ComparisonOperator"]) == (
        "Maximum",
        0,
        "GreaterThanThreshold",
    )


def test_api_alarms_on_server_errors(default: Template) -> None:
    alarm = _alarms(default)["ApiServerErrors"]
    assert (alarm["Namespace"], alarm["MetricName"]) == ("AWS/ApiGateway", "5XXError")


def test_push_hook_adds_its_own_alarms(full: Template) -> None:
    assert {"PushErrors", "PushThrottles", "PushFailuresDepth", "PushDeadLettersDepth"} <= set(_alarms(full))


def test_alarms_notify_the_topic_when_given(default: Template, full: Template, topic_arn: str) -> None:
    for alarm in _alarms(default).values():
        assert "AlarmActions" not in alarm
    for alarm in _alarms(full).values():
        assert alarm["AlarmActions"] == [topic_arn]
        assert alarm["OKActions"] == [topic_arn]
