"""The long-turn port: how a turn longer than the Lambda worker allows reaches a worker that can
run it (a Fargate task in AWS, a process started for the turn in `dev`).

The run queue's consumer does not run such a turn itself: it hands the operation, with the
receipt of the queue message that brought it, to a `TurnLauncher`. The long-turn worker started
for it runs the same `Worker.handle` as the Lambda worker, holds the message away while it works
(`a2a_core.core.turn.delivery.hold`, through the receipt) and deletes it when the turn is done; if
it dies, the message comes back and the consumer launches the next attempt.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass

from a2a_core.core.broker import RunOperation

# The long-turn worker's one input, in its environment (a container override in AWS).
LAUNCH_ENV = "A2A_LONG_TURN"


@dataclass(frozen=True)
class LongTurnLaunch:
    """One turn for the long-turn worker: the operation and, when it came through a queue, the
    queue (``source``: its ARN) and receipt handle of its message."""

    operation: RunOperation
    source: str | None = None
    receipt: str | None = None

    def to_env(self) -> dict[str, str]:
        body = {"operation": self.operation.model_dump(), "source": self.source, "receipt": self.receipt}
        return {LAUNCH_ENV: json.dumps(body, separators=(",", ":"))}

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> LongTurnLaunch:
        """The launch in ``env``; raises `ValueError` naming the variable when it is missing or bad."""
        raw = env.get(LAUNCH_ENV)
        if not raw:
            raise ValueError(f"{LAUNCH_ENV} is not set: the long-turn worker runs the turn it names")
        try:
            body = json.loads(raw)
            operation = RunOperation.model_validate(body["operation"])
            return cls(operation, body.get("source"), body.get("receipt"))
        except (ValueError, KeyError, TypeError) as bad:
            raise ValueError(f"{LAUNCH_ENV} is not a long-turn launch: {bad}") from bad


class TurnLauncher(ABC):
    @abstractmethod
    async def launch(self, launch: LongTurnLaunch) -> None:
        """Start a long-turn worker for ``launch``. Raises on failure to start (the consumer then
        leaves the message on the queue, to be launched again on its next delivery)."""
