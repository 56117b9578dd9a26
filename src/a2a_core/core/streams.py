"""Streams of a task (send-and-stream, resubscribe/subscribe): its durable event log, served as
items of the domain model (the Task, then status and artifact updates) that each protocol
generation's codec encodes.

Streams read the log, never a process's memory, so any API instance can serve any stream, a
dropped connection loses nothing (resubscribe with ``Last-Event-ID`` continues after the last
event the client saw), and a client that goes away never affects the agent. Each event's id is
its sequence number in the task log.

An agent may answer a new task's first message with a message and no task (`TaskContext.reply`);
its stream must then be that one Message (1.0 spec 3.1.2). So the stream that started a task
holds its opening Task until the agent has shown which it does (`TaskStreams.reply_wait`): its
first event other than a bare ``working`` status (the worker's claim) decides. A reply after the
Task went out is streamed as what it also is, the task's final status with that message.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass

from pydantic import BaseModel

from a2a_core.core.backoff import Backoff
from a2a_core.core.caller import Caller
from a2a_core.core.engine import Submission, TaskEngine
from a2a_core.core.errors import A2AError, InvalidParamsError, TaskNotFoundError, UnsupportedOperationError
from a2a_core.core.requests import SendRequest, TaskRef
from a2a_core.core.tasklog.lifecycle import RETURN_STATES, is_terminal
from a2a_core.core.tasklog.records import (
    Commit,
    StatusChanged,
    event_generations,
    generation_of,
    reply_of,
    superseded,
    to_stream_event,
)
from a2a_core.core.tasklog.task_reads import TaskView
from a2a_core.domain import Message, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent

# How long the stream that started a task holds its opening Task while the agent has said nothing
# (see the module docstring): a slower agent's stream opens with the Task after this.
REPLY_WAIT_SECONDS = 5.0


@dataclass(frozen=True)
class StreamItem:
    """One event of a stream: a result (a Task or an update event), or an error, with its SSE id."""

    id: str | None
    result: BaseModel | None = None
    error: A2AError | None = None
    # On the status that ends a turn answered with a message and no task: that message.
    reply: Message | None = None


class TaskStreams:
    def __init__(
        self,
        engine: TaskEngine,
        *,
        poll_initial: float = 0.05,
        poll_max: float = 1.0,
        reply_wait: float = REPLY_WAIT_SECONDS,
    ) -> None:
        self.engine = engine
        self.ledger = engine.ledger
        self.poll_initial = poll_initial
        self.poll_max = poll_max
        self.reply_wait = reply_wait

    async def message_stream(self, request: SendRequest, caller: Caller) -> AsyncIterator[StreamItem]:
        """Create or continue the task (errors raise here, before any stream), then stream it."""
        return (await self.open(request, caller))[1]

    async def open(
        self, request: SendRequest, caller: Caller
    ) -> tuple[Submission, AsyncIterator[StreamItem]]:
        """`message_stream`, with the submission it made (the task it streams)."""
        submission = await self.engine.submit(request, caller)
        operation = submission.operation
        return submission, self._from_snapshot(
            operation.task_id, upto=submission.seq, run_id=operation.run_id
        )

    async def resubscribe(self, ref: TaskRef, caller: Caller) -> AsyncIterator[StreamItem]:
        """0.x ``tasks/resubscribe``: after ``Last-Event-ID`` when given, else from a snapshot; a
        finished task streams its last state and ends."""
        try:
            head = await self.ledger.head(ref.task_id, owner=caller.principal)
        except TaskNotFoundError as error:
            # Resubscribe is answered over SSE even when the task is unknown (or not the caller's).
            return _single(StreamItem(None, error=error))
        after = _last_event_id(caller.last_event_id)
        if after is None:
            return self._from_snapshot(ref.task_id)
        return self.follow(ref.task_id, head.context_id, after, head=head)

    async def subscribe(self, ref: TaskRef, caller: Caller) -> AsyncIterator[StreamItem]:
        """1.0 ``SubscribeToTask``: the Task first, then its updates up to a terminal state; an
        unknown task and a task that has ended are refused before the stream starts.

        Spec 1.0.1 section 3.1.6: a subscription "can be used with any task that is not in a
        terminal state" and "MUST terminate when the task reaches a terminal state", so a task
        waiting for input (or auth) keeps the stream open and it carries the follow-up turn.
        """
        head = await self.ledger.head(ref.task_id, owner=caller.principal)
        seen = ref.after_generation
        if seen is not None and 0 < seen < generation_of(head):
            # A cursor (A2A 1.1): what came after the generation the client saw, from the log.
            return self._after_generation(head, seen)
        if is_terminal(head.state):
            raise UnsupportedOperationError(
                f"Task {ref.task_id} is already {head.state.value}; there is nothing to subscribe to. "
                "Use GetTask to read it."
            )
        if seen is not None and generation_of(head):
            # Nothing missed yet: the updates from now on.
            return self.follow(
                head.task_id, head.context_id, head.last_seq, boundary=head.last_seq, to_terminal=True
            )
        return self._from_snapshot(ref.task_id, to_terminal=True)

    async def _after_generation(self, head: Commit, seen: int) -> AsyncIterator[StreamItem]:
        """The task's updates after generation ``seen`` (which it has passed), up to a terminal
        state: no gap, no repeat. An update's generation is at most its sequence number less
        one, so every one after ``seen`` lies after sequence ``seen``."""
        async for item in self.follow(head.task_id, head.context_id, seen, head=head, to_terminal=True):
            update = item.result
            if (
                isinstance(update, TaskStatusUpdateEvent | TaskArtifactUpdateEvent)
                and (update.generation or 0) <= seen
            ):
                continue
            yield item

    async def _from_snapshot(
        self, task_id: str, *, upto: int | None = None, run_id: str | None = None, to_terminal: bool = False
    ) -> AsyncIterator[StreamItem]:
        """The Task as of sequence ``upto`` (now, when None), then every event after it.

        message/stream passes the sequence its submission wrote: a worker that raced ahead must
        not have its events folded into the first Task, or the client would miss them (and,
        if the turn already ended, the final event). It passes its turn (``run_id``) too: a
        stream of a task's first turn is held while the agent may still answer with a message
        and no task, and is that message alone if it did.
        """
        view = await self.ledger.view(task_id, history_length=self.engine.history_limit(None), through=upto)
        last = view.head.last_seq
        answer = None if run_id is None else reply_of(view.head, run_id)
        if answer is not None:  # a retry of the send the agent answered with a message
            yield StreamItem(str(last), answer)
            return
        opening = StreamItem(str(last), view.task)
        if _ends(view.task.status.state, to_terminal):
            yield opening
            return
        events = self.follow(task_id, view.task.context_id, last, boundary=last, to_terminal=to_terminal)
        if run_id is not None and _undecided(view, run_id):
            async for item in self._held(opening, events):
                yield item
            return
        yield opening
        async for item in events:
            yield item

    async def _held(
        self, opening: StreamItem, events: AsyncGenerator[StreamItem, None]
    ) -> AsyncIterator[StreamItem]:
        """``events`` of a first turn, opened by ``opening`` once the agent shows that it keeps a
        task (within `reply_wait`), or by the agent's reply alone."""
        held: list[StreamItem] = []
        deadline = time.monotonic() + self.reply_wait
        pending: asyncio.Future[StreamItem] | None = None
        try:
            while (remaining := deadline - time.monotonic()) > 0:
                pending = pending or asyncio.ensure_future(anext(events))
                done, _ = await asyncio.wait({pending}, timeout=remaining)
                if not done:
                    break
                item, pending = pending.result(), None
                if item.reply is not None:
                    yield StreamItem(item.id, item.reply)
                    return
                held.append(item)
                if not _bare_working(item):
                    break
            yield opening
            for item in held:
                yield item
            if pending is not None:
                yield await pending
                pending = None
            async for item in events:
                yield item
        finally:
            if pending is not None:  # the client went away while we waited
                pending.cancel()
                with contextlib.suppress(BaseException):
                    await pending
            await events.aclose()

    async def follow(
        self,
        task_id: str,
        context_id: str,
        after: int,
        *,
        boundary: int | None = None,
        head: Commit | None = None,
        to_terminal: bool = False,
    ) -> AsyncGenerator[StreamItem, None]:
        """Events after sequence ``after`` as they are appended, until a final status (with
        ``to_terminal``, until a terminal one: an interruption's follow-up turn is streamed too).

        ``boundary`` is the end of the last commit the caller has read when it knows (``after``
        itself, from a snapshot). Without it ``after`` may fall inside a commit, or be the end of
        a task that has already returned (its final status is then sent again): the first look
        reads the head (``head``, if the caller has it) and the commits holding what follows.
        From then on each wake-up costs one read, the commits after the last one seen: it is the
        poll when nothing is new and the whole read when something is. Polls back off from
        ``poll_initial`` to ``poll_max`` while the task is quiet; stores that can (in-process)
        wake the follower on append instead.
        """
        commits: list[Commit] | None = None
        if boundary is None:
            head = head or await self.ledger.head(task_id)
            if head.last_seq > after:
                commits = await self.ledger.commits_since(task_id, after)
            elif head.state in RETURN_STATES:
                yield self._final_status(task_id, context_id, head)
                return
            else:
                commits = []  # nothing new yet: wait before reading
            boundary = min(after, head.last_seq)  # a Last-Event-ID past the head ends no commit
        backoff = Backoff(self.poll_initial, self.poll_max)
        while True:
            if commits is None:
                commits = await self.ledger.commits_after(task_id, boundary)
            while not commits:
                await self.ledger.wait_for_append(task_id, boundary, backoff.next())
                commits = await self.ledger.commits_after(task_id, boundary)
            backoff.reset()
            replaced = superseded(commits)  # catching up past a retried turn: its last attempt only
            for commit in commits:
                boundary = max(boundary, commit.last_seq)
                for event, generation in zip(commit.events, event_generations(commit), strict=True):
                    if event.seq <= after:
                        continue
                    after = event.seq
                    if commit.first_seq in replaced:
                        continue
                    update = to_stream_event(
                        event, task_id=task_id, context_id=context_id, generation=generation
                    )
                    if update is None:
                        continue
                    reply = event.status.message if isinstance(event, StatusChanged) and event.reply else None
                    yield StreamItem(str(event.seq), update, reply=reply)
                    if isinstance(update, TaskStatusUpdateEvent) and _ends(update.status.state, to_terminal):
                        return
            commits = []  # all read: wait for more before the next read

    @staticmethod
    def _final_status(task_id: str, context_id: str, head: Commit) -> StreamItem:
        """The ending of a task the client has seen every event of: its last status, again."""
        event = head.events[-1]
        assert isinstance(event, StatusChanged)  # nothing is appended after a final status
        generation = event_generations(head)[-1]
        update = to_stream_event(event, task_id=task_id, context_id=context_id, generation=generation)
        return StreamItem(str(head.last_seq), update)


