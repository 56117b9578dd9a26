"""`AdkSessionService` against ADK's own `InMemorySessionService`: each scenario runs on both and
must come out the same (state scopes, event windows, listing, deletion), then again on a fresh
service over the same store, as a later turn in another worker sees it. Runs in an ADK
environment (``.venv-frameworks/adk-*``), on the in-memory store and on DynamoDB (moto);
``tests/e2e/test_framework_sessions.py`` runs it there."""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from google.adk.errors.already_exists_error import AlreadyExistsError
from google.adk.errors.session_not_found_error import SessionNotFoundError
from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.adk.sessions import InMemorySessionService
from google.adk.sessions.base_session_service import BaseSessionService, GetSessionConfig
from google.adk.sessions.session import Session
from google.genai import types

from a2a_core.adapters.adk import AdkSessionService
from a2a_core.core.turn.session_scope import SessionScope, entered
from a2a_core.core.turn.session_store import SessionStore

pytest_plugins = ["frameworks.stores"]  # the stores it runs on
pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings(r"ignore:\[EXPERIMENTAL\]:UserWarning")]
warnings.filterwarnings("ignore", message=r"\[EXPERIMENTAL\]", category=UserWarning)

APP = "word_counter"


def event(text: str, *, author: str = "user", timestamp: float, delta: dict[str, Any] | None = None) -> Event:
    return Event(
        invocation_id="inv",
        author=author,
        content=types.Content(role="user" if author == "user" else "model", parts=[types.Part(text=text)]),
        actions=EventActions(state_delta=delta or {}),
        timestamp=timestamp,
    )


def seen(session: Session | None) -> Any:
    """What a caller can tell of a session."""
    if session is None:
        return None
    texts = [e.content.parts[0].text for e in session.events if e.content and e.content.parts]
    return (session.id, session.user_id, dict(sorted(session.state.items())), texts)


Scenario = Callable[[BaseSessionService], Awaitable[list[Any]]]


async def scopes(service: BaseSessionService) -> list[Any]:
    s1 = await service.create_session(
        app_name=APP, user_id="u1", session_id="s1", state={"app:a": 1, "user:u": 2, "temp:t": 3, "s": 4}
    )
    out = [seen(s1)]
    e1 = event("hello", timestamp=10.0, delta={"app:a": 5, "user:v": 6, "temp:x": 7, "k": 8})
    await service.append_event(s1, e1)
    out.append(seen(s1))  # the running invocation's object sees temp: state too
    out.append(seen(await service.get_session(app_name=APP, user_id="u1", session_id="s1")))
    s2 = await service.create_session(app_name=APP, user_id="u1", session_id="s2")
    s3 = await service.create_session(app_name=APP, user_id="u2", session_id="s3")
    out += [seen(s2), seen(s3)]
    out.append(await service.get_user_state(app_name=APP, user_id="u1"))
    out.append(await service.get_user_state(app_name=APP, user_id="nobody"))
    return out


async def windows(service: BaseSessionService) -> list[Any]:
    s = await service.create_session(app_name=APP, user_id="u", session_id="w")
    for n in range(1, 6):
        await service.append_event(s, event(f"m{n}", timestamp=float(n)))
    await service.append_event(s, Event(author="model", partial=True, timestamp=9.0))  # never stored
    out = []
    for config in (
        None,
        GetSessionConfig(num_recent_events=0),
        GetSessionConfig(num_recent_events=2),
        GetSessionConfig(after_timestamp=3.0),
        GetSessionConfig(num_recent_events=4, after_timestamp=2.5),
    ):
        out.append(seen(await service.get_session(app_name=APP, user_id="u", session_id="w", config=config)))
    return out


async def redelivery(service: BaseSessionService) -> list[Any]:
    s = await service.create_session(app_name=APP, user_id="u", session_id="r")
    e = event("once", timestamp=1.0, delta={"n": 1})
    await service.append_event(s, e)
    await service.append_event(s, e)  # re-delivered: neither the entry nor its delta again
    return [seen(await service.get_session(app_name=APP, user_id="u", session_id="r"))]


async def listing_and_deleting(service: BaseSessionService) -> list[Any]:
    for user, sid, when in (("u1", "a", 3.0), ("u1", "b", 1.0), ("u2", "c", 2.0)):
        s = await service.create_session(app_name=APP, user_id=user, session_id=sid)
        await service.append_event(s, event(sid, timestamp=when))
    out: list[Any] = [
        [
            (s.user_id, s.id, s.events)
            for s in (await service.list_sessions(app_name=APP, user_id="u1")).sessions
        ],
        [(s.user_id, s.id) for s in (await service.list_sessions(app_name=APP)).sessions],
        [s.id for s in (await service.list_sessions(app_name=APP, user_id="nobody")).sessions],
    ]
    await service.delete_session(app_name=APP, user_id="u1", session_id="a")
    await service.delete_session(app_name=APP, user_id="u1", session_id="never")
    out.append(seen(await service.get_session(app_name=APP, user_id="u1", session_id="a")))
    out.append([s.id for s in (await service.list_sessions(app_name=APP, user_id="u1")).sessions])
    again = await service.create_session(app_name=APP, user_id="u1", session_id="a")
    out.append(seen(again))  # a new session under the old id: no old events
    out.append(seen(await service.get_session(app_name=APP, user_id="u1", session_id="a")))
    return out


