"""Baseline Lambda handler: a2a-sdk 1.3's in-memory server behind the same Mangum adapter.

Mirrors ``functions/api/handler.py``: everything is built at import, so importing this module is
the baseline's cold-start work. It is composed the way a2a-sdk documents a deployment: in-memory
task and push config stores, the agent card route, JSON-RPC at ``/`` with the 0.3 compatibility
layer on (0.3 methods are told apart from 1.0 by the ``A2A-Version`` header) and the HTTP+JSON
(REST) routes, whose application/a2a+json answers Mangum is told are text, as in ours. The agent
echoes the user's text: it publishes the Task (``submitted``), then completes it with an
``Echo: ...`` message.
"""

from __future__ import annotations

from typing import Any

from a2a.helpers import new_task_from_user_message, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryPushNotificationConfigStore, InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from mangum import Mangum
from mangum.adapter import DEFAULT_TEXT_MIME_TYPES
from starlette.applications import Starlette


class EchoExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            assert context.message is not None
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        reply = new_text_message(
            f"Echo: {context.get_user_input()}", context_id=task.context_id, task_id=task.id
        )
        await updater.complete(reply)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError("the echo agent finishes immediately")


URL = "https://example.execute-api.us-east-1.amazonaws.com/prod/"
card = AgentCard(
    name="A2A Agent",
    description="Echo agent on a2a-sdk (benchmark baseline).",
    version="0.1.0",
    supported_interfaces=[
        AgentInterface(url=URL, protocol_binding="JSONRPC", protocol_version="1.0"),
        AgentInterface(url=URL, protocol_binding="HTTP+JSON", protocol_version="1.0"),
        AgentInterface(url=URL, protocol_binding="JSONRPC", protocol_version="0.3"),
    ],
    capabilities=AgentCapabilities(streaming=False, push_notifications=False),
    default_input_modes=["text/plain", "application/json"],
    default_output_modes=["text/plain", "application/json"],
    skills=[AgentSkill(id="echo", name="Echo", description="Replies with the user's text.", tags=["echo"])],
)
request_handler = DefaultRequestHandler(
    agent_executor=EchoExecutor(),
    task_store=InMemoryTaskStore(),
    agent_card=card,
    push_config_store=InMemoryPushNotificationConfigStore(),
)
app = Starlette(
    routes=[
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(request_handler, rpc_url="/", enable_v0_3_compat=True),
        *create_rest_routes(request_handler),
    ]
)
# As ours (functions/api/handler.py): HTTP+JSON answers (application/a2a+json) leave as text, which
# a REST API front door passes on; Mangum would otherwise send them base64-encoded.
_mangum = Mangum(app, lifespan="off", text_mime_types=[*DEFAULT_TEXT_MIME_TYPES, "application/a2a+json"])


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return _mangum(event, context)
