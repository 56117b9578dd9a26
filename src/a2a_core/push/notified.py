"""Which commits are notified: the policy the push notifier applies, and which the task store's
writers read to mark commits for the push function (`a2a_core.aws.dynamodb.push_marks`), without
importing the notifier and its HTTP client."""

from __future__ import annotations

from typing import Literal

from a2a_core.core.tasklog.lifecycle import RETURN_STATES
from a2a_core.core.tasklog.records import ArtifactUpdated, Commit, StatusChanged

PushEvents = Literal["status", "all"]
# Where a turn ends: the client must act (input, auth) or can collect the result (terminal).
NOTIFIED_STATES = RETURN_STATES


def notified_seq(commit: Commit, events: PushEvents = "status") -> int | None:
    """The seq a commit is notified under (its last notified event's), or None when it is not
    notified under ``events``."""
    if events == "all":
        kinds: tuple[type, ...] = (StatusChanged, ArtifactUpdated)
        seqs = [e.seq for e in commit.events if isinstance(e, kinds)]
        return seqs[-1] if seqs else None
    statuses = [e for e in commit.events if isinstance(e, StatusChanged)]
    notified = [e.seq for e in statuses if e.status.state in NOTIFIED_STATES]
    return notified[-1] if notified else None
