"""The 1.0 AgentCard and everything under it except the security schemes (`security`).

REQUIRED scalars and lists of the card (``name``, ``skills``, ...) are always sent but read
leniently: a proto-based server omits an empty REQUIRED field (``"description": ""``,
``"skills": []``) because it cannot tell it from unset, and its card must still parse.
"""

from __future__ import annotations

from pydantic import Field, StrictBool

from a2a_core.protocol.v1.wire.protojson import ImplicitBool, ProtoModel, RequiredStr, Str, Struct
from a2a_core.protocol.v1.wire.security import SecurityRequirement, SecurityScheme


class AgentInterface(ProtoModel):
    url: RequiredStr
    protocol_binding: RequiredStr
    protocol_version: RequiredStr
    tenant: Str = None


class AgentProvider(ProtoModel):
    url: RequiredStr
    organization: RequiredStr


class AgentExtension(ProtoModel):
    uri: Str = None
    description: Str = None
    required: ImplicitBool = None
    params: Struct | None = None


class AgentCapabilities(ProtoModel):
    # `optional bool` in the proto: an explicit false is kept (and signed).
    streaming: StrictBool | None = None
    push_notifications: StrictBool | None = None
    extensions: list[AgentExtension] | None = None
    extended_agent_card: StrictBool | None = None


class AgentSkill(ProtoModel):
    id: RequiredStr
    name: str = ""
    description: str = ""
    tags: list[str] = Field(default_factory=list)
    examples: list[str] | None = None
    input_modes: list[str] | None = None
    output_modes: list[str] | None = None
    security_requirements: list[SecurityRequirement] | None = None


class AgentCardSignature(ProtoModel):
    """A JWS in flattened form with a detached payload (spec 8.4.2)."""

    protected: RequiredStr
    signature: RequiredStr
    header: Struct | None = None


class AgentCard(ProtoModel):
    name: str = ""
    description: str = ""
    supported_interfaces: list[AgentInterface] = Field(default_factory=list)
    version: str = ""
    capabilities: AgentCapabilities = Field(default_factory=AgentCapabilities)
    default_input_modes: list[str] = Field(default_factory=list)
    default_output_modes: list[str] = Field(default_factory=list)
    skills: list[AgentSkill] = Field(default_factory=list)
    provider: AgentProvider | None = None
    # `optional string`: kept when set, even to "".
    documentation_url: str | None = None
    icon_url: str | None = None
    security_schemes: dict[str, SecurityScheme] | None = None
    security_requirements: list[SecurityRequirement] | None = None
    signatures: list[AgentCardSignature] | None = None
