"""An async client for any A2A 0.2.5 server that speaks JSON-RPC over HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, TypeAdapter

from a2a_core.client import wire
from a2a_core.client.errors import A2AClientConnectionError
from a2a_core.client.events import Closing, Event, EventStream, is_final, task_id_of
from a2a_core.client.sse import parse_events
from a2a_core.core.errors import A2AError
from a2a_core.protocol.v0 import (
    DeleteTaskPushNotificationConfigParams,
    GetTaskPushNotificationConfigParams,
    ListTaskPushNotificationConfigParams,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
)
from a2a_core.protocol.v0.method_names import MethodName
from a2a_core.types import AgentCard, Message, PushNotificationConfig, Task

T = TypeVar("T")
CARD_PATHS = (".well-known/agent-card.json", ".well-known/agent.json")


class A2AClient(Closing):
    def __init__(
        self,
        agent: str | AgentCard,
        *,
        rpc_url: str | None = None,
        httpx_client: httpx.AsyncClient | None = None,
        headers: dict[str, str] | None = None,
        timeout: float | httpx.Timeout = 60.0,
        max_reconnects: int = 3,
    ) -> None:
        """A client for the agent at ``agent``: its base URL (or its card's URL), or its card.

        RPCs go to ``rpc_url`` if given, else to the ``url`` of the agent's card (fetched on
        first use). ``headers`` are sent with every request (e.g. ``Authorization``). A stream
        that breaks before its final event is resumed with ``tasks/resubscribe`` and
        ``Last-Event-ID``, up to ``max_reconnects`` times in a row without a new event. The
        client closes ``httpx_client`` only if it created it.
        """
        self.card: AgentCard | None = agent if isinstance(agent, AgentCard) else None
        self.base_url = agent.url if isinstance(agent, AgentCard) else agent
        self.max_reconnects = max_reconnects
        self._rpc_url = rpc_url or (self.card.url if self.card else None)
        self._owns_http = httpx_client is None
        self._http = httpx_client or httpx.AsyncClient(timeout=timeout, follow_redirects=True)
        self._headers = dict(headers or {})

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def get_card(self) -> AgentCard:
        """Fetch the public card: the URL itself if it names a JSON file, else the well-known paths."""
        base = httpx.URL(self.base_url)
        if base.path.endswith(".json"):
            candidates = [base]
        else:
            root = base if base.path.endswith("/") else base.copy_with(path=base.path + "/")
            candidates = [root.join(path) for path in CARD_PATHS]
        for url in candidates[:-1]:
            response = await self._request("GET", url)
            if response.status_code != 404:
                break
        else:
            url = candidates[-1]
            response = await self._request("GET", url)
        card = wire.validated(wire.card, wire.json_body(response), response)
        self.card = card
        if self._rpc_url is None:
            self._rpc_url = str(url.join(card.url))
        return card

    async def rpc_url(self) -> str:
        if self._rpc_url is None:
            await self.get_card()
        assert self._rpc_url is not None
        return self._rpc_url

    # --- methods -----------------------------------------------------------------------------

    async def send_message(
        self,
        message: Message | str,
        *,
        task_id: str | None = None,
        context_id: str | None = None,
        blocking: bool = True,
        history_length: int | None = None,
        push_config: PushNotificationConfig | None = None,
        accepted_output_modes: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Task | Message:
        """``message/send``: a text or a Message, starting a task or continuing ``task_id``."""
        params = wire.send_params(
            message,
            task_id=task_id,
            context_id=context_id,
            blocking=blocking,
            history_length=history_length,
            push_config=push_config,
            accepted_output_modes=accepted_output_modes,
            metadata=metadata,
        )
        return await self._call(MethodName.message_send, params, wire.send_result)

    async def get_task(self, task_id: str, history_length: int | None = None) -> Task:
        params = TaskQueryParams(id=task_id, history_length=history_length)
        return await self._call(MethodName.tasks_get, params, wire.task)

    async def cancel_task(self, task_id: str) -> Task:
        return await self._call(MethodName.tasks_cancel, TaskIdParams(id=task_id), wire.task)

    def stream_message(
        self,
        message: Message | str,
        *,
        task_id: str | None = None,
        context_id: str | None = None,
        history_length: int | None = None,
        push_config: PushNotificationConfig | None = None,
        accepted_output_modes: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> EventStream:
        """``message/stream``: the task's events until its turn ends (see `is_final`).

        Errors the server answers before streaming (an unknown task, bad params) are raised by
        the first iteration.
        """
        params = wire.send_params(
            message,
            task_id=task_id,
            context_id=context_id,
            blocking=None,
            history_length=history_length,
            push_config=push_config,
            accepted_output_modes=accepted_output_modes,
            metadata=metadata,
        )
        return EventStream(
            lambda stream: self._resuming(stream, MethodName.message_stream, params), task_id=task_id
        )

    def resubscribe(self, task_id: str, last_event_id: str | None = None) -> EventStream:
        """``tasks/resubscribe``: the task's events after ``last_event_id`` (or from a snapshot)."""
        params = TaskIdParams(id=task_id)
        return EventStream(
            lambda stream: self._resuming(stream, MethodName.tasks_resubscribe, params),
            task_id=task_id,
            last_event_id=last_event_id,
        )

    async def set_push_config(
        self, task_id: str, config: PushNotificationConfig
    ) -> TaskPushNotificationConfig:
        params = TaskPushNotificationConfig(task_id=task_id, push_notification_config=config)
        return await self._call(MethodName.push_config_set, params, wire.push_config)

    async def get_push_config(self, task_id: str, config_id: str | None = None) -> TaskPushNotificationConfig:
        params = GetTaskPushNotificationConfigParams(id=task_id, push_notification_config_id=config_id)
        return await self._call(MethodName.push_config_get, params, wire.push_config)

    async def list_push_configs(self, task_id: str) -> list[TaskPushNotificationConfig]:
        params = ListTaskPushNotificationConfigParams(id=task_id)
        return await self._call(MethodName.push_config_list, params, wire.push_configs)

    async def delete_push_config(self, task_id: str, config_id: str) -> None:
        params = DeleteTaskPushNotificationConfigParams(id=task_id, push_notification_config_id=config_id)
        await self._call(MethodName.push_config_delete, params, wire.nothing)

    # --- transport ---------------------------------------------------------------------------

    async def _request(self, method: str, url: httpx.URL | str, **kwargs: Any) -> httpx.Response:
        try:
            return await self._http.request(method, url, headers=self._headers, **kwargs)
        except httpx.TransportError as error:
            raise A2AClientConnectionError(f"cannot reach {url}: {wire.describe(error)}") from error

    async def _call(self, method: str, params: BaseModel, adapter: TypeAdapter[T]) -> T:
        url = await self.rpc_url()
        response = await self._request("POST", url, json=wire.envelope(method, params))
        return wire.validated(adapter, wire.result(wire.json_body(response), response), response)

    async def _resuming(self, stream: EventStream, method: str, params: BaseModel) -> AsyncGenerator[Event]:
        """Events of a stream; when it breaks before a final event, resubscribe after the last one.

        Only resubscriptions are retried: resending ``message/stream`` could start a second task.
        """
        failures = 0
        while True:
            events = self._events(method, params, stream.last_event_id, resuming=failures > 0)
            try:
                async for event_id, event in events:
                    failures = 0
                    stream.last_event_id = event_id or stream.last_event_id
                    stream.task_id = task_id_of(event) or stream.task_id
                    yield event
                    if is_final(event):
                        return
                reason = "the server closed the stream before the task's final event"
            except _StreamBrokenError as error:
                reason = str(error)
            except A2AError:
                if failures and stream.task_id is not None:
                    # Some servers refuse to resubscribe to a task that ended meanwhile.
                    task = await self.get_task(stream.task_id)
                    if is_final(task):
                        yield task
                        return
                raise
            finally:
                await events.aclose()
            if stream.task_id is None or failures >= self.max_reconnects:
                raise A2AClientConnectionError(f"stream lost ({reason}); gave up after {failures} resumes")
            failures += 1
            await asyncio.sleep(0.2 * failures)
            method, params = MethodName.tasks_resubscribe, TaskIdParams(id=stream.task_id)

    async def _events(
        self, method: str, params: BaseModel, last_event_id: str | None, *, resuming: bool
    ) -> AsyncGenerator[tuple[str | None, Event]]:
        url = await self.rpc_url()
        headers = {**self._headers, "Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        request = self._http.build_request("POST", url, json=wire.envelope(method, params), headers=headers)
        try:
            response = await self._http.send(request, stream=True)
        except httpx.TransportError as error:
            if resuming:
                raise _StreamBrokenError(wire.describe(error)) from error
            raise A2AClientConnectionError(f"cannot reach {url}: {wire.describe(error)}") from error
        try:
            if not response.headers.get("content-type", "").startswith("text/event-stream"):
                await response.aread()  # an error answered before the stream, as plain JSON-RPC
                payload = wire.result(wire.json_body(response), response)
                yield None, wire.validated(wire.stream_event, payload, response)
                return
            try:
                async for sse in parse_events(response.aiter_lines()):
                    payload = wire.result(wire.loads(sse.data, response), response)
                    yield sse.id, wire.validated(wire.stream_event, payload, response)
            except httpx.TransportError as error:
                raise _StreamBrokenError(wire.describe(error)) from error
        finally:
            await response.aclose()


class _StreamBrokenError(Exception):
    pass
