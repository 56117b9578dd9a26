"""The A2A domain model, version-neutral: tasks, messages, parts, artifacts, status and artifact
updates, push notification configs, and the agent card's description of an agent.

It is the task log's storage format (camelCase JSON with ``kind`` tags) and what the core works
on; every protocol generation's codec (`a2a_core.protocol.v0`, `a2a_core.protocol.v1`) converts
to and from it. Submodules load on first use (PEP 562), so a Lambda cold start pays only for the
types its request path touches.
"""

from typing import TYPE_CHECKING

from a2a_core._lazy import lazy_attributes

if TYPE_CHECKING:
    from a2a_core.types._base import (
        A2ABaseModel as A2ABaseModel,
    )
    from a2a_core.types._base import (
        to_wire as to_wire,
    )
    from a2a_core.types.card import (
        AgentCapabilities as AgentCapabilities,
    )
    from a2a_core.types.card import (
        AgentCard as AgentCard,
    )
    from a2a_core.types.card import (
        AgentExtension as AgentExtension,
    )
    from a2a_core.types.card import (
        AgentInterface as AgentInterface,
    )
    from a2a_core.types.card import (
        AgentProvider as AgentProvider,
    )
    from a2a_core.types.card import (
        AgentSkill as AgentSkill,
    )
    from a2a_core.types.card import (
        APIKeySecurityScheme as APIKeySecurityScheme,
    )
    from a2a_core.types.card import (
        AuthorizationCodeOAuthFlow as AuthorizationCodeOAuthFlow,
    )
    from a2a_core.types.card import (
        ClientCredentialsOAuthFlow as ClientCredentialsOAuthFlow,
    )
    from a2a_core.types.card import (
        HTTPAuthSecurityScheme as HTTPAuthSecurityScheme,
    )
    from a2a_core.types.card import (
        ImplicitOAuthFlow as ImplicitOAuthFlow,
    )
    from a2a_core.types.card import (
        OAuth2SecurityScheme as OAuth2SecurityScheme,
    )
    from a2a_core.types.card import (
        OAuthFlows as OAuthFlows,
    )
    from a2a_core.types.card import (
        OpenIdConnectSecurityScheme as OpenIdConnectSecurityScheme,
    )
    from a2a_core.types.card import (
        PasswordOAuthFlow as PasswordOAuthFlow,
    )
    from a2a_core.types.card import (
        SecurityScheme as SecurityScheme,
    )
    from a2a_core.types.card import (
        SecuritySchemeBase as SecuritySchemeBase,
    )
    from a2a_core.types.card import (
        security_scheme_adapter as security_scheme_adapter,
    )
    from a2a_core.types.parts import (
        DataPart as DataPart,
    )
    from a2a_core.types.parts import (
        FileBase as FileBase,
    )
    from a2a_core.types.parts import (
        FilePart as FilePart,
    )
    from a2a_core.types.parts import (
        FileWithBytes as FileWithBytes,
    )
    from a2a_core.types.parts import (
        FileWithUri as FileWithUri,
    )
    from a2a_core.types.parts import (
        Part as Part,
    )
    from a2a_core.types.parts import (
        PartBase as PartBase,
    )
    from a2a_core.types.parts import (
        TextPart as TextPart,
    )
    from a2a_core.types.parts import (
        part_adapter as part_adapter,
    )
    from a2a_core.types.push import PushNotificationAuthenticationInfo as PushNotificationAuthenticationInfo
    from a2a_core.types.push import PushNotificationConfig as PushNotificationConfig
    from a2a_core.types.tasks import (
        Artifact as Artifact,
    )
    from a2a_core.types.tasks import (
        Message as Message,
    )
    from a2a_core.types.tasks import (
        Role as Role,
    )
    from a2a_core.types.tasks import (
        StreamEvent as StreamEvent,
    )
    from a2a_core.types.tasks import (
        Task as Task,
    )
    from a2a_core.types.tasks import (
        TaskArtifactUpdateEvent as TaskArtifactUpdateEvent,
    )
    from a2a_core.types.tasks import (
        TaskState as TaskState,
    )
    from a2a_core.types.tasks import (
        TaskStatus as TaskStatus,
    )
    from a2a_core.types.tasks import (
        TaskStatusUpdateEvent as TaskStatusUpdateEvent,
    )
    from a2a_core.types.tasks import (
        stream_event_adapter as stream_event_adapter,
    )

_MODULES: dict[str, str] = {
    "A2ABaseModel": "a2a_core.types._base",
    "to_wire": "a2a_core.types._base",
    "AgentCapabilities": "a2a_core.types.card",
    "AgentCard": "a2a_core.types.card",
    "AgentExtension": "a2a_core.types.card",
    "AgentInterface": "a2a_core.types.card",
    "AgentProvider": "a2a_core.types.card",
    "AgentSkill": "a2a_core.types.card",
    "APIKeySecurityScheme": "a2a_core.types.card",
    "AuthorizationCodeOAuthFlow": "a2a_core.types.card",
    "ClientCredentialsOAuthFlow": "a2a_core.types.card",
    "HTTPAuthSecurityScheme": "a2a_core.types.card",
    "ImplicitOAuthFlow": "a2a_core.types.card",
    "OAuth2SecurityScheme": "a2a_core.types.card",
    "OAuthFlows": "a2a_core.types.card",
    "OpenIdConnectSecurityScheme": "a2a_core.types.card",
    "PasswordOAuthFlow": "a2a_core.types.card",
    "security_scheme_adapter": "a2a_core.types.card",
    "SecurityScheme": "a2a_core.types.card",
    "SecuritySchemeBase": "a2a_core.types.card",
    "DataPart": "a2a_core.types.parts",
    "FileBase": "a2a_core.types.parts",
    "FilePart": "a2a_core.types.parts",
    "FileWithBytes": "a2a_core.types.parts",
    "FileWithUri": "a2a_core.types.parts",
    "Part": "a2a_core.types.parts",
    "part_adapter": "a2a_core.types.parts",
    "PartBase": "a2a_core.types.parts",
    "TextPart": "a2a_core.types.parts",
    "PushNotificationAuthenticationInfo": "a2a_core.types.push",
    "PushNotificationConfig": "a2a_core.types.push",
    "Artifact": "a2a_core.types.tasks",
    "Message": "a2a_core.types.tasks",
    "Role": "a2a_core.types.tasks",
    "stream_event_adapter": "a2a_core.types.tasks",
    "StreamEvent": "a2a_core.types.tasks",
    "Task": "a2a_core.types.tasks",
    "TaskArtifactUpdateEvent": "a2a_core.types.tasks",
    "TaskState": "a2a_core.types.tasks",
    "TaskStatus": "a2a_core.types.tasks",
    "TaskStatusUpdateEvent": "a2a_core.types.tasks",
}
__all__ = sorted(_MODULES)

__getattr__ = lazy_attributes(__name__, _MODULES)
