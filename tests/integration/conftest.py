from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from a2a_core.app import create_app
from a2a_core.examples.echo import agent as echo
from support import Stack


@pytest.fixture
def stack() -> Stack:
    return Stack(echo, max_body_bytes=64 * 1024)


@pytest.fixture
async def client(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(stack.service))
    async with httpx.AsyncClient(transport=transport, base_url="http://agent.test") as client:
        yield client
