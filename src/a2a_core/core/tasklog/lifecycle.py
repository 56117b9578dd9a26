"""The task state machine: the one place that decides which state changes are legal.

It is the diagram of the protocol documents (seeds 000-002), plus the edges a durable,
queue-driven server needs and the diagram leaves implicit:

- any non-terminal state may become ``canceled`` (``tasks/cancel`` is valid until a task ends,
  including while it still waits in the queue) or ``failed`` (a worker that runs out of time or
  a message that lands in the dead-letter queue must end the task, or clients wait forever);
- ``working -> working`` carries progress messages; ``working -> auth-required`` lets an agent
  ask for credentials mid-run; ``working -> rejected`` lets an agent decline a request once it
  has looked at it (a worker marks a task working as soon as it picks it up).

Terminal states are final: nothing leaves them.
"""

from __future__ import annotations

from a2a_core.core.errors import InvalidTransitionError
from a2a_core.domain import TaskState

TERMINAL_STATES = frozenset({TaskState.completed, TaskState.canceled, TaskState.failed, TaskState.rejected})
# States in which the agent's turn is over and the task waits for the client.
INTERRUPTED_STATES = frozenset({TaskState.input_required, TaskState.auth_required})
# A stream or a blocking call stops waiting once the task reaches one of these.
RETURN_STATES = TERMINAL_STATES | INTERRUPTED_STATES

_S = TaskState
_DIAGRAM: dict[TaskState, frozenset[TaskState]] = {
    _S.submitted: frozenset({_S.working, _S.rejected, _S.auth_required}),
    _S.working: frozenset({_S.completed, _S.failed, _S.input_required, _S.canceled}),
    _S.input_required: frozenset({_S.working, _S.canceled}),
    _S.auth_required: frozenset({_S.working, _S.rejected}),
    _S.unknown: frozenset({_S.working, _S.failed}),
}
_EXTENSIONS: dict[TaskState, frozenset[TaskState]] = {
    _S.working: frozenset({_S.working, _S.auth_required, _S.rejected}),
}
ALLOWED: dict[TaskState, frozenset[TaskState]] = {
    state: targets | _EXTENSIONS.get(state, frozenset()) | {_S.canceled, _S.failed}
    for state, targets in _DIAGRAM.items()
}


def is_terminal(state: TaskState) -> bool:
    return state in TERMINAL_STATES


def can_transition(current: TaskState, new: TaskState) -> bool:
    return new in ALLOWED.get(current, frozenset())


def check_transition(current: TaskState, new: TaskState) -> None:
    """Raise `InvalidTransitionError` unless ``current -> new`` is a legal change."""
    if not can_transition(current, new):
        if is_terminal(current):
            raise InvalidTransitionError(
                f"Task is already {current.value}; a terminal task cannot change state"
            )
        raise InvalidTransitionError(f"A task cannot go from {current.value} to {new.value}")
