"""The long-turn parts over one backend's adapters: the run queue consumer's `HandOff` and the
long-turn worker (`a2a_core.functions.long_worker`), both from the settings."""

from __future__ import annotations

from a2a_core.compose.adapters import Adapters
from a2a_core.core.turn.long_turns import HandOff, TurnLauncher
from a2a_core.core.turn.worker import Worker


def compose_hand_off(
    adapters: Adapters, worker: Worker, launcher: TurnLauncher | None = None
) -> HandOff | None:
    """How ``worker``'s consumer hands turns to the long-turn worker, through ``launcher`` (else
    the backend's); None when the project's turns fit the Lambda worker or nothing launches."""
    settings = adapters.settings
    if settings.max_turn_seconds is None:
        return None
    launcher = launcher or adapters.turn_launcher
    if launcher is None:
        return None
    return HandOff(
        worker.ledger,
        launcher,
        start_grace=settings.long_turn_start_seconds,
        retry_seconds=worker.store_retry_seconds,
        redelivery_margin=worker.redelivery_margin,
        max_attempts=worker.max_attempts,
    )


def compose_long_worker(adapters: Adapters, agent: object) -> Worker:
    """The long-turn worker: the Lambda worker's composition, with a heartbeat lease."""
    from a2a_core.compose import compose_worker

    settings = adapters.settings
    return compose_worker(adapters, agent).with_heartbeat_lease(settings.long_turn_lease_seconds)
