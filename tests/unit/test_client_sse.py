from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from a2a_core.client.sse import ServerSentEvent, parse_events

pytestmark = pytest.mark.anyio


async def _lines(*lines: str) -> AsyncIterator[str]:
    for line in lines:
        yield line


async def _parse(*lines: str) -> list[ServerSentEvent]:
    return [event async for event in parse_events(_lines(*lines))]


async def test_events_end_at_blank_lines_and_keep_their_ids() -> None:
    events = await _parse("id: 1", "data: {}", "", "data: second", "", "")
    assert events == [ServerSentEvent("{}", "1"), ServerSentEvent("second", None)]


async def test_multi_line_data_is_joined_and_comments_are_skipped() -> None:
    events = await _parse(": keepalive", "", "event: update", "data:a", "data: b", "", ": ping")
    assert events == [ServerSentEvent("a\nb", None, "update")]


async def test_an_event_cut_off_by_the_end_of_the_stream_is_dropped() -> None:
    assert await _parse("id: 7", "data: half") == []


async def test_an_id_holding_nul_is_ignored() -> None:
    assert await _parse("id: a\0b", "data: x", "") == [ServerSentEvent("x", None)]
