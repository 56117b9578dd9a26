"""Printing one conversation with an agent as it happens, for a person or (``--json``) a script."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TextIO

from a2a_core.cli.render import artifact_text, parts_text
from a2a_core.client.events import Event, is_final
from a2a_core.domain import (
    Message,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
    to_wire,
)

UNSUCCESSFUL = frozenset({TaskState.failed, TaskState.rejected, TaskState.canceled, TaskState.auth_required})


def exit_code(state: TaskState) -> int:
    return 1 if state in UNSUCCESSFUL else 0


@dataclass(frozen=True)
class Outcome:
    """How a turn ended: the task's state (None for a plain message reply) and its ids; when the
    task waits for input, what it asked (its status message)."""

    state: TaskState | None
    task_id: str | None
    context_id: str | None
    question: Message | None = None


class Printer:
    def __init__(self, stdout: TextIO, stderr: TextIO, *, json_mode: bool) -> None:
        """The agent's words go to ``stdout``, states and progress to ``stderr``.

        In JSON mode every event is one JSON line on ``stdout`` and nothing else is printed.
        Each message is printed once and each artifact's text once, however often snapshots
        (a stream's first event, a poll) repeat them.
        """
        self.stdout = stdout
        self.stderr = stderr
        self.json_mode = json_mode
        self._seen: set[str] = set()
        self._printed: dict[str, str] = {}  # artifact id -> its text printed so far
        self._state: TaskState | None = None
        self._status_message: Message | None = None
        self._task_id: str | None = None
        self._context_id: str | None = None
        self._replied = False
        self._open_artifact: str | None = None

    def baseline(self, task: Task) -> None:
        """What a task held before this conversation picked it up: not news, not printed."""
        self._seen.update(message.message_id for message in task.history or [])
        self._printed.update((a.artifact_id, artifact_text(a)) for a in task.artifacts or [])

    def event(self, event: Event) -> None:
        """A streamed event, or the final result of a polled turn."""
        if isinstance(event, Message):
            self._replied = True
            self._task_id = event.task_id or self._task_id
            self._context_id = event.context_id or self._context_id
        else:
            self._task_id = event.id if isinstance(event, Task) else event.task_id
            self._context_id = event.context_id
        if self.json_mode:
            if not isinstance(event, Message | TaskArtifactUpdateEvent):
                self._state = event.status.state
                self._status_message = event.status.message
            self.stdout.write(json.dumps(to_wire(event), ensure_ascii=False) + "\n")
            self.stdout.flush()
        elif isinstance(event, Message):
            self._say(parts_text(event.parts))
        elif isinstance(event, TaskStatusUpdateEvent):
            self._status(event.status)
        elif isinstance(event, TaskArtifactUpdateEvent):
            artifact = event.artifact
            before = self._printed.get(artifact.artifact_id, "") if event.append else ""
            self._artifact(artifact.artifact_id, before + artifact_text(artifact), event.last_chunk)
        else:
            self.progress(event)

    def progress(self, task: Task) -> None:
        """A task snapshot (a stream's first event, or a poll): whatever in it is new."""
        self._task_id, self._context_id = task.id, task.context_id
        if self.json_mode:
            return
        status_id = task.status.message.message_id if task.status.message else None
        for message in task.history or []:
            if message.role == Role.agent and message.message_id not in (self._seen | {status_id}):
                self._seen.add(message.message_id)
                self._note(f"  {parts_text(message.parts)}")
        self._state_change(task.status.state)
        for artifact in task.artifacts or []:
            self._artifact(artifact.artifact_id, artifact_text(artifact), is_final(task) or None)
        self._status(task.status)

    def finish(self) -> Outcome:
        """End the turn: close an open line and say how it ended."""
        self._end_line()
        state = None if self._replied else self._state
        self._replied = False
        question = self._status_message if state == TaskState.input_required else None
        return Outcome(state, self._task_id, self._context_id, question)

    def _state_change(self, state: TaskState) -> None:
        if state != self._state:
            self._state = state
            self._note(f"[{state.value}]")

    def _status(self, status: TaskStatus) -> None:
        self._state_change(status.state)
        self._status_message = status.message
        message = status.message
        if message is None or message.message_id in self._seen:
            return
        self._seen.add(message.message_id)
        if status.state == TaskState.working:
            self._note(f"  {parts_text(message.parts)}")
        else:
            self._say(parts_text(message.parts))

    def _artifact(self, artifact_id: str, text: str, complete: bool | None) -> None:
        """Print the part of an artifact (``text`` is all of it so far) not printed yet."""
        printed = self._printed.get(artifact_id)
        continues = printed is not None and text.startswith(printed)
        new = text[len(printed) :] if printed is not None and continues else text
        if new:
            if self._open_artifact != artifact_id or not continues:
                self._end_line()
            self.stdout.write(new)
            self.stdout.flush()
            self._printed[artifact_id] = text
            self._open_artifact = artifact_id
        if complete and self._open_artifact == artifact_id:
            self._end_line()

    def _say(self, text: str) -> None:
        self._end_line()
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def note(self, text: str) -> None:
        """A line for the person watching, not the answer (stderr)."""
        self._note(text)

    def _note(self, text: str) -> None:
        if self.stdout.isatty() and self.stderr.isatty():  # one screen: keep the lines apart
            self._end_line()
        self.stderr.write(text + "\n")
        self.stderr.flush()

    def _end_line(self) -> None:
        if self._open_artifact is not None:
            self._open_artifact = None
            self.stdout.write("\n")
            self.stdout.flush()
