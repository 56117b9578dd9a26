"""The Bedrock models the worker may call (``A2AServiceProps.bedrock_models``), least privilege.

A model is named as the agent names it: a foundation model id (``anthropic.claude-3-haiku-20240307-
v1:0``), called in the stack's region, or a cross-region inference profile id, the model id behind
a geography (``us.``, ``eu.``, ``apac.``, ``global.``...). Bedrock's Converse and ConverseStream
(what Strands' ``BedrockModel`` and LiteLLM's ``bedrock/converse`` call) authorize as
``bedrock:InvokeModel`` and ``bedrock:InvokeModelWithResponseStream``, the actions InvokeModel and
InvokeModelWithResponseStream need too (AWS, "Prerequisites for running model inference"), so
those two actions, and nothing else, are granted.

A profile is invoked in the stack's region, and Bedrock then runs the foundation model in one of
the profile's destination regions, which IAM authorizes as well: AWS asks for the profile's ARN and
the foundation model's ARN in each region the profile routes to ("Prerequisites for inference
profiles"). AWS changes those regions (a global profile's are every commercial region), so the
region of the foundation model's ARN is ``*``, the one wildcard, and the grant holds only for calls
through that profile (the ``bedrock:InferenceProfileArn`` condition): the model itself cannot be
called directly in any region.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from aws_cdk import ArnFormat, Stack
from aws_cdk import aws_iam as iam
from constructs import IConstruct

from a2a_core.cdk.options import ConfigurationError

ACTIONS = ("bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream")
# The geographies of Bedrock's system-defined (cross-region) inference profiles.
GEOGRAPHIES = frozenset({"us", "us-gov", "eu", "apac", "jp", "au", "ca", "global"})
# provider.model[-version][:revision], as Bedrock's model ids are (ListFoundationModels).
_MODEL_ID = re.compile(r"^[a-z0-9][a-z0-9-]*\.[A-Za-z0-9][A-Za-z0-9._:-]*$")
ROUTED_REGIONS = "*"


@dataclass(frozen=True)
class BedrockModel:
    """A model id as the agent passes it to Bedrock: ``profile`` is the geography of a
    cross-region inference profile (``us``), or None for a foundation model."""

    model_id: str  # the foundation model's id, without the profile's geography
    profile: str | None = None

    @property
    def invoked_id(self) -> str:
        """The id the agent calls Bedrock with."""
        return f"{self.profile}.{self.model_id}" if self.profile else self.model_id


def parse_model(value: str) -> BedrockModel:
    """The model ``value`` names; `ConfigurationError` (naming it) for anything else."""
    if not isinstance(value, str) or not _MODEL_ID.match(value):
        raise ConfigurationError(
            f"bedrock_models: {value!r} is not a Bedrock model id: name a foundation model "
            "(anthropic.claude-3-haiku-20240307-v1:0) or a cross-region inference profile "
            "(us.anthropic.claude-sonnet-4-20250514-v1:0), as the agent passes it to Bedrock; "
            "no ARN, no wildcard"
        )
    geography, _, rest = value.partition(".")
    if geography in GEOGRAPHIES:
        if not _MODEL_ID.match(rest):
            raise ConfigurationError(
                f"bedrock_models: {value!r} names the {geography!r} inference profile of no model: "
                f"after '{geography}.' comes a foundation model id (anthropic.claude-...)"
            )
        return BedrockModel(rest, geography)
    return BedrockModel(value)


def parse_models(values: Sequence[str]) -> tuple[BedrockModel, ...]:
    """Every model of ``values``, once each; a plain string is refused (it would be its letters)."""
    if isinstance(values, str):
        raise ConfigurationError(f"bedrock_models: a sequence of model ids, got the string {values!r}")
    return tuple(dict.fromkeys(parse_model(value) for value in values))


def model_statements(scope: IConstruct, models: Sequence[BedrockModel]) -> list[iam.PolicyStatement]:
    """The statements that let a role call ``models``: the foundation models and profiles by ARN
    in the stack's region, and each profile's routed foundation model in any region, through it."""
    stack = Stack.of(scope)
    direct = [_foundation_model(stack, m.model_id, stack.region) for m in models if m.profile is None]
    profiles = [(m, _profile(stack, m)) for m in models if m.profile is not None]
    statements = []
    if direct or profiles:
        statements.append(
            iam.PolicyStatement(actions=list(ACTIONS), resources=[*direct, *(arn for _, arn in profiles)])
        )
    for model, profile_arn in profiles:
        statements.append(
            iam.PolicyStatement(
                actions=list(ACTIONS),
                resources=[_foundation_model(stack, model.model_id, ROUTED_REGIONS)],
                conditions={"StringEquals": {"bedrock:InferenceProfileArn": profile_arn}},
            )
        )
    return statements


def _foundation_model(stack: Stack, model_id: str, region: str) -> str:
    # Foundation models belong to no account: their ARNs leave it empty.
    return stack.format_arn(
        service="bedrock",
        resource="foundation-model",
        resource_name=model_id,
        region=region,
        account="",
        arn_format=ArnFormat.SLASH_RESOURCE_NAME,
    )


def _profile(stack: Stack, model: BedrockModel) -> str:
    return stack.format_arn(
        service="bedrock",
        resource="inference-profile",
        resource_name=model.invoked_id,
        arn_format=ArnFormat.SLASH_RESOURCE_NAME,
    )
