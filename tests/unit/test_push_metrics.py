"""The push function's delivery counters: one EMF line per invocation that counted something,
none (and no Powertools warning, which would be a log line too) for one that did not."""

from __future__ import annotations

import json

import pytest

from a2a_core.push.metrics import DELIVERED, PowertoolsMetrics


def test_an_invocation_that_counted_nothing_logs_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    metrics = PowertoolsMetrics()
    metrics.flush()  # pytest turns Powertools' "No application metrics to publish" warning into an error
    assert capsys.readouterr().out == ""


def test_counted_deliveries_are_flushed_once_as_emf(capsys: pytest.CaptureFixture[str]) -> None:
    metrics = PowertoolsMetrics()
    metrics.count(DELIVERED, 2)
    metrics.flush()
    metrics.flush()  # nothing new since
    (line,) = capsys.readouterr().out.splitlines()
    document = json.loads(line)
    assert document[DELIVERED] == [2.0] or document[DELIVERED] == 2.0
    assert document["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "A2AServerless"