async def errors(service: BaseSessionService) -> list[Any]:
    s = await service.create_session(app_name=APP, user_id="u", session_id=" padded ")
    out: list[Any] = [s.id]
    with pytest.raises(AlreadyExistsError):
        await service.create_session(app_name=APP, user_id="u", session_id="padded")
    ghost = Session(app_name=APP, user_id="u", id="ghost")
    with pytest.raises(SessionNotFoundError):
        await service.append_event(ghost, event("lost", timestamp=1.0))
    out.append(seen(await service.get_session(app_name=APP, user_id="u", session_id="ghost")))
    out.append(seen(await service.get_session(app_name="other", user_id="u", session_id="padded")))
    return out


SCENARIOS = [scopes, windows, redelivery, listing_and_deleting, errors]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
async def test_it_behaves_as_adks_in_memory_service(scenario: Scenario, store: SessionStore) -> None:
    assert await scenario(AdkSessionService(store)) == await scenario(InMemorySessionService())


async def test_a_fresh_service_on_the_same_store_continues_the_session(store: SessionStore) -> None:
    first = AdkSessionService(store)
    s = await first.create_session(app_name=APP, user_id="u", session_id="c", state={"user:name": "Ada"})
    await first.append_event(s, event("count a b", timestamp=1.0, delta={"turns": 1}))
    await first.append_event(s, event("That is 2 words.", author="word_counter", timestamp=2.0))
    later = await AdkSessionService(store).get_session(app_name=APP, user_id="u", session_id="c")
    assert seen(later) == ("c", "u", {"turns": 1, "user:name": "Ada"}, ["count a b", "That is 2 words."])
    assert later is not None
    assert [e.id for e in later.events] == [e.id for e in s.events]


async def test_a_caller_reusing_another_callers_context_id_reads_nothing_of_theirs(
    store: SessionStore,
) -> None:
    service = AdkSessionService()  # in a turn: the worker's scope
    with entered(SessionScope(store, "alice")):
        s = await service.create_session(
            app_name=APP, user_id="A2A_USER_ctx", session_id="ctx", state={"app:k": 1}
        )
        await service.append_event(s, event("alice's secret", timestamp=1.0))
    with entered(SessionScope(store, "bob")):
        assert await service.get_session(app_name=APP, user_id="A2A_USER_ctx", session_id="ctx") is None
        mine = await service.create_session(app_name=APP, user_id="A2A_USER_ctx", session_id="ctx")
        assert seen(mine) == ("ctx", "A2A_USER_ctx", {}, [])
        assert (await service.list_sessions(app_name=APP)).sessions[0].events == []


def test_outside_a_turn_and_without_a_store_it_says_so() -> None:
    import asyncio

    with pytest.raises(RuntimeError, match="no turn is running"):
        asyncio.run(AdkSessionService().get_session(app_name=APP, user_id="u", session_id="s"))


def test_two_workers_appending_to_one_session_lose_no_event_and_store_none_twice(store: SessionStore) -> None:
    import asyncio
    import threading

    asyncio.run(AdkSessionService(store).create_session(app_name=APP, user_id="u", session_id="busy"))
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def worker(name: str) -> None:
        async def work() -> None:
            service = AdkSessionService(store)  # each worker its own service, as two Lambdas
            session = await service.get_session(app_name=APP, user_id="u", session_id="busy")
            assert session is not None
            for n in range(6):
                await service.append_event(session, event(f"{name}{n}", timestamp=float(n), delta={name: n}))

        start.wait(10)
        try:
            asyncio.run(work())
        except BaseException as error:  # noqa: BLE001 - handed to the test thread
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(name,)) for name in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    found = asyncio.run(AdkSessionService(store).get_session(app_name=APP, user_id="u", session_id="busy"))
    assert found is not None
    texts = seen(found)[3]
    assert sorted(texts) == sorted(f"{n}{i}" for n in "ab" for i in range(6))
    for name in "ab":
        assert [t for t in texts if t.startswith(name)] == [f"{name}{i}" for i in range(6)]
    assert (found.state["a"], found.state["b"]) == (5, 5)
