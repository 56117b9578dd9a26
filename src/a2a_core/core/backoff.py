"""How long to wait between looks at something that cannot tell us it changed.

A blocking send and a stream wait on the task log (stores that cannot push appends to us are
polled), the CLI polls ``tasks/get``: each waits a short time first, since an answer is often a
moment away, and longer while nothing happens, so an idle wait costs few reads.
"""

from __future__ import annotations


class Backoff:
    def __init__(self, initial: float = 0.05, maximum: float = 1.0, *, factor: float = 1.5) -> None:
        self.initial = initial
        self.maximum = maximum
        self.factor = factor
        self._next = initial

    def next(self) -> float:
        """How long to wait now; each call makes the next wait longer, up to ``maximum``."""
        delay = self._next
        self._next = min(delay * self.factor, self.maximum)
        return delay

    def reset(self) -> None:
        """Start again from ``initial``: something changed, and more may follow soon."""
        self._next = self.initial
