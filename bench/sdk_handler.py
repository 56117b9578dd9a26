"""Baseline Lambda handler: a2a-sdk 0.3's in-memory JSON-RPC server behind the same Mangum adapter.

Mirrors ``functions/api/handler.py``: everything is built at import, so importing this module is
the baseline's cold-start work. The agent echoes the user's text: it publishes the Task
(``submitted``), then completes it with an ``Echo: ...`` message.
"""

from __future__ import annotations

from typing import Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.apps import A2AStarletteApplication
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentSkill
from a2a.utils import new_agent_text_message, new_task
from mangum import Mangum


class EchoExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            assert context.message is not None
            task = new_task(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        reply = new_agent_text_message(f"Echo: {context.get_user_input()}", task.context_id, task.id)
        await updater.complete(reply)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError("the echo agent finishes immediately")


card = AgentCard(
    name="A2A Agent",
    description="Echo agent on a2a-sdk (benchmark baseline).",
    url="https://example.execute-api.us-east-1.amazonaws.com/prod/",
    version="0.1.0",
    capabilities=AgentCapabilities(streaming=False, push_notifications=False),
    default_input_modes=["text/plain", "application/json"],
    default_output_modes=["text/plain", "application/json"],
    skills=[AgentSkill(id="echo", name="Echo", description="Replies with the user's text.", tags=["echo"])],
)
request_handler = DefaultRequestHandler(agent_executor=EchoExecutor(), task_store=InMemoryTaskStore())
app = A2AStarletteApplication(agent_card=card, http_handler=request_handler).build()
_mangum = Mangum(app, lifespan="off")


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return _mangum(event, context)
