"""The checks ``a2a-serverless check URL`` runs against a deployed agent, through `A2AClient`.

First the card (and its signature, and the extended card when the card offers one), then, on
each interface the card declares: send, a second turn when the agent asks for one, get, list
(1.0), stream, cancel and push. The check cannot know the agent, so it reports what the agent
did: a task that ends ``failed`` or ``rejected`` fails its check, any other ending passes, and
a second turn is only taken when the agent asks for input.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

import httpx

from a2a_core.cli.render import parts_text
from a2a_core.cli.webhook import WebhookReceiver
from a2a_core.client import A2AClient, A2AClientError, Interface, is_final
from a2a_core.client.cards import ReadCard
from a2a_core.client.discovery import verify
from a2a_core.core.backoff import Backoff
from a2a_core.core.errors import A2AError, TaskNotCancelableError
from a2a_core.domain import (
    AgentCard,
    Message,
    PushNotificationConfig,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
)

Status = Literal["ok", "failed", "skipped"]
UNSUCCESSFUL = frozenset({TaskState.failed, TaskState.rejected})
# What a check may meet that is the agent's answer, not a bug of the check.
EXPECTED = (A2AError, A2AClientError, httpx.HTTPError, TimeoutError, ValueError)


@dataclass(frozen=True)
class CheckResult:
    check: str
    status: Status
    detail: str
    interface: str | None = None  # "JSONRPC 1.0"; None for the card's checks


class Skip(Exception):
    """The check does not apply; the message says why."""


@dataclass(frozen=True)
class CheckOptions:
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = 60.0  # per check: HTTP calls and the agent's turns
    message: str = "Hello from a2a-serverless check"
    reply: str = "Thank you, that is all."
    card_jwks: str | dict[str, object] | None = None
    webhook: str | None = None  # given to the agent as the push URL
    receiver: WebhookReceiver | None = None  # where notifications arrive, when listening here


@dataclass
class Turn:
    """What an interface's checks learned so far."""

    task: Task | None = None


