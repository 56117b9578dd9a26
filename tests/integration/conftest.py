from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from a2a_core.compose.app import compose_app
from a2a_core.examples.echo import agent as echo
from support import Stack


@pytest.fixture
def stack() -> Stack:
    return Stack(echo, max_body_bytes=64 * 1024)


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=compose_app(stack.service))
    async with httpx.AsyncClient(transport=transport, base_url="http://agent.test") as client:
        yield client


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """The Lambda process's event loop: Mangum runs each invocation on the thread's loop, and the
    tests run their own coroutines on it too; closed afterwards."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield loop
    asyncio.set_event_loop(None)
    loop.close()
