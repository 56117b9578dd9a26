"""`EcsTurnLauncher`: a turn longer than the Lambda worker allows, started as one ECS Fargate task.

The run queue's consumer hands the turn over (`a2a_core.core.turn.long_turns`); this calls ECS
RunTask once: the long-turn worker's task definition on Fargate (on-demand, or Spot through the
cluster's ``FARGATE_SPOT`` capacity provider), its network interface in the given subnets, the
turn in its container's environment (``A2A_LONG_TURN``). The task's ``startedBy`` and tags name
the A2A task and turn, so ``aws ecs list-tasks --started-by`` and Cost Explorer find them.

RunTask answers 200 with a ``failures`` list when it placed nothing (no Fargate capacity in the
zone, a missing task definition revision, ...): that raises, as an error answer does, so the
consumer leaves the message on the queue and its next delivery launches again. Each launch carries
a ``clientToken`` derived from the message's receipt: a RunTask the client retries (a timeout, a
5xx) starts the task once, while the next delivery of the message, with its new receipt, starts
a new one.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from dataclasses import dataclass
from typing import Any, Literal

from a2a_core.aws.calls import error_response
from a2a_core.core.turn.long_turns import LongTurnLaunch, TurnLauncher

Capacity = Literal["fargate", "fargate_spot"]
# ECS's limits: startedBy 128 letters, digits, - and _; a tag value 256 of these.
_NOT_STARTED_BY = re.compile(r"[^A-Za-z0-9_-]")
_NOT_TAG = re.compile(r"[^\w .:+=@/-]")
STARTED_BY_PREFIX = "a2a-"
TASK_TAG, RUN_TAG = "a2a:task-id", "a2a:run-id"


class EcsLaunchError(RuntimeError):
    """RunTask did not start the long-turn worker; the message names why (ECS's reason)."""


@dataclass(frozen=True)
class EcsLaunchConfig:
    """Where and how each long turn's task runs (`a2a_core.settings.Settings`' ``long_turn_*``)."""

    cluster: str
    task_definition: str
    subnets: tuple[str, ...]
    security_groups: tuple[str, ...] = ()
    public_ip: bool = True
    container: str = "worker"
    capacity: Capacity = "fargate"


class EcsTurnLauncher(TurnLauncher):
    def __init__(self, ecs: Any, config: EcsLaunchConfig) -> None:
        """``ecs``: a client with botocore's ``run_task`` (the lean `AwsJsonClient`, or botocore's)."""
        self._ecs = ecs
        self.config = config

    async def launch(self, launch: LongTurnLaunch) -> None:
        params = self.run_task_params(launch)
        try:
            answer = await asyncio.to_thread(self._ecs.run_task, **params)
        except Exception as error:
            if error_response(error) is None:
                raise
            raise EcsLaunchError(f"RunTask for task {launch.operation.task_id} failed: {error}") from error
        failures = answer.get("failures") or []
        if failures or not answer.get("tasks"):
            reasons = "; ".join(_failure(f) for f in failures) or "no task started"
            raise EcsLaunchError(
                f"RunTask started no long-turn worker for task {launch.operation.task_id}: {reasons}"
            )

    def run_task_params(self, launch: LongTurnLaunch) -> dict[str, Any]:
        """RunTask's parameters for ``launch`` (what is sent, for tests and logs)."""
        config = self.config
        operation = launch.operation
        environment = [{"name": name, "value": value} for name, value in launch.to_env().items()]
        params: dict[str, Any] = {
            "cluster": config.cluster,
            "taskDefinition": config.task_definition,
            "count": 1,
            "networkConfiguration": {
                "awsvpcConfiguration": {
                    "subnets": list(config.subnets),
                    "securityGroups": list(config.security_groups),
                    "assignPublicIp": "ENABLED" if config.public_ip else "DISABLED",
                }
            },
            "overrides": {"containerOverrides": [{"name": config.container, "environment": environment}]},
            "startedBy": _started_by(operation.task_id),
            "tags": [
                {"key": TASK_TAG, "value": _tag(operation.task_id)},
                {"key": RUN_TAG, "value": _tag(operation.run_id)},
            ],
            "propagateTags": "TASK_DEFINITION",
        }
        if launch.receipt is not None:
            params["clientToken"] = _client_token(launch)
        if config.capacity == "fargate_spot":
            params["capacityProviderStrategy"] = [{"capacityProvider": "FARGATE_SPOT", "weight": 1}]
        else:
            params["launchType"] = "FARGATE"
        if not config.security_groups:
            del params["networkConfiguration"]["awsvpcConfiguration"]["securityGroups"]  # the VPC's default
        return params


def _started_by(task_id: str) -> str:
    return (STARTED_BY_PREFIX + _NOT_STARTED_BY.sub("-", task_id))[:128]


def _tag(value: str) -> str:
    return _NOT_TAG.sub("-", value)[:256] or "-"


def _client_token(launch: LongTurnLaunch) -> str:
    """64 characters (RunTask's most), the same for retries of one delivery's launch only (a
    launch without a receipt has none: nothing but the caller would launch it again)."""
    seed = f"{launch.operation.dedup_id}\n{launch.source}\n{launch.receipt}"
    return hashlib.sha256(seed.encode()).hexdigest()


def _failure(failure: dict[str, Any]) -> str:
    parts = [str(failure.get(key)) for key in ("reason", "detail", "arn") if failure.get(key)]
    return " ".join(parts) or "unknown failure"
