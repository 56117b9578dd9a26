"""A stream that outlives its connection: when it breaks before its final event, subscribe again.

Only subscriptions are retried: resending a message could start a second task. A 0.x server
resumes after ``Last-Event-ID``; a 1.0 subscription starts from a Task snapshot, which the stream
turns into only what its caller has not seen (`Delivered.news`). A task that ended while the
stream was down cannot be subscribed to (1.0; some 0.x servers): it is read instead, and folded
the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

from a2a_core.client import codec_v0
from a2a_core.client.errors import A2AClientConnectionError
from a2a_core.client.events import Event, EventStream, is_final, task_id_of
from a2a_core.client.operations import Codec
from a2a_core.client.transport import StreamBrokenError, Transport
from a2a_core.core.errors import A2AError
from a2a_core.core.requests import TaskRef
from a2a_core.domain import Task
from a2a_core.protocol.v1 import operations as v1

Connect = Callable[[], Awaitable[tuple[Codec, Transport]]]
ReadTask = Callable[[str], Awaitable[Task]]


async def resuming(
    stream: EventStream,
    name: str,
    request: Any,
    *,
    connect: Connect,
    read_task: ReadTask,
    max_reconnects: int,
) -> AsyncGenerator[Event]:
    """The events of operation ``name``, resumed up to ``max_reconnects`` times in a row
    without a new event; `A2AClientConnectionError` when it cannot be."""
    failures = 0
    while True:
        codec, transport = await connect()
        after = (
            stream.last_event_id if name == v1.SUBSCRIBE_TO_TASK.name and codec is codec_v0.CODEC else None
        )
        events = transport.stream(codec[name], request, last_event_id=after, resuming=failures > 0)
        try:
            async for event_id, event in events:
                failures = 0
                stream.last_event_id = event_id or stream.last_event_id
                stream.task_id = task_id_of(event) or stream.task_id
                for item in news(stream, event):
                    yield item
                    if is_final(item):
                        return
            reason = "the server closed the stream before the task's final event"
        except StreamBrokenError as error:
            reason = str(error)
        except A2AError:
            if name != v1.SUBSCRIBE_TO_TASK.name or stream.task_id is None:
                raise
            task = await read_task(stream.task_id)
            if not is_final(task):
                raise
            for item in news(stream, task):
                yield item
            return
        finally:
            await events.aclose()
        if stream.task_id is None or failures >= max_reconnects:
            raise A2AClientConnectionError(f"stream lost ({reason}); gave up after {failures} resumes")
        failures += 1
        await asyncio.sleep(0.2 * failures)
        name, request = v1.SUBSCRIBE_TO_TASK.name, TaskRef(stream.task_id)


def news(stream: EventStream, event: Event) -> list[Event]:
    """What ``event`` tells the caller that it has not been told (a Task: see `Delivered.news`)."""
    items: list[Event] = stream.delivered.news(event) if isinstance(event, Task) else [event]
    for item in items:
        stream.delivered.record(item)
    return items
