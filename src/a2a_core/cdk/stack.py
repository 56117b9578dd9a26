"""`A2AStack`: the default deployment, one `A2AService` and the outputs a client needs."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from aws_cdk import CfnOutput, Stack
from aws_cdk import aws_sns as sns
from constructs import Construct

from a2a_core.cdk.props import A2AServiceProps
from a2a_core.cdk.service import A2AService


class A2AStack(Stack):
    def __init__(
        self,
        scope: Construct,
        id: str,
        props: A2AServiceProps | None = None,
        *,
        alarm_topic_arn: str | None = None,
        push: bool = False,
        **stack_props: Any,
    ) -> None:
        """One `A2AService` (``props``) with the stack outputs a client needs (with API keys,
        each key's id: ``aws apigateway get-api-key --api-key <id> --include-value`` shows its value).

        ``alarm_topic_arn`` names an existing SNS topic for the alarms (``props.alarm_topic``
        needs a construct in this stack); ``push`` adds the push notifications function.
        ``stack_props`` are the usual `Stack` props (``env``, ``description``, ...)."""
        super().__init__(scope, id, **stack_props)
        props = props or A2AServiceProps()
        if alarm_topic_arn:
            topic = sns.Topic.from_topic_arn(self, "AlarmTopic", alarm_topic_arn)
            props = dataclasses.replace(props, alarm_topic=topic)
        self.service = A2AService(self, "Service", props)
        if push:
            self.service.add_push_function()
        outputs = {
            "AgentUrl": (self.service.agent_url, "The agent's JSON-RPC endpoint"),
            "AgentCardUrl": (self.service.card_url, "The agent card (A2A 0.2.5 path)"),
            "TableName": (self.service.table.table_name, "A2A_TABLE_NAME"),
            "QueueUrl": (self.service.queue.queue_url, "A2A_QUEUE_URL"),
            "BucketName": (self.service.bucket.bucket_name, "A2A_BUCKET_NAME"),
        }
        for name, key in (self.service.api_keys.keys if self.service.api_keys else {}).items():
            outputs[f"ApiKeyId{_pascal(name)}"] = (
                key.key_id,
                f"API key '{name}': aws apigateway get-api-key --include-value --api-key <this id>",
            )
        target = self.service.api.custom_domain_target
        if target is not None:
            outputs["CustomDomainTarget"] = (
                target,
                "Point the custom domain's CNAME (or alias) here",
            )
        for name, (value, description) in outputs.items():
            CfnOutput(self, name, value=value, description=description)


def _pascal(name: str) -> str:
    """An output id from a key name (outputs allow only letters and digits)."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[-_]", name))
