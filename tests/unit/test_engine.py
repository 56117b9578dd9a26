from __future__ import annotations

import pytest

from a2a_core.core.errors import (
    ContentTypeNotSupportedError,
    InvalidParamsError,
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
    TaskNotFoundError,
)
from a2a_core.core.requests import TaskQuery, TaskRef
from a2a_core.core.turn.executor import TaskContext
from a2a_core.domain import FilePart, FileWithUri, PushNotificationConfig, Role, TaskState, TextPart
from a2a_core.examples.echo import agent as echo
from a2a_core.examples.multiturn import DraftWriter
from support import CALLER, Stack, send_params, user_message

pytestmark = pytest.mark.anyio


async def test_send_creates_a_submitted_task_with_server_ids_and_enqueues_one_run() -> None:
    stack = Stack(echo)
    task = await stack.engine.send_message(send_params(user_message("hi")), CALLER)
    assert task.status.state == TaskState.submitted
    assert task.id
    assert task.context_id
    assert [m.role for m in task.history or []] == [Role.user]
    assert len(stack.broker) == 1
    assert await stack.drain() == 1
    done = await stack.engine.get_task(TaskQuery(task_id=task.id), CALLER)
    assert done.status.state == TaskState.completed
    assert done.status.message is not None
    assert done.status.message.parts[0] == TextPart(text="Echo: hi")


async def test_a_client_retry_of_the_same_message_returns_the_same_task_and_runs_once() -> None:
    stack = Stack(echo)
    message = user_message("hi")
    first = await stack.engine.send_message(send_params(message), CALLER)
    assert await stack.drain() == 1
    again = await stack.engine.send_message(send_params(message), CALLER)
    assert again.id == first.id
    assert again.status.state == TaskState.completed
    assert await stack.drain() == 0
    assert len((await stack.ledger.load(first.id)).history or []) == 2


async def test_a_retry_before_the_worker_ran_enqueues_again_but_the_agent_runs_once() -> None:
    runs: list[str] = []

    async def counting(ctx: TaskContext) -> str:
        runs.append(ctx.task_id)
        return "ok"

    stack = Stack(counting)
    message = user_message("hi")
    first = await stack.engine.send_message(send_params(message), CALLER)
    assert await stack.broker.receive(timeout=0) is not None  # that enqueue is lost
    await stack.engine.send_message(send_params(message), CALLER)
    await stack.engine.send_message(send_params(message), CALLER)
    await stack.drain()
    assert runs == [first.id]


async def test_same_message_id_with_different_content_is_a_different_task() -> None:
    stack = Stack(echo)
    a = await stack.engine.send_message(send_params(user_message("a", message_id="m")), CALLER)
    b = await stack.engine.send_message(send_params(user_message("b", message_id="m")), CALLER)
    assert a.id != b.id


async def test_context_id_alone_starts_a_new_task_in_that_context() -> None:
    stack = Stack(echo)
    first = await stack.engine.send_message(send_params(user_message("one")), CALLER)
    second = await stack.engine.send_message(
        send_params(user_message("two", context_id=first.context_id)), CALLER
    )
    assert second.id != first.id
    assert second.context_id == first.context_id


async def test_continuing_an_input_required_task_keeps_one_task_and_full_history() -> None:
    stack = Stack(DraftWriter(delay=0))
    task = await stack.engine.send_message(send_params(user_message("otters")), CALLER)
    await stack.drain()
    assert (await stack.ledger.load(task.id)).status.state == TaskState.input_required
    reply = user_message("children", task_id=task.id, context_id=task.context_id)
    continued = await stack.engine.send_message(send_params(reply), CALLER)
    assert continued.id == task.id
    assert continued.status.state == TaskState.working
    await stack.drain()
    done = await stack.ledger.load(task.id)
    assert done.status.state == TaskState.completed
    assert [m.role for m in done.history or []] == [Role.user, Role.agent, Role.user, Role.agent]
    assert [a.name for a in done.artifacts or []] == ["draft", "final"]


async def test_a_retried_continuation_is_applied_once() -> None:
    stack = Stack(DraftWriter(delay=0))
    task = await stack.engine.send_message(send_params(user_message("otters")), CALLER)
    await stack.drain()
    reply = user_message("children", task_id=task.id)
    await stack.engine.send_message(send_params(reply), CALLER)
    await stack.engine.send_message(send_params(reply), CALLER)
    await stack.drain()
    history = (await stack.ledger.load(task.id)).history or []
    assert [m.message_id for m in history].count(reply.message_id) == 1


async def test_a_retried_continuation_whose_enqueue_was_lost_still_runs_once() -> None:
    stack = Stack(DraftWriter(delay=0))
    task = await stack.engine.send_message(send_params(user_message("otters")), CALLER)
    await stack.drain()
    reply = user_message("children", task_id=task.id)
    await stack.engine.send_message(send_params(reply), CALLER)
    assert await stack.broker.receive(timeout=0) is not None  # that enqueue is lost
    await stack.engine.send_message(send_params(reply), CALLER)
    assert await stack.drain() == 1
    assert (await stack.ledger.load(task.id)).status.state == TaskState.completed
    await stack.engine.send_message(send_params(reply), CALLER)  # after the run: nothing to do
    assert len(stack.broker) == 0


