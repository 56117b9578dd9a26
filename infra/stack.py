"""`A2AStack`: the default deployment, one `A2AService` and the outputs a client needs."""

from __future__ import annotations

import inspect
import re
from typing import Any

from aws_cdk import CfnOutput, Stack
from aws_cdk import aws_sns as sns
from constructs import Construct

from infra.service import A2AService

# Keywords A2AStack hands to its A2AService: every prop but alarm_topic, which it builds from an
# ARN. The other keywords are the usual Stack props.
SERVICE_PROPS = frozenset(inspect.signature(A2AService.__init__).parameters) - {"self", "scope", "id"}
_BUILT_HERE = {"alarm_topic"}


class A2AStack(Stack):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        alarm_topic_arn: str | None = None,
        push: bool = False,
        **props: Any,
    ) -> None:
        """One `A2AService` with the stack outputs a client needs (with API keys, each key's id:
        ``aws apigateway get-api-key --api-key <id> --include-value`` shows its value).

        Every `A2AService` prop (``agent``, ``auth``, ``jwt``, ``streaming``, ...) is passed on
        to it, except ``alarm_topic``: give ``alarm_topic_arn``. ``push`` adds the push
        notifications function. Other keywords are the usual `Stack` props."""
        service_props = {name: props.pop(name) for name in list(props) if name in SERVICE_PROPS - _BUILT_HERE}
        super().__init__(scope, id, **props)
        topic = sns.Topic.from_topic_arn(self, "AlarmTopic", alarm_topic_arn) if alarm_topic_arn else None
        self.service = A2AService(self, "Service", alarm_topic=topic, **service_props)
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
