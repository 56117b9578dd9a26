"""What `a2a-serverless send`, `card` and `get` show a person, from events alone."""

from __future__ import annotations

import io
import json

from a2a_core.cli.printer import Outcome, Printer, exit_code
from a2a_core.cli.render import card_summary, task_summary
from a2a_core.domain import (
    AgentCapabilities,
    AgentCard,
    AgentSkill,
    APIKeySecurityScheme,
    Artifact,
    HTTPAuthSecurityScheme,
    Message,
    Role,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
    TextPart,
)
from a2a_core.testing import text_of


def _message(text: str, role: Role = Role.agent, message_id: str | None = None) -> Message:
    return Message(role=role, parts=[TextPart(text=text)], message_id=message_id or text)


def _artifact(text: str, *, append: bool = False, last: bool = False) -> TaskArtifactUpdateEvent:
    artifact = Artifact(artifact_id="draft", name="draft", parts=[TextPart(text=text)])
    return TaskArtifactUpdateEvent(
        task_id="t", context_id="c", artifact=artifact, append=append, last_chunk=last
    )


def _status(state: TaskState, text: str | None = None, *, final: bool = False) -> TaskStatusUpdateEvent:
    status = TaskStatus(state=state, message=_message(text) if text else None)
    return TaskStatusUpdateEvent(task_id="t", context_id="c", status=status, final=final)


def _task(state: TaskState, *, artifact: str | None = None, history: list[Message] | None = None) -> Task:
    artifacts = [Artifact(artifact_id="draft", parts=[TextPart(text=artifact)])] if artifact else None
    return Task(id="t", context_id="c", status=TaskStatus(state=state), artifacts=artifacts, history=history)


def _printer(json_mode: bool = False) -> tuple[Printer, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return Printer(out, err, json_mode=json_mode), out, err


def test_a_streamed_turn_prints_chunks_once_even_after_a_snapshot_that_holds_some() -> None:
    printer, out, err = _printer()
    printer.event(_task(TaskState.working, artifact="Here is ", history=[_message("hi", Role.user)]))
    printer.event(_artifact("a draft", append=True))
    printer.event(_artifact(".", append=True, last=True))
    printer.event(_status(TaskState.working, "Polishing..."))
    printer.event(_status(TaskState.input_required, "Who for?", final=True))
    outcome = printer.finish()
    assert outcome == Outcome(TaskState.input_required, "t", "c", outcome.question)
    assert outcome.question is not None  # what it asked, for the hint on how to answer
    assert text_of(outcome.question.parts) == "Who for?"
    assert out.getvalue() == "Here is a draft.\nWho for?\n"
    assert err.getvalue() == "[working]\n  Polishing...\n[input-required]\n"


def test_a_polled_turn_prints_new_progress_and_artifact_text_once() -> None:
    printer, out, err = _printer()
    printer.progress(_task(TaskState.working, artifact="Part one. "))
    done = _task(TaskState.completed, artifact="Part one. Part two.", history=[_message("Looking...")])
    done.status.message = _message("All done.")
    printer.event(done)
    assert out.getvalue() == "Part one. Part two.\nAll done.\n"
    assert "  Looking..." in err.getvalue()
    assert err.getvalue().endswith("[completed]\n")


def test_a_continued_task_does_not_repeat_what_it_held() -> None:
    printer, out, _ = _printer()
    printer.baseline(_task(TaskState.input_required, artifact="Old draft.", history=[_message("Who for?")]))
    final = _task(TaskState.completed, artifact="Old draft.", history=[_message("Who for?")])
    final.status.message = _message("Done.")
    printer.event(final)
    assert out.getvalue() == "Done.\n"


def test_json_mode_prints_one_document_per_event_and_nothing_else() -> None:
    printer, out, err = _printer(json_mode=True)
    printer.event(_artifact("x", last=True))
    printer.event(_status(TaskState.completed, "ok", final=True))
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [line["kind"] for line in lines] == ["artifact-update", "status-update"]
    assert err.getvalue() == ""
    assert printer.finish().state == TaskState.completed


def test_a_message_reply_ends_the_conversation_without_a_state() -> None:
    printer, out, _ = _printer()
    printer.event(_message("Hello!"))
    assert printer.finish().state is None
    assert out.getvalue() == "Hello!\n"


def test_exit_codes() -> None:
    assert [exit_code(s) for s in (TaskState.completed, TaskState.input_required)] == [0, 0]
    assert {exit_code(s) for s in (TaskState.failed, TaskState.rejected, TaskState.canceled)} == {1}


def test_card_summary_shows_skills_capabilities_and_auth() -> None:
    card = AgentCard(
        name="Writer",
        description="Writes drafts.",
        url="https://agent.example/",
        version="2.0",
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(
                id="draft", name="Draft", description="A first draft", tags=["writing"], examples=["otters"]
            )
        ],
        security_schemes={
            "bearer": HTTPAuthSecurityScheme(scheme="bearer", bearer_format="JWT"),
            "key": APIKeySecurityScheme(name="X-API-Key", in_="header"),
        },
        security=[{"bearer": []}, {"key": []}],
    )
    text = card_summary(card)
    assert "Writer (version 2.0, A2A 0.2.5)" in text
    assert "streaming: yes, push notifications: no" in text
    assert "bearer: HTTP bearer (JWT); key: API key in header 'X-API-Key'; required: bearer or key" in text
    assert "  - Draft [draft]: A first draft" in text
    assert "e.g. otters" in text
    assert "Extended:" not in text
    offering = card.model_copy(update={"supports_authenticated_extended_card": True})
    assert "Extended:     authenticated callers get more" in card_summary(offering)
    assert "Extended:     this is the authenticated extended card" in card_summary(offering, extended=True)


def test_task_summary_lists_history_and_artifacts() -> None:
    task = _task(
        TaskState.completed, artifact="The text.", history=[_message("hi", Role.user), _message("yo")]
    )
    text = task_summary(task)
    assert "State:    completed" in text
    assert "  user: hi\n  agent: yo" in text
    assert "  draft: The text." in text
