"""What a notification's body is, by the protocol generation that created its config: the
`PushPayload` port, the 0.x payload (the Task), and `PushPayloads`, which picks one per config.

A config created through 0.2.5 or 0.3 gets the Task as ``tasks/get`` returns it, as it always
has; one created through 1.0 gets a 1.0 StreamResponse (spec 1.0.1, 4.3.3), whose encoder lives
with the 1.0 codec (`a2a_core.protocol.v1.push_payload`). The composition root plugs it in as a
factory, so the push function imports the 1.0 codec only when it first notifies a 1.0 config,
and this package never imports a generation's wire types.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import ClassVar

from a2a_core.domain import Task
from a2a_core.generations import V0_3

logger = logging.getLogger(__name__)

PayloadFactory = Callable[[], "PushPayload"]


class PushPayload(ABC):
    """Encodes the task a notification is about as one generation's receivers parse it."""

    content_type: ClassVar[str]

    @abstractmethod
    def encode(self, task: Task) -> bytes:
        """The body: the same task always gives the same bytes (a replay sends what was signed)."""


class TaskPayload(PushPayload):
    """0.2.5 and 0.3: the Task itself, exactly as ``tasks/get`` (without historyLength) returns it."""

    content_type = "application/json"

    def encode(self, task: Task) -> bytes:
        return task.model_dump_json(by_alias=True, exclude_none=True).encode()


class PushPayloads:
    """The payload of each protocol generation, each built on first use.

    ``factories`` maps a config's ``generation`` to its payload's factory; 0.3's is always the
    Task. A version without one (a config written by a newer deployment, or wiring
    that left 1.0 out) gets the Task too, with a warning: a notification in a shape the receiver
    may not expect beats none at all.
    """

    def __init__(self, factories: Mapping[str, PayloadFactory] | None = None) -> None:
        self._factories: dict[str, PayloadFactory] = {V0_3.version: TaskPayload, **(factories or {})}
        self._built: dict[str, PushPayload] = {}

    def for_version(self, protocol_version: str) -> PushPayload:
        payload = self._built.get(protocol_version)
        if payload is None:
            factory = self._factories.get(protocol_version)
            if factory is None:
                logger.warning(
                    "no push payload for protocol version %r; sending its configs the %s payload",
                    protocol_version,
                    V0_3.version,
                )
                payload = self.for_version(V0_3.version)
            else:
                payload = factory()
            self._built[protocol_version] = payload
        return payload
