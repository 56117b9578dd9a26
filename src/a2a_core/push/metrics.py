"""Delivery counters: Powertools (CloudWatch EMF) in Lambda, plain counters locally and in tests."""

from __future__ import annotations

import threading
from collections import Counter
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from aws_lambda_powertools import Metrics

DELIVERED = "NotificationsDelivered"
RETRIED = "NotificationRetries"
FAILED = "NotificationsFailed"  # dead-lettered: refused at delivery or out of attempts


class DeliveryMetrics(Protocol):
    def count(self, name: str, value: int = 1) -> None: ...

    def flush(self) -> None: ...


class CountingMetrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts: Counter[str] = Counter()

    def count(self, name: str, value: int = 1) -> None:
        with self._lock:
            self.counts[name] += value

    def flush(self) -> None:
        pass


class PowertoolsMetrics:
    """Counts as Powertools metrics; `flush` (once per invocation) prints them as EMF, and
    prints nothing when nothing was counted (Powertools would print a warning: a log line per
    invocation that says nothing).

    The namespace comes from ``POWERTOOLS_METRICS_NAMESPACE`` (Powertools reads it), else
    ``default_namespace``.
    """

    def __init__(self, metrics: Metrics | None = None, *, default_namespace: str = "A2AServerless") -> None:
        from aws_lambda_powertools import Metrics

        self._metrics = metrics or Metrics()
        if not self._metrics.namespace:
            self._metrics.namespace = default_namespace
        self._counted = False

    def count(self, name: str, value: int = 1) -> None:
        from aws_lambda_powertools.metrics import MetricUnit

        self._metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
        self._counted = True

    def flush(self) -> None:
        if not self._counted:
            return
        self._counted = False
        self._metrics.flush_metrics(raise_on_empty_metrics=False)