class AgentCheck:
    def __init__(
        self, options: CheckOptions, http: httpx.AsyncClient, emit: Callable[[CheckResult], None]
    ) -> None:
        self.options = options
        self.http = http
        self.emit = emit
        self.card: AgentCard | None = None

    async def run(self) -> None:
        probe = self._client()
        if not await self._step("card", None, lambda: self._card(probe)):
            return
        await self._step("card signature", None, lambda: self._signature(probe))
        await self._step("extended card", None, lambda: self._extended(probe))
        seen: set[tuple[str, str]] = set()
        for interface in probe.interfaces:
            key = (interface.binding, interface.version)
            if key in seen:
                continue
            seen.add(key)
            await self.interface(interface)

    async def interface(self, interface: Interface) -> None:
        label = f"{interface.binding} {interface.version}"
        if interface.is_draft:
            # Served by 1.0's operations, whose checks the 1.0 interface of its binding runs.
            why = "the A2A 1.1 draft: its 1.0 operations are checked on the 1.0 interface"
            self.emit(CheckResult("interface", "skipped", why, label))
            return
        if interface.rank is None:
            self.emit(CheckResult("interface", "skipped", f"this client does not speak {label}", label))
            return
        client = self._client(binding=interface.binding, version=interface.version)
        turn = Turn()
        steps: list[tuple[str, Callable[[], Awaitable[str]]]] = [
            ("send", lambda: self._send(client, turn)),
            ("second turn", lambda: self._second_turn(client, turn)),
            ("get", lambda: self._get(client, turn)),
            ("list", lambda: self._list(client, interface, turn)),
            ("stream", lambda: self._stream(client)),
            ("cancel", lambda: self._cancel(client)),
            ("push", lambda: self._push(client, interface)),
        ]
        for name, step in steps:
            await self._step(name, label, step)

    # --- the card ------------------------------------------------------------------------------

    async def _card(self, client: A2AClient) -> str:
        self.card = card = await client.get_card()
        offered = ", ".join(f"{i.binding} {i.version}" for i in client.interfaces)
        return f"{card.name} {card.version}: {offered}"

    async def _signature(self, client: A2AClient) -> str:
        card, document = client.card, client.card_document or {}
        assert card is not None  # read by the card check
        if not document.get("signatures"):
            if self.options.card_jwks:
                raise ValueError("--card-jwks was given, but the card carries no signature")
            raise Skip("the card is not signed (the kit signs it with its push notification key)")
        jwks = self.options.card_jwks or self._jwks_url()
        header = await verify(self.http, ReadCard(card, client.interfaces, document), jwks)
        source = "--card-jwks" if self.options.card_jwks else f"the agent's JWKS ({jwks})"
        return f"verified with {source}, key {header.get('kid')}"

    async def _extended(self, client: A2AClient) -> str:
        card = self.card
        assert card is not None
        if not card.supports_authenticated_extended_card:
            raise Skip("the card offers none")
        if not self.options.headers:
            raise Skip("the card offers one to authenticated callers: pass the credential with -H")
        extended = await client.get_extended_card()
        return f"{len(extended.skills)} skill(s) for authenticated callers"

    # --- one interface -------------------------------------------------------------------------

    async def _send(self, client: A2AClient, turn: Turn) -> str:
        result = await client.send_message(self.options.message, blocking=True)
        if isinstance(result, Message):
            return f"the agent answered with a message: {_quote(parts_text(result.parts))}"
        turn.task = task = await self._settled(client, result)
        return _ending(task)

    async def _second_turn(self, client: A2AClient, turn: Turn) -> str:
        task = turn.task
        if task is None:
            raise Skip("send made no task")
        if task.status.state != TaskState.input_required:
            raise Skip(
                f"the agent asked for nothing (its task {task.status.state.value} on the first message)"
            )
        question = _status_text(task)
        result = await client.send_message(self.options.reply, task_id=task.id, blocking=True)
        if isinstance(result, Message):
            return f"the agent answered the reply with a message: {_quote(parts_text(result.parts))}"
        turn.task = task = await self._settled(client, result)
        return f"the agent asked {_quote(question)}; on the reply, " + _ending(task)

    async def _get(self, client: A2AClient, turn: Turn) -> str:
        task = turn.task
        if task is None:
            raise Skip("send made no task")
        got = await client.get_task(task.id)
        if got.id != task.id or got.status.state != task.status.state:
            raise ValueError(
                f"get answered task {got.id} {got.status.state.value}, not {task.status.state.value}"
            )
        return f"task {task.id}: {got.status.state.value}, {len(got.history or [])} message(s)"

    async def _list(self, client: A2AClient, interface: Interface, turn: Turn) -> str:
        if not interface.is_v1:
            raise Skip(f"ListTasks is A2A 1.0 only, not {interface.version}")
        task = turn.task
        if task is None:
            raise Skip("send made no task")
        page = await client.list_tasks(context_id=task.context_id)
        if task.id not in {listed.id for listed in page.tasks}:
            raise ValueError(f"ListTasks of context {task.context_id} does not list task {task.id}")
        return f"listed ({page.total_size} task(s) in its context)"

    async def _stream(self, client: A2AClient) -> str:
        assert self.card is not None
        if not self.card.capabilities.streaming:
            raise Skip("the card says the agent does not stream (capabilities.streaming)")
        count, last = 0, None
        async with client.stream_message(self.options.message) as events:
            async for event in events:
                count, last = count + 1, event
        if last is None or not is_final(last):
            raise ValueError(f"the stream ended after {count} event(s) without a final one")
        if isinstance(last, Message):
            return f"{count} event(s), ending with a message"
        assert not isinstance(last, TaskArtifactUpdateEvent)  # is_final: never an artifact
        state = last.status.state
        if state in UNSUCCESSFUL:
            raise ValueError(f"{count} event(s); the agent's task ended {state.value}")
        return f"{count} event(s), the task is {state.value}"

    async def _cancel(self, client: A2AClient) -> str:
        started = await client.send_message(self.options.message, blocking=False)
        if isinstance(started, Message):
            raise Skip("the agent answers with messages, not tasks: there is nothing to cancel")
        try:
            canceled = await client.cancel_task(started.id)
        except TaskNotCancelableError:
            ended = await client.get_task(started.id)
            return (
                f"the task had already {ended.status.state.value}; the agent refused to cancel it, "
                "as the protocol says (TaskNotCancelableError)"
            )
        if canceled.status.state != TaskState.canceled:
            raise ValueError(f"cancel answered with the task {canceled.status.state.value}")
        again = await client.get_task(started.id)
        if again.status.state != TaskState.canceled:
            raise ValueError(f"canceled, but a get then found the task {again.status.state.value}")
        return "canceled, and a get finds it canceled"

    async def _push(self, client: A2AClient, interface: Interface) -> str:
        webhook, receiver = self.options.webhook, self.options.receiver
        assert self.card is not None
        if webhook is None:
            raise Skip("give --webhook URL (a receiver the agent can reach) to check push notifications")
        if not self.card.capabilities.push_notifications:
            raise ValueError("--webhook was given, but the card says the agent sends no push notifications")
        started = asyncio.get_running_loop().time()
        token = secrets.token_urlsafe(16)
        config = PushNotificationConfig(url=webhook, token=token)
        result = await client.send_message(self.options.message, blocking=False, push_config=config)
        if isinstance(result, Message):
            raise Skip("the agent answers with messages, not tasks: nothing to notify about")
        configs = await client.list_push_configs(result.id)
        if not any(c.push_notification_config.url == webhook for c in configs):
            raise ValueError(f"the agent took the message but lists no config for {webhook}")
        task = await self._settled(client, result)
        if receiver is None:
            return (
                f"the agent accepted the webhook for task {task.id} ({task.status.state.value}); only your "
                f"receiver can tell whether it arrived (X-A2A-Notification-Token: {token})"
            )
        published = await self.http.get(self._jwks_url())
        jwks = published.raise_for_status().json()
        left = self.options.timeout - (asyncio.get_running_loop().time() - started) - 0.5
        return await receiver.verified(
            task.id, token, audience=webhook, issuer=self.card.url, jwks=jwks, within=max(left, 0.5)
        )

    # --- helpers -------------------------------------------------------------------------------

    async def _step(self, name: str, interface: str | None, check: Callable[[], Awaitable[str]]) -> bool:
        try:
            async with asyncio.timeout(self.options.timeout):
                detail = await check()
        except Skip as skip:
            self.emit(CheckResult(name, "skipped", str(skip), interface))
            return False
        except TimeoutError:
            self.emit(CheckResult(name, "failed", f"no answer within {self.options.timeout:g} s", interface))
            return False
        except EXPECTED as error:
            self.emit(CheckResult(name, "failed", _reason(error), interface))
            return False
        self.emit(CheckResult(name, "ok", detail, interface))
        return True

    def _jwks_url(self) -> str:
        """Where the kit publishes the keys that sign its card and notifications."""
        assert self.card is not None
        return _url(self.card.url, ".well-known/jwks.json")

    def _client(self, *, binding: str | None = None, version: str | None = None) -> A2AClient:
        return A2AClient(
            self.options.url,
            httpx_client=self.http,
            headers=self.options.headers,
            binding=binding,
            protocol_version=version,
        )

    async def _settled(self, client: A2AClient, task: Task) -> Task:
        """The task once its turn has ended (a blocking send may come back early)."""
        backoff = Backoff(0.2, 2.0)
        while not is_final(task):
            await asyncio.sleep(backoff.next())
            task = await client.get_task(task.id)
        return task


def _ending(task: Task) -> str:
    state = task.status.state
    said = _status_text(task)
    text = f"the task is {state.value}" + (f": {_quote(said)}" if said else "")
    if state in UNSUCCESSFUL:
        raise ValueError(text)
    return text


def _status_text(task: Task) -> str:
    message = task.status.message
    return parts_text(message.parts) if message else ""


def _quote(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return '"' + (flat if len(flat) <= limit else flat[: limit - 3] + "...") + '"'


def _reason(error: BaseException) -> str:
    if isinstance(error, A2AError):
        return f"the agent answered error {error.code} ({type(error).__name__}): {error.message}"
    return str(error) or type(error).__name__


def _url(base: str, path: str) -> str:
    root = httpx.URL(base)
    root = root if root.path.endswith("/") else root.copy_with(path=root.path + "/")
    return str(root.join(path))
