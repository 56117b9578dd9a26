"""a2a-sdk 1.3 executors (``--agent executors.sdk13:<name>``, tests/ on the path).

- `HelloWorldAgentExecutor`: a2a-sdk's hello world, answering every message with a bare Message;
- `DraftExecutor`: multi-turn through `TaskUpdater`. A first message opens the task (``new_task``),
  reports ``Drafting...``, streams ``chunks`` artifact chunks (``key=value`` words of the text:
  ``chunks`` default 3, ``delay`` seconds after each, default 0.01) and asks `QUESTION`
  (input-required); the reply completes the task with a ``final`` artifact and ``Done: written for
  <reply>.``. Its cancel() notes the task (`canceled`, and a line in the file ``$CANCEL_LOG``
  names, for a test in another process) and reports it canceled, as a2a-sdk's samples do.
"""

from __future__ import annotations

import asyncio
import os

from a2a.helpers import new_task_from_user_message, new_text_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import TaskState

QUESTION = "Who is the audience?"


def options(text: str) -> dict[str, str]:
    pairs = (word.partition("=") for word in text.split())
    return {key: value for key, sep, value in pairs if sep}


class HelloWorldAgentExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        await event_queue.enqueue_event(new_text_message("Hello World"))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise Exception("cancel not supported")  # as a2a-sdk's sample does


class DraftExecutor(AgentExecutor):
    def __init__(self) -> None:
        self.canceled: list[str] = []

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        text = context.get_user_input()
        if task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            final = [new_text_part(f"Final version, for {text}.")]
            await updater.add_artifact(final, name="final", last_chunk=True)
            await updater.complete(updater.new_agent_message([new_text_part(f"Done: written for {text}.")]))
            return
        await updater.start_work(updater.new_agent_message([new_text_part("Drafting...")]))
        settings = options(text)
        chunks, delay = int(settings.get("chunks", "3")), float(settings.get("delay", "0.01"))
        for index in range(chunks):
            await updater.add_artifact(
                [new_text_part(f"part {index} ")],
                artifact_id=f"{task.id}-draft",
                name="draft",
                append=index > 0,
                last_chunk=index == chunks - 1,
            )
            await asyncio.sleep(delay)
        await updater.requires_input(updater.new_agent_message([new_text_part(QUESTION)]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None
        assert context.context_id is not None
        self.canceled.append(context.task_id)
        log = os.environ.get("CANCEL_LOG")
        if log:
            with open(log, "a", encoding="utf-8") as file:  # noqa: ASYNC230  # one line, in a test
                file.write(f"{context.task_id}\n")
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


hello = HelloWorldAgentExecutor()
draft = DraftExecutor()