async def test_continuing_an_unknown_task_is_task_not_found() -> None:
    stack = Stack(echo)
    with pytest.raises(TaskNotFoundError):
        await stack.engine.send_message(send_params(user_message(task_id="missing")), CALLER)
    assert len(stack.broker) == 0


async def test_a_terminal_task_cannot_be_continued() -> None:
    stack = Stack(echo)
    task = await stack.engine.send_message(send_params(user_message()), CALLER)
    await stack.drain()
    with pytest.raises(InvalidParamsError, match="terminal task cannot be continued"):
        await stack.engine.send_message(send_params(user_message(task_id=task.id)), CALLER)
    assert len((await stack.ledger.load(task.id)).history or []) == 2


async def test_a_task_that_is_not_waiting_for_input_cannot_be_continued() -> None:
    stack = Stack(echo)
    task = await stack.engine.send_message(send_params(user_message()), CALLER)
    with pytest.raises(InvalidParamsError, match="only a task in input-required"):
        await stack.engine.send_message(send_params(user_message(task_id=task.id)), CALLER)


async def test_continuation_with_a_foreign_context_id_is_refused() -> None:
    stack = Stack(DraftWriter(delay=0))
    task = await stack.engine.send_message(send_params(user_message()), CALLER)
    await stack.drain()
    with pytest.raises(InvalidParamsError, match="does not match"):
        await stack.engine.send_message(
            send_params(user_message(task_id=task.id, context_id="other")), CALLER
        )


async def test_history_length_trims_the_answer_never_the_stored_history() -> None:
    stack = Stack(echo)
    task = await stack.engine.send_message(send_params(user_message()), CALLER)
    await stack.drain()
    one = await stack.engine.get_task(TaskQuery(task_id=task.id, history_length=1), CALLER)
    none = await stack.engine.get_task(TaskQuery(task_id=task.id, history_length=0), CALLER)
    full = await stack.engine.get_task(TaskQuery(task_id=task.id), CALLER)
    assert [m.role for m in one.history or []] == [Role.agent]
    assert none.history == []
    assert [m.role for m in full.history or []] == [Role.user, Role.agent]


async def test_blocking_send_waits_for_the_worker() -> None:
    import asyncio

    stack = Stack(echo, blocking_timeout_seconds=5)
    runner = asyncio.create_task(_drain_soon(stack))
    task = await stack.engine.send_message(send_params(user_message(), blocking=True), CALLER)
    await runner
    assert task.status.state == TaskState.completed


async def _drain_soon(stack: Stack) -> None:
    import asyncio

    await asyncio.sleep(0.01)
    await stack.drain()


async def test_blocking_send_returns_the_current_task_when_the_budget_runs_out() -> None:
    stack = Stack(echo, blocking_timeout_seconds=0.05)
    task = await stack.engine.send_message(send_params(user_message(), blocking=True), CALLER)
    assert task.status.state == TaskState.submitted


async def test_cancel_a_queued_task_then_the_worker_does_not_run_it() -> None:
    runs: list[str] = []

    async def agent(ctx: TaskContext) -> None:
        runs.append(ctx.task_id)

    stack = Stack(agent)
    task = await stack.engine.send_message(send_params(user_message()), CALLER)
    canceled = await stack.engine.cancel_task(TaskRef(task_id=task.id), CALLER)
    assert canceled.status.state == TaskState.canceled
    await stack.drain()
    assert runs == []
    with pytest.raises(TaskNotCancelableError, match="already canceled"):
        await stack.engine.cancel_task(TaskRef(task_id=task.id), CALLER)


async def test_cancel_or_get_an_unknown_task_is_task_not_found() -> None:
    stack = Stack(echo)
    with pytest.raises(TaskNotFoundError):
        await stack.engine.cancel_task(TaskRef(task_id="nope"), CALLER)
    with pytest.raises(TaskNotFoundError):
        await stack.engine.get_task(TaskQuery(task_id="nope"), CALLER)


async def test_agent_role_messages_are_refused_and_nothing_is_stored() -> None:
    stack = Stack(echo)
    message = user_message().model_copy(update={"role": Role.agent})
    with pytest.raises(InvalidParamsError, match="role"):
        await stack.engine.send_message(send_params(message), CALLER)
    assert len(stack.broker) == 0


async def test_unacceptable_output_modes_are_content_type_errors() -> None:
    stack = Stack(echo)
    params = send_params(user_message(), accepted_output_modes=["image/png"])
    with pytest.raises(ContentTypeNotSupportedError, match="image/png"):
        await stack.engine.send_message(params, CALLER)
    ok = send_params(user_message(), accepted_output_modes=["text/*"])
    assert (await stack.engine.send_message(ok, CALLER)).status.state == TaskState.submitted


async def test_file_parts_of_unsupported_types_are_content_type_errors() -> None:
    stack = Stack(echo)
    part = FilePart(file=FileWithUri(uri="https://example.invalid/a.png", mime_type="image/png"))
    message = user_message().model_copy(update={"parts": [part]})
    with pytest.raises(ContentTypeNotSupportedError):
        await stack.engine.send_message(send_params(message), CALLER)
    assert len(stack.broker) == 0


async def test_push_config_in_send_is_refused_while_push_is_disabled() -> None:
    stack = Stack(echo)
    params = send_params(user_message(), push_config=PushNotificationConfig(url="https://hooks.example/a"))
    with pytest.raises(PushNotificationNotSupportedError):
        await stack.engine.send_message(params, CALLER)
