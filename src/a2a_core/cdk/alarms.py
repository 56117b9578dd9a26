"""CloudWatch alarms on what needs a human: dead letters, function errors, throttles, API 5xx,
the long-turn worker's errors."""

from __future__ import annotations

from collections.abc import Callable

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sqs as sqs
from constructs import Construct

_PERIOD = Duration.minutes(1)


class ServiceAlarms(Construct):
    def __init__(self, scope: Construct, id: str, *, topic: sns.ITopic | None = None) -> None:
        super().__init__(scope, id)
        self._action = actions.SnsAction(topic) if topic is not None else None
        self.alarms: dict[str, cloudwatch.Alarm] = {}

    def watch_function(self, name: str, function: lambda_.IFunction) -> None:
        self._above_zero(
            f"{name}Errors",
            function.metric_errors(period=_PERIOD, statistic="Sum"),
            f"The {name} function raised errors or timed out.",
        )
        self._above_zero(
            f"{name}Throttles",
            function.metric_throttles(period=_PERIOD, statistic="Sum"),
            f"The {name} function was throttled (account or reserved concurrency exhausted).",
        )

    def watch_dead_letters(self, name: str, queue: sqs.IQueue) -> None:
        # The dead-letter function drains this queue within seconds; a message that stays visible
        # means the dead-letter function itself is failing, and tasks may be left unfinished.
        self._above_zero(
            f"{name}Depth",
            queue.metric_approximate_number_of_messages_visible(period=_PERIOD, statistic="Maximum"),
            f"Messages are waiting in {name}.",
        )

    def watch_api(self, server_errors: Callable[[Duration], cloudwatch.Metric]) -> None:
        """``server_errors(period)``: the API's 5xx count metric (REST or HTTP API)."""
        self._above_zero(
            "ApiServerErrors",
            server_errors(_PERIOD),
            "The API answered with HTTP 5xx (function errors, timeouts or integration failures).",
        )

    def watch_long_turns(self, errors: cloudwatch.Metric) -> None:
        """``errors``: what the long-turn worker's tasks logged as errors (`a2a_core.cdk.long_worker`)."""
        self._above_zero(
            "LongTurnErrors",
            errors,
            "The long-turn worker (ECS Fargate) logged errors: a turn failed, or a task crashed.",
        )

    def _above_zero(self, name: str, metric: cloudwatch.Metric, description: str) -> None:
        alarm = metric.create_alarm(
            self,
            name,
            alarm_description=description,
            threshold=0,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=1,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        if self._action is not None:
            alarm.add_alarm_action(self._action)
            alarm.add_ok_action(self._action)
        self.alarms[name] = alarm
