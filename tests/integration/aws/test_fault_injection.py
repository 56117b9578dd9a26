"""Two-turn tasks through the real handlers on moto while DynamoDB fails (seeded): errors botocore
retries, and errors that reach our code (after its retries, or after the write landed). Every task
ends completed, once, with one run's output, and both generations' GetTask read what the log says.
"""

from __future__ import annotations

import pytest

from a2a_core.aws.resources import ResourceNames
from a2a_core.emulator.moto_server import EmulatedAws
from fault_injection import run_faulted_tasks


@pytest.mark.parametrize(("mode", "seed"), [("retried", 11), ("surfaced", 12)])
def test_tasks_complete_once_under_dynamodb_faults(
    local_aws: EmulatedAws, aws_resources: ResourceNames, mode: str, seed: int
) -> None:
    report = run_faulted_tasks(
        local_aws, aws_resources, tasks=20, rate=0.2, modes=[mode], seed=seed, throttle_backoff=0.1
    )

    assert report.problems == []
    assert report.states == {"completed": 20}
    assert sum(report.injected.values()) > 20  # the faults did happen, and often
    assert any(":landed:" in kind for kind in report.injected)  # some after the write landed
