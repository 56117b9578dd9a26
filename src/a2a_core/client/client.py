"""An async client for any A2A agent: 1.0 over JSON-RPC or HTTP+JSON, 0.3 and 0.2.5 over JSON-RPC.

The agent's card says what it speaks (`interfaces`); the client picks the newest it shares and
then offers one API whatever answered: results are the domain model (`a2a_core.domain`), errors
the `a2a_core.core.errors` classes the server raised.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from datetime import datetime
from typing import Any, Literal

import httpx

from a2a_core.client.cards import ReadCard, interfaces_of
from a2a_core.client.connection import connect
from a2a_core.client.discovery import public_card
from a2a_core.client.errors import A2AClientCardError, A2AClientUnsupportedError
from a2a_core.client.events import Closing, Event, EventStream
from a2a_core.client.extended import check_offered, fetch_extended
from a2a_core.client.interfaces import (
    Interface,
    NoUsableInterfaceError,
    binding_name,
    checked_version,
    choose,
    direct,
)
from a2a_core.client.messages import outgoing
from a2a_core.client.operations import Codec
from a2a_core.client.push_configs import every_config, public
from a2a_core.client.resuming import resuming
from a2a_core.client.transport import Transport
from a2a_core.core.errors import PushConfigNotFoundError
from a2a_core.core.requests import (
    ListTasksQuery,
    PushConfigRef,
    SendRequest,
    TaskPage,
    TaskPushConfig,
    TaskQuery,
    TaskRef,
)
from a2a_core.domain import AgentCard, Message, PushNotificationConfig, Task, TaskState
from a2a_core.protocol.v0 import TaskPushNotificationConfig
from a2a_core.protocol.v1 import operations as v1


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
        binding: str | None = None,
        protocol_version: str | None = None,
        card_jwks: str | Mapping[str, Any] | None = None,
    ) -> None:
        """A client for the agent at ``agent``: its base URL (or its card's URL), or its card.

        The card (fetched on first use) lists the agent's interfaces; the client takes the
        newest protocol it shares with them: A2A 1.0 (JSON-RPC, else HTTP+JSON), then 0.3, then
        0.2.5 (JSON-RPC). ``binding`` (``"jsonrpc"`` or ``"rest"``) and ``protocol_version``
        (``"1.0"``, ``"0.3"``, ``"0.2.5"``) restrict that choice; a card offering nothing within
        them raises `A2AClientCardError`. ``rpc_url`` skips the card: calls go there, in
        ``protocol_version`` (default 0.3 over JSON-RPC, 1.0 over ``rest``: a request that
        names no version is 0.3 to every server, and 0.2.5 servers answer it too).

        ``card_jwks`` (a JWKS, or the URL of one) verifies the card's signatures when it is
        fetched: a card with no signature that a key in it verifies raises `A2AClientCardError`.
        The JWKS URL is fetched without ``headers``; the card's own ``jku`` is never trusted.

        ``headers`` are sent with every request (e.g. ``Authorization``). A stream that breaks
        before its final event is resumed (`resubscribe`), up to ``max_reconnects`` times in a
        row without a new event. The client closes ``httpx_client`` only if it created it.
        """
        self.card: AgentCard | None = agent if isinstance(agent, AgentCard) else None
        self.base_url = agent.url if isinstance(agent, AgentCard) else agent
        self.interfaces: tuple[Interface, ...] = interfaces_of(self.card) if self.card else ()
        self.card_document: Mapping[str, Any] | None = None
        self.card_signature: dict[str, Any] | None = None  # the protected header that verified
        self.extended: ReadCard | None = None  # the last get_extended_card: document, signature
        self.max_reconnects = max_reconnects
        self.binding = binding_name(binding) if binding else None
        self.protocol_version = checked_version(protocol_version) if protocol_version else None
        if card_jwks is not None and self.card is not None:
            raise ValueError("card_jwks verifies a fetched card: pass the agent's URL, not a card object")
        self.card_jwks = card_jwks
        self._rpc_url = rpc_url
        self._interface: Interface | None = None
        self._connection: tuple[Codec, Transport] | None = None
        # The 1.1 draft's connection for long polls (False: the card offers none; None: not looked).
        self._draft: tuple[Codec, Transport] | Literal[False] | None = None
        self._owns_http = httpx_client is None
        self._http = httpx_client or httpx.AsyncClient(timeout=timeout, follow_redirects=True)
        self._headers = dict(headers or {})

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def get_card(self) -> AgentCard:
        """Fetch the public card: the URL itself if it names a JSON file, else the well-known
        paths (``agent-card.json``, then the 0.2.5 ``agent.json``, or the other way round when
        ``protocol_version`` is 0.2.5); verified with ``card_jwks``."""
        read = await public_card(
            self._http, self.base_url, self._headers, version=self.protocol_version, jwks=self.card_jwks
        )
        self.card, self.interfaces, self.card_document = read.card, read.interfaces, read.document
        self.card_signature = read.signature
        return read.card

    async def get_extended_card(self) -> AgentCard:
        """The authenticated extended card (pass ``headers`` the agent accepts) over the interface
        in use, verified with ``card_jwks`` as `get_card` is (`a2a_core.client.extended`). Raises
        `A2AClientUnsupportedError`, sending nothing, when the public card offers none."""
        check_offered(self.card or await self.get_card())
        using = await self.interface()
        self.extended = await fetch_extended(self._http, using, self._headers, self._connect, self.card_jwks)
        return self.extended.card

    async def interface(self) -> Interface:
        """The interface calls go to (the card is read on first use, unless ``rpc_url`` was given)."""
        if self._interface is None:
            if self._rpc_url is not None:
                self._interface = direct(self._rpc_url, self.binding, self.protocol_version)
            else:
                if not self.interfaces:
                    await self.get_card()
                try:
                    self._interface = choose(
                        self.interfaces, binding=self.binding, version=self.protocol_version
                    )
                except NoUsableInterfaceError as error:
                    raise A2AClientCardError(str(error)) from None
        return self._interface

    async def rpc_url(self) -> str:
        return (await self.interface()).url

    # --- operations ----------------------------------------------------------------------------

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
        """Send a text or a Message, starting a task or continuing ``task_id``; ``blocking``
        waits until the turn ends (1.0: ``returnImmediately`` is its opposite)."""
        message = outgoing(message, task_id, context_id)
        modes = tuple(accepted_output_modes) if accepted_output_modes is not None else None
        request = SendRequest(message, blocking, history_length, modes, push_config, metadata)
        result: Task | Message = await self._call(v1.SEND_MESSAGE.name, request)
        return result

    async def get_task(self, task_id: str, history_length: int | None = None) -> Task:
        task: Task = await self._call(v1.GET_TASK.name, TaskQuery(task_id, history_length))
        return task

    async def long_poll(self, task_id: str, generation: int) -> Task | None:
        """The task once its generation is past ``generation`` (or as it is when the server's
        bound runs out), by A2A 1.1's long-poll GetTask; None when the card offers no 1.1 draft
        interface beside the one in use (then poll `get_task`). One request, held by the server
        until the task changes: no polling loop here."""
        if self._draft is None:
            draft = (await self.interface()).draft(self.interfaces)
            self._draft = connect(self._http, draft, self._headers) if draft is not None else False
        if self._draft is False:
            return None
        codec, transport = self._draft
        operation = codec.get(v1.GET_TASK.name)
        assert operation is not None
        task: Task = await transport.call(operation, TaskQuery(task_id, current_generation=generation))
        return task

    async def list_tasks(
        self,
        *,
        context_id: str | None = None,
        state: TaskState | None = None,
        page_size: int | None = None,
        page_token: str | None = None,
        history_length: int | None = None,
        status_timestamp_after: datetime | None = None,
        include_artifacts: bool | None = None,
    ) -> TaskPage:
        """ListTasks (A2A 1.0): the caller's tasks, newest first, one page; pass the page's
        ``next_page_token`` for the next ("" on the last). Raises `A2AClientUnsupportedError`
        when the agent is reached over 0.3 or 0.2.5, which have no such operation."""
        query = ListTasksQuery(
            context_id,
            state,
            page_size,
            page_token,
            history_length,
            status_timestamp_after,
            include_artifacts,
        )
        page: TaskPage = await self._call(v1.LIST_TASKS.name, query)
        return page

    async def cancel_task(self, task_id: str, metadata: dict[str, Any] | None = None) -> Task:
        task: Task = await self._call(v1.CANCEL_TASK.name, TaskRef(task_id, metadata))
        return task

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
        """Send and stream: the task's events until its turn ends (see `is_final`).

        Errors the server answers before streaming (an unknown task, bad params) are raised by
        the first iteration.
        """
        modes = tuple(accepted_output_modes) if accepted_output_modes is not None else None
        message = outgoing(message, task_id, context_id)
        request = SendRequest(message, None, history_length, modes, push_config, metadata)
        return EventStream(
            lambda stream: self._resuming(stream, v1.SEND_STREAMING_MESSAGE.name, request), task_id=task_id
        )

    def resubscribe(self, task: str | EventStream, last_event_id: str | None = None) -> EventStream:
        """The task's events from now until its turn ends (1.0 SubscribeToTask, 0.x tasks/resubscribe).

        Given the `EventStream` of an earlier call, it continues that stream: what the caller
        missed arrives once and nothing twice (0.x resumes after its last event id; 1.0 starts
        from a Task snapshot, which arrives as only what is new). Given a task id, the stream
        starts with the task as it stands (a Task), or, on a 0.x server, right after
        ``last_event_id`` when it is given (1.0 has no such resumption).
        """
        delivered = None
        if isinstance(task, EventStream):
            if task.task_id is None:
                raise ValueError("that stream has not named its task yet: there is nothing to resubscribe to")
            task_id, last_event_id, delivered = task.task_id, task.last_event_id, task.delivered
        else:
            task_id = task
        ref = TaskRef(task_id)
        return EventStream(
            lambda stream: self._resuming(stream, v1.SUBSCRIBE_TO_TASK.name, ref),
            task_id=task_id,
            last_event_id=last_event_id,
            delivered=delivered,
        )

    async def set_push_config(
        self, task_id: str, config: PushNotificationConfig
    ) -> TaskPushNotificationConfig:
        return public(await self._call(v1.CREATE_PUSH_CONFIG.name, TaskPushConfig(task_id, config)))

    async def get_push_config(self, task_id: str, config_id: str | None = None) -> TaskPushNotificationConfig:
        """The task's config ``config_id``; without one, its first config (as 0.x servers answer)."""
        if config_id is None and (await self.interface()).is_v1:
            configs = await self.list_push_configs(task_id)  # 1.0 requires the id
            if not configs:
                raise PushConfigNotFoundError(f"Task {task_id} has no push notification config")
            return configs[0]
        return public(await self._call(v1.GET_PUSH_CONFIG.name, PushConfigRef(task_id, config_id)))

    async def list_push_configs(self, task_id: str) -> list[TaskPushNotificationConfig]:
        """Every config of the task (1.0's pages followed to the last)."""
        return await every_config(self._call, task_id)

    async def delete_push_config(self, task_id: str, config_id: str) -> None:
        await self._call(v1.DELETE_PUSH_CONFIG.name, PushConfigRef(task_id, config_id))

    # --- transport -----------------------------------------------------------------------------

    def _resuming(self, stream: EventStream, name: str, request: Any) -> AsyncGenerator[Event]:
        return resuming(
            stream,
            name,
            request,
            connect=self._connect,
            read_task=self.get_task,
            max_reconnects=self.max_reconnects,
        )

    async def _connect(self) -> tuple[Codec, Transport]:
        if self._connection is None:
            self._connection = connect(self._http, await self.interface(), self._headers)
        return self._connection

    async def _call(self, name: str, request: Any) -> Any:
        codec, transport = await self._connect()
        operation = codec.get(name)
        if operation is None:
            raise A2AClientUnsupportedError(
                f"{name} is an A2A 1.0 operation, and this agent is reached over {await self.interface()}"
            )
        return await transport.call(operation, request)
