"""A2A 0.2.5 and 0.3 over JSON-RPC: method params, method names, the method table (`methods`) and
fasta2a's dialect of it (`fasta2a`). Their tasks, messages
and parts are the domain model's own JSON (`a2a_core.domain`); what is only 0.x lives here.
Submodules load on first use."""

from typing import TYPE_CHECKING

from a2a_core._lazy import lazy_attributes

if TYPE_CHECKING:
    from a2a_core.protocol.v0.method_names import (
        MethodName as MethodName,
    )
    from a2a_core.protocol.v0.params import (
        DeleteTaskPushNotificationConfigParams as DeleteTaskPushNotificationConfigParams,
    )
    from a2a_core.protocol.v0.params import (
        GetTaskPushNotificationConfigParams as GetTaskPushNotificationConfigParams,
    )
    from a2a_core.protocol.v0.params import (
        ListTaskPushNotificationConfigParams as ListTaskPushNotificationConfigParams,
    )
    from a2a_core.protocol.v0.params import (
        MessageSendConfiguration as MessageSendConfiguration,
    )
    from a2a_core.protocol.v0.params import (
        MessageSendParams as MessageSendParams,
    )
    from a2a_core.protocol.v0.params import (
        TaskIdParams as TaskIdParams,
    )
    from a2a_core.protocol.v0.params import (
        TaskPushNotificationConfig as TaskPushNotificationConfig,
    )
    from a2a_core.protocol.v0.params import (
        TaskQueryParams as TaskQueryParams,
    )

_MODULES: dict[str, str] = {
    "MethodName": "a2a_core.protocol.v0.method_names",
    "DeleteTaskPushNotificationConfigParams": "a2a_core.protocol.v0.params",
    "GetTaskPushNotificationConfigParams": "a2a_core.protocol.v0.params",
    "ListTaskPushNotificationConfigParams": "a2a_core.protocol.v0.params",
    "MessageSendConfiguration": "a2a_core.protocol.v0.params",
    "MessageSendParams": "a2a_core.protocol.v0.params",
    "TaskIdParams": "a2a_core.protocol.v0.params",
    "TaskPushNotificationConfig": "a2a_core.protocol.v0.params",
    "TaskQueryParams": "a2a_core.protocol.v0.params",
}
__all__ = sorted(_MODULES)

__getattr__ = lazy_attributes(__name__, _MODULES)
