from __future__ import annotations

import pytest

from a2a_core.core.errors import InvalidTransitionError
from a2a_core.core.tasklog.lifecycle import TERMINAL_STATES, can_transition, check_transition
from a2a_core.domain import TaskState as S

# The protocol's state diagram (seeds 000-002), edge by edge.
DIAGRAM = [
    (S.submitted, S.working),
    (S.submitted, S.rejected),
    (S.submitted, S.auth_required),
    (S.working, S.completed),
    (S.working, S.failed),
    (S.working, S.input_required),
    (S.working, S.canceled),
    (S.input_required, S.working),
    (S.input_required, S.canceled),
    (S.auth_required, S.working),
    (S.auth_required, S.rejected),
    (S.unknown, S.working),
    (S.unknown, S.failed),
]


@pytest.mark.parametrize(("current", "new"), DIAGRAM)
def test_every_diagram_edge_is_allowed(current: S, new: S) -> None:
    check_transition(current, new)


@pytest.mark.parametrize("current", sorted(set(S) - TERMINAL_STATES))
def test_any_live_task_can_be_canceled_or_failed(current: S) -> None:
    assert can_transition(current, S.canceled)
    assert can_transition(current, S.failed)


@pytest.mark.parametrize("current", sorted(TERMINAL_STATES))
@pytest.mark.parametrize("new", list(S))
def test_terminal_states_are_final(current: S, new: S) -> None:
    with pytest.raises(InvalidTransitionError, match="terminal"):
        check_transition(current, new)


@pytest.mark.parametrize(
    ("current", "new"),
    [
        (S.submitted, S.completed),
        (S.submitted, S.input_required),
        (S.input_required, S.completed),
        (S.auth_required, S.input_required),
        (S.working, S.submitted),
    ],
)
def test_edges_outside_the_diagram_are_refused(current: S, new: S) -> None:
    with pytest.raises(InvalidTransitionError, match=f"from {current.value} to {new.value}"):
        check_transition(current, new)
