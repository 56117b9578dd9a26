"""What `AgentHarness` hands a test: a task, or a streamed turn, with the parts a test asserts on
one attribute away (its state, what the agent said, an artifact's text)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from a2a_core.domain import (
    Artifact,
    DataPart,
    Message,
    Part,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatusUpdateEvent,
    TextPart,
)

Event = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent


def text_of(parts: Sequence[Part]) -> str:
    """The text parts of ``parts``, joined (data and file parts have none)."""
    return "".join(part.text for part in parts if isinstance(part, TextPart))


@dataclass(frozen=True)
class TaskResult:
    """A task as a client would read it, after the agent's turn.

    ``state`` is a `TaskState`, a ``str`` enum, so ``task.state == "input-required"`` holds;
    ``text`` is what the agent said with that state (``ctx.ask(...)``, ``ctx.complete(...)``, the
    returned content), ``""`` when it said nothing. ``task`` is the whole domain `Task`.
    """

    task: Task
    # The exception the agent raised in its last turn, when the harness was told not to raise it.
    error: BaseException | None = field(default=None, compare=False)
    # The message the agent answered with instead of a task (``ctx.reply`` on a first turn):
    # what SendMessage returned. The task holds it too, completed, as its status message.
    reply: Message | None = field(default=None, compare=False)

    @property
    def id(self) -> str:
        return self.task.id

    @property
    def context_id(self) -> str:
        return self.task.context_id

    @property
    def state(self) -> TaskState:
        return self.task.status.state

    @property
    def message(self) -> Message | None:
        """The message that came with the current state, if any."""
        return self.task.status.message

    @property
    def text(self) -> str:
        return text_of(self.message.parts) if self.message else ""

    @property
    def data(self) -> dict[str, object] | None:
        """The first data part of the status message (a ``dict`` the agent returned), if any."""
        parts = self.message.parts if self.message else []
        return next((part.data for part in parts if isinstance(part, DataPart)), None)

    @property
    def history(self) -> list[Message]:
        return list(self.task.history or [])

    @property
    def agent_messages(self) -> list[str]:
        """The text of each agent message in the history, oldest first (progress updates among them)."""
        return [text_of(m.parts) for m in self.history if m.role == Role.agent]

    @property
    def artifacts(self) -> list[Artifact]:
        return list(self.task.artifacts or [])

    def artifact(self, name: str) -> str:
        """The text of the artifact named ``name`` (or with that id), its chunks joined."""
        for artifact in self.artifacts:
            if name in (artifact.name, artifact.artifact_id):
                return text_of(artifact.parts)
        names = [artifact.name or artifact.artifact_id for artifact in self.artifacts]
        raise KeyError(f"task {self.id} has no artifact {name!r}; it has {names or 'none'}")

    def __repr__(self) -> str:
        return f"TaskResult(id={self.id!r}, state={self.state.value!r}, text={self.text!r})"


@dataclass(frozen=True)
class StreamedTurn:
    """One streamed turn: every event in the order a streaming client got it, then the task."""

    events: list[Event]
    task: TaskResult

    @property
    def states(self) -> list[TaskState]:
        """The state the stream opened with, then the state of each status update."""
        return [
            event.status.state for event in self.events if isinstance(event, Task | TaskStatusUpdateEvent)
        ]

    @property
    def chunks(self) -> list[str]:
        """The text of each artifact update, in order (a streamed artifact's chunks)."""
        return [text_of(e.artifact.parts) for e in self.events if isinstance(e, TaskArtifactUpdateEvent)]

    @property
    def messages(self) -> list[str]:
        """The text of each status update's message (progress, then the turn's last words)."""
        return [
            text_of(e.status.message.parts)
            for e in self.events
            if isinstance(e, TaskStatusUpdateEvent) and e.status.message is not None
        ]

    @property
    def state(self) -> TaskState:
        return self.task.state

    @property
    def text(self) -> str:
        return self.task.text
