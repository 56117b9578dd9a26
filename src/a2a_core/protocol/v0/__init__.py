"""A2A 0.2.5 and 0.3 over JSON-RPC: what only 0.x has on the wire (`wire`: the method params and
the task's push config pair), the method names (`method_names`), the method table (`methods`) and
fasta2a's dialect of it (`fasta2a`). Their tasks, messages, parts and push configs are the domain
model's own JSON (`a2a_core.domain`, shaped like 0.3 on purpose).

The names below load with the package: every process that reaches 0.x loads them anyway.
"""

from a2a_core.protocol.v0.method_names import MethodName as MethodName
from a2a_core.protocol.v0.wire import (
    DeleteTaskPushNotificationConfigParams as DeleteTaskPushNotificationConfigParams,
)
from a2a_core.protocol.v0.wire import (
    GetTaskPushNotificationConfigParams as GetTaskPushNotificationConfigParams,
)
from a2a_core.protocol.v0.wire import (
    ListTaskPushNotificationConfigParams as ListTaskPushNotificationConfigParams,
)
from a2a_core.protocol.v0.wire import MessageSendConfiguration as MessageSendConfiguration
from a2a_core.protocol.v0.wire import MessageSendParams as MessageSendParams
from a2a_core.protocol.v0.wire import TaskIdParams as TaskIdParams
from a2a_core.protocol.v0.wire import TaskPushNotificationConfig as TaskPushNotificationConfig
from a2a_core.protocol.v0.wire import TaskQueryParams as TaskQueryParams
