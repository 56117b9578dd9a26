"""The A2A 0.2.5 / 0.3 JSON-RPC method names, defined once: the request models, the server's method
table and the client all name methods with these."""

from enum import StrEnum


class MethodName(StrEnum):
    message_send = "message/send"
    message_stream = "message/stream"
    tasks_get = "tasks/get"
    tasks_cancel = "tasks/cancel"
    tasks_resubscribe = "tasks/resubscribe"
    push_config_set = "tasks/pushNotificationConfig/set"
    push_config_get = "tasks/pushNotificationConfig/get"
    push_config_list = "tasks/pushNotificationConfig/list"
    push_config_delete = "tasks/pushNotificationConfig/delete"
    # 0.3 only: the extended card over JSON-RPC (0.2.5 has GET /agent/authenticatedExtendedCard).
    extended_card = "agent/getAuthenticatedExtendedCard"
