"""The 1.0 push notification payload: a StreamResponse (spec 1.0.1, 4.3.3), the JSON the HTTP+JSON
binding streams, sent as ``application/a2a+json``.

It always carries the whole ``task``, as of the notified commit: the receiver needs no follow-up
call, and, since every notification is the task's full state under an increasing event id, a
receiver that meets them out of order (a retry, a dead-letter replay) keeps the newest without
reassembling deltas, which ``statusUpdate``/``artifactUpdate`` would ask of it.
"""

from __future__ import annotations

from a2a_core.domain import Task
from a2a_core.generations import A2A_JSON
from a2a_core.protocol.v1.codec import event_to_v1
from a2a_core.protocol.v1.drafts import in_1_1
from a2a_core.protocol.v1.wire.protojson import dump_json
from a2a_core.push.payloads import PushPayload


class StreamResponsePayload(PushPayload):
    content_type = A2A_JSON

    def encode(self, task: Task) -> bytes:
        return dump_json(event_to_v1(task))


class DraftStreamResponsePayload(StreamResponsePayload):
    """The A2A 1.1 draft's payload, for configs created through it: 1.0's, with the generation."""

    def encode(self, task: Task) -> bytes:
        with in_1_1():
            return super().encode(task)
