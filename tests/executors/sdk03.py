"""The executors of `executors.sdk13`, written for a2a-sdk 0.3 (its pydantic ``a2a.types``,
``a2a.utils`` helpers), with the same contract. Runs in the a2a-sdk 0.3 environment only."""

from __future__ import annotations

import asyncio
import os

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Part, TaskState, TextPart
from a2a.utils import new_agent_text_message, new_task

QUESTION = "Who is the audience?"


def options(text: str) -> dict[str, str]:
    pairs = (word.partition("=") for word in text.split())
    return {key: value for key, sep, value in pairs if sep}


def text_part(text: str) -> Part:
    return Part(root=TextPart(text=text))


class HelloWorldAgentExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        await event_queue.enqueue_event(new_agent_text_message("Hello World"))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise Exception("cancel not supported")


class DraftExecutor(AgentExecutor):
    def __init__(self) -> None:
        self.canceled: list[str] = []

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            task = new_task(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        text = context.get_user_input()
        if task.status.state == TaskState.input_required:
            final = [text_part(f"Final version, for {text}.")]
            await updater.add_artifact(final, name="final", last_chunk=True)
            await updater.complete(updater.new_agent_message([text_part(f"Done: written for {text}.")]))
            return
        await updater.start_work(updater.new_agent_message([text_part("Drafting...")]))
        settings = options(text)
        chunks, delay = int(settings.get("chunks", "3")), float(settings.get("delay", "0.01"))
        for index in range(chunks):
            await updater.add_artifact(
                [text_part(f"part {index} ")],
                artifact_id=f"{task.id}-draft",
                name="draft",
                append=index > 0,
                last_chunk=index == chunks - 1,
            )
            await asyncio.sleep(delay)
        await updater.requires_input(updater.new_agent_message([text_part(QUESTION)]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        self.canceled.append(context.task_id or "")
        log = os.environ.get("CANCEL_LOG")
        if log:
            with open(log, "a", encoding="utf-8") as file:  # noqa: ASYNC230  # one line, in a test
                file.write(f"{context.task_id}\n")
        await TaskUpdater(event_queue, context.task_id or "", context.context_id or "").cancel()


hello = HelloWorldAgentExecutor()
draft = DraftExecutor()
