"""Domain errors, each carrying the JSON-RPC code A2A gives its condition, stated here once.

The codes are the protocol's, not a generation's: 0.2.5 and 0.3 define -32001..-32006 (and 0.3
-32007), and 1.0 kept them all and added -32007..-32009, so a code here is what every generation
answers. Where a generation answers an error differently it says so in its own table, in view:
1.0 answers `PushConfigNotFoundError` as `TaskNotFoundError` and `TaskTerminalError` as
`UnsupportedOperationError` (`a2a_core.protocol.v1.errors.ANSWERED_AS`), while 0.x answers both as
what they are here, `InvalidParamsError` (-32602). The client turns codes back into these classes
(`PROTOCOL_ERRORS`). Each protocol layer renders them in one place; everything below it raises
them and never builds error payloads itself.
"""

from __future__ import annotations

from typing import Any, ClassVar

# Metadata key on a task's failure message naming the JSON-RPC error a blocking caller gets for it.
ERROR_CODE_KEY = "a2aServerlessErrorCode"


class A2AError(Exception):
    code: ClassVar[int] = -32603
    default_message: ClassVar[str] = "Internal error"

    def __init__(self, message: str | None = None, *, data: Any = None) -> None:
        self.message = message or self.default_message
        self.data = data
        super().__init__(self.message)


class JSONParseError(A2AError):
    code = -32700
    default_message = "Invalid JSON payload"


class InvalidRequestError(A2AError):
    code = -32600
    default_message = "Request payload validation error"


class MethodNotFoundError(A2AError):
    code = -32601
    default_message = "Method not found"


class InvalidParamsError(A2AError):
    code = -32602
    default_message = "Invalid parameters"


class InternalError(A2AError):
    code = -32603
    default_message = "Internal error"


class StoreUnavailableError(InternalError):
    """The task store could not be reached or refused the call (throttling, missing table, access).

    Adapters log the cause; clients only learn that the call may be retried.
    """

    default_message = "The task store is unavailable; retry the request"


class BrokerUnavailableError(InternalError):
    """The run queue refused or could not be reached; the task is stored but not yet queued.

    The client may retry the same request: the engine finds the stored task and enqueues again.
    """

    default_message = "The task could not be queued for a worker; try again shortly"


class SignerUnavailableError(InternalError):
    """The key that signs push notifications could not be used (unreachable, throttled, access
    denied). Adapters log the cause; the push function retries the notification."""

    default_message = "The push notification signing key is unavailable"


class TaskNotFoundError(A2AError):
    code = -32001
    default_message = "Task not found"


class TaskNotCancelableError(A2AError):
    code = -32002
    default_message = "Task cannot be canceled"


class PushNotificationNotSupportedError(A2AError):
    code = -32003
    default_message = "Push Notification is not supported"


class UnsupportedOperationError(A2AError):
    code = -32004
    default_message = "This operation is not supported"


class ContentTypeNotSupportedError(A2AError):
    code = -32005
    default_message = "Incompatible content types"


class InvalidAgentResponseError(A2AError):
    code = -32006
    default_message = "Invalid agent response"


class ExtendedAgentCardNotConfiguredError(A2AError):
    """A2A 1.0: the agent declares an extended card but has none configured."""

    code = -32007
    default_message = "Extended Agent Card is not configured"


class ExtensionSupportRequiredError(A2AError):
    """A2A 1.0: the card marks an extension required and the request did not declare it."""

    code = -32008
    default_message = "Extension support required"


class VersionNotSupportedError(A2AError):
    """A2A 1.0: the ``A2A-Version`` the request asked for is not served here."""

    code = -32009
    default_message = "Version not supported"


class TaskGenerationMismatchError(A2AError):
    """A2A 1.1 (draft): a send's ``ifGenerationMatch`` is not the task's generation; nothing was
    written (HTTP 409, reason TASK_GENERATION_MISMATCH)."""

    code = -32010
    default_message = "Task generation mismatch"


# The errors the protocol defines, by code: the one table of their names, codes and default
# messages. The client's mapping of error objects to exceptions is built from it.
PROTOCOL_ERRORS: dict[int, type[A2AError]] = {
    error.code: error
    for error in (
        JSONParseError,
        InvalidRequestError,
        MethodNotFoundError,
        InvalidParamsError,
        InternalError,
        TaskNotFoundError,
        TaskNotCancelableError,
        PushNotificationNotSupportedError,
        UnsupportedOperationError,
        ContentTypeNotSupportedError,
        InvalidAgentResponseError,
        ExtendedAgentCardNotConfiguredError,
        ExtensionSupportRequiredError,
        VersionNotSupportedError,
        TaskGenerationMismatchError,
    )
}


class PushConfigNotFoundError(InvalidParamsError):
    """``tasks/pushNotificationConfig/get`` named a config the (existing) task does not have."""


class InvalidTransitionError(InvalidParamsError):
    """A write asked for a state change the task lifecycle does not allow."""


class TaskTerminalError(InvalidParamsError):
    """A message named a task that has ended: 0.x answers -32602, A2A 1.0 UnsupportedOperation."""


class ConcurrentUpdateError(Exception):
    """Another writer appended to the task log first; reload and decide again.

    Raised by store adapters when the optimistic version check fails. Never reaches a client:
    the task ledger retries or turns it into a lifecycle error.
    """


class TaskCanceledError(Exception):
    """Raised inside an agent's run when its task was canceled by a client."""


class TurnLostError(TaskCanceledError):
    """Raised inside an agent's run when its turn is no longer its own: another worker took the
    turn over (this one's lease ran out) and started a new attempt, or the turn ended without it.
    Nothing this run writes is kept; the worker stops it."""
