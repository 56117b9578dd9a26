"""The domain model: what the core works on and what the task log stores.

Tasks, messages, parts, artifacts, status and artifact updates, push notification configs and the
agent card's description of an agent. It is **shaped like A2A 0.3's wire types** (camelCase JSON,
``kind`` tags, kebab-case states) on purpose: it is the storage format of every task log already
written, so it stays stable while protocol generations come and go. It is not a wire model of any
generation: `a2a_core.protocol.v0` serves it to 0.2.5/0.3 clients (whose wire it matches) and
`a2a_core.protocol.v1` converts it to and from 1.0's ProtoJSON. Names load on first use (PEP 562,
`a2a_core._lazy`): a process pays only for the types it touches (the JWT authorizer, the card's).
"""

from typing import TYPE_CHECKING

from a2a_core._lazy import lazy_attributes

if TYPE_CHECKING:  # the names of the package, each read from its module on first use
    from a2a_core.domain._base import A2ABaseModel as A2ABaseModel
    from a2a_core.domain._base import to_wire as to_wire
    from a2a_core.domain.card import AgentCapabilities as AgentCapabilities
    from a2a_core.domain.card import AgentCard as AgentCard
    from a2a_core.domain.card import AgentExtension as AgentExtension
    from a2a_core.domain.card import AgentInterface as AgentInterface
    from a2a_core.domain.card import AgentProvider as AgentProvider
    from a2a_core.domain.card import AgentSkill as AgentSkill
    from a2a_core.domain.card import APIKeySecurityScheme as APIKeySecurityScheme
    from a2a_core.domain.card import AuthorizationCodeOAuthFlow as AuthorizationCodeOAuthFlow
    from a2a_core.domain.card import ClientCredentialsOAuthFlow as ClientCredentialsOAuthFlow
    from a2a_core.domain.card import HTTPAuthSecurityScheme as HTTPAuthSecurityScheme
    from a2a_core.domain.card import ImplicitOAuthFlow as ImplicitOAuthFlow
    from a2a_core.domain.card import OAuth2SecurityScheme as OAuth2SecurityScheme
    from a2a_core.domain.card import OAuthFlows as OAuthFlows
    from a2a_core.domain.card import OpenIdConnectSecurityScheme as OpenIdConnectSecurityScheme
    from a2a_core.domain.card import PasswordOAuthFlow as PasswordOAuthFlow
    from a2a_core.domain.card import SecurityScheme as SecurityScheme
    from a2a_core.domain.card import SecuritySchemeBase as SecuritySchemeBase
    from a2a_core.domain.card import security_scheme_adapter as security_scheme_adapter
    from a2a_core.domain.parts import DataPart as DataPart
    from a2a_core.domain.parts import FileBase as FileBase
    from a2a_core.domain.parts import FilePart as FilePart
    from a2a_core.domain.parts import FileWithBytes as FileWithBytes
    from a2a_core.domain.parts import FileWithUri as FileWithUri
    from a2a_core.domain.parts import Part as Part
    from a2a_core.domain.parts import PartBase as PartBase
    from a2a_core.domain.parts import TextPart as TextPart
    from a2a_core.domain.parts import part_adapter as part_adapter
    from a2a_core.domain.push import PushNotificationAuthenticationInfo as PushNotificationAuthenticationInfo
    from a2a_core.domain.push import PushNotificationConfig as PushNotificationConfig
    from a2a_core.domain.tasks import Artifact as Artifact
    from a2a_core.domain.tasks import Message as Message
    from a2a_core.domain.tasks import Role as Role
    from a2a_core.domain.tasks import StreamEvent as StreamEvent
    from a2a_core.domain.tasks import Task as Task
    from a2a_core.domain.tasks import TaskArtifactUpdateEvent as TaskArtifactUpdateEvent
    from a2a_core.domain.tasks import TaskState as TaskState
    from a2a_core.domain.tasks import TaskStatus as TaskStatus
    from a2a_core.domain.tasks import TaskStatusUpdateEvent as TaskStatusUpdateEvent
    from a2a_core.domain.tasks import stream_event_adapter as stream_event_adapter

__getattr__, __dir__ = lazy_attributes(__name__)
