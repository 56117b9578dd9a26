"""a2a-sdk 1.3's own server, the reference the client matrix is proven against.

Configured the way its documentation composes one: in-memory task and push config stores,
`DefaultRequestHandler`, the agent card at ``/.well-known/agent-card.json``, JSON-RPC at ``/``
with the 0.3 compatibility layer on (0.3 and 1.0 on the same path, told apart by the
``A2A-Version`` header) and the HTTP+JSON (REST) binding beside it. Push configs are stored but
nothing is delivered (no push sender: the tests exercise the config methods only).

The agent keeps the scripted contract of `agents.scripted` (what our server runs for the same
tests), so one test can be pointed at either server.

    PYTHONPATH=tests .venv/bin/python -m clients.reference_server [--port 0]

prints ``A2A agent listening on http://127.0.0.1:PORT/`` once it is bound, like `a2a-serverless
dev`, so `tests/e2e/conftest.py` starts both the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn
from a2a.helpers import new_task_from_user_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryPushNotificationConfigStore, InMemoryTaskStore, TaskUpdater
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, TaskState
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from agents import ARTIFACT, WAIT_QUESTION, chunk_text, options

NAME = "Reference echo (a2a-sdk 1.3)"


class ScriptedExecutor(AgentExecutor):
    """`agents.scripted` on a2a-sdk 1.3: ``wait`` asks for input; a reply to that question
    completes with ``done: <reply>``; any other text streams ``chunks`` artifact chunks (paced
    by ``delay`` and ``pause``) and completes with ``done: <text>``."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        text = context.get_user_input()
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        if task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED:
            await updater.complete(updater.new_agent_message([new_text_part(f"done: {text}")]))
            return
        await updater.start_work()
        if "wait" in text.split():
            await updater.requires_input(updater.new_agent_message([new_text_part(WAIT_QUESTION)]))
            return
        await self._stream_chunks(updater, text)
        await updater.complete(updater.new_agent_message([new_text_part(f"done: {text}")]))

    @staticmethod
    async def _stream_chunks(updater: TaskUpdater, text: str) -> None:
        settings = options(text)
        chunks = int(settings.get("chunks", "5"))
        delay = float(settings.get("delay", "0.02"))
        await asyncio.sleep(float(settings.get("pause", "0")))
        artifact_id = f"{updater.task_id}-{ARTIFACT}"
        for index in range(chunks):
            await updater.add_artifact(
                [new_text_part(chunk_text(text, index))],
                artifact_id=artifact_id,
                name=ARTIFACT,
                append=index > 0,
                last_chunk=index == chunks - 1,
            )
            await asyncio.sleep(delay)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None
        assert context.context_id is not None
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def agent_card(url: str) -> AgentCard:
    """The card a 1.3 deployment publishes: 1.0 JSON-RPC, 1.0 HTTP+JSON and 0.3 JSON-RPC."""
    interfaces = [
        AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0"),
        AgentInterface(url=url, protocol_binding="HTTP+JSON", protocol_version="1.0"),
        AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="0.3"),
    ]
    return AgentCard(
        name=NAME,
        description="a2a-sdk's own server, the reference for the client matrix",
        version="1.0.0",
        supported_interfaces=interfaces,
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="Echo", description="Echoes, in chunks", tags=["echo"])],
    )


def create_app(url: str, executor: AgentExecutor | None = None) -> Starlette:
    """The server for the agent at ``url``: `ScriptedExecutor` unless another ``executor``."""
    card = agent_card(url)
    handler = DefaultRequestHandler(
        agent_executor=executor or ScriptedExecutor(),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        push_config_store=InMemoryPushNotificationConfigStore(),
    )

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await handler.aclose()

    routes = [
        Route("/healthz", healthz, methods=["GET"]),
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, rpc_url="/", enable_v0_3_compat=True),
        # Last: its `/{tenant}/...` mount would otherwise shadow the routes above.
        *create_rest_routes(handler),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    sock = socket.socket()
    sock.bind(("127.0.0.1", args.port))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    server = uvicorn.Server(uvicorn.Config(create_app(url), log_level="warning"))
    print(f"A2A agent listening on {url}", flush=True)
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
