"""The anyio plugin (installed with the kit) runs the tests marked ``anyio``; the kit runs on asyncio."""

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