def _ends(state: TaskState, to_terminal: bool) -> bool:
    """Whether a stream ends at ``state``: any state that returns a turn to the client, or with
    ``to_terminal`` only a terminal one."""
    return is_terminal(state) if to_terminal else state in RETURN_STATES


def _undecided(view: TaskView, run_id: str) -> bool:
    """Whether the agent of the task's first turn ``run_id`` has not yet shown whether it keeps a
    task (it may still answer with a message alone)."""
    run, task = view.head.run, view.task
    return (
        run is not None
        and run.run_id == run_id
        and run.turn == 1
        and task.status.state in (TaskState.submitted, TaskState.working)
        and task.status.message is None
        and not task.artifacts
    )


def _bare_working(item: StreamItem) -> bool:
    """A ``working`` status with nothing to say (the worker's claim of the turn)."""
    update = item.result
    return (
        isinstance(update, TaskStatusUpdateEvent)
        and update.status.state == TaskState.working
        and update.status.message is None
    )


async def _single(item: StreamItem) -> AsyncIterator[StreamItem]:
    yield item


def _last_event_id(value: str | None) -> int | None:
    if value is None or not value.strip():
        return None
    try:
        seq = int(value.strip())
    except ValueError:
        raise InvalidParamsError(f"Last-Event-ID {value!r} is not an event id of this server") from None
    if seq < 0:
        raise InvalidParamsError(f"Last-Event-ID {value!r} is not an event id of this server")
    return seq
