"""What a snapshot stores: message positions packed small and read back exactly; the due rule."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a2a_core.core.tasklog.records import SnapshotMark
from a2a_core.core.tasklog.snapshots import (
    SMALL_SNAPSHOT,
    SNAPSHOT_EVERY,
    is_due,
    pack_positions,
    unpack_positions,
)


@given(st.lists(st.integers(0, 2**40), max_size=300).map(sorted))
def test_positions_are_read_back_as_packed(positions: list[int]) -> None:
    assert unpack_positions(pack_positions(positions)) == positions


def test_a_thousand_positions_of_a_conversation_pack_into_a_few_bytes() -> None:
    regular = [1 + 5 * (i // 2) + 4 * (i % 2) for i in range(1000)]
    irregular = sorted({(i * 7919) % 100_000 for i in range(1000)})
    assert len(pack_positions(regular)) < 100
    assert len(pack_positions(irregular)) < 2000  # about two bytes a position


@pytest.mark.parametrize("damaged", ["not base64!", "AAAA", pack_positions([1, 300])[:-4] + "AAA="])
def test_damaged_positions_are_refused(damaged: str) -> None:
    with pytest.raises(ValueError, match="damaged positions"):
        unpack_positions(damaged)


def test_positions_must_not_decrease() -> None:
    with pytest.raises(ValueError, match="decrease"):
        pack_positions([3, 2])


@pytest.mark.parametrize(
    ("commits", "appended", "size", "due"),
    [
        (SNAPSHOT_EVERY - 1, 10**6, 0, False),  # too few commits, however large
        (SNAPSHOT_EVERY, 0, SMALL_SNAPSHOT, True),  # a small snapshot: every few commits
        (SNAPSHOT_EVERY, 100, SMALL_SNAPSHOT + 101, False),
        (50, 90_000, 100_000, False),  # a large one: once about its size was appended
        (50, 96_000, 100_000, True),
    ],
)
def test_a_snapshot_is_due_after_a_few_commits_and_about_its_own_size(
    commits: int, appended: int, size: int, due: bool
) -> None:
    assert is_due(SnapshotMark(at=1, commits=commits, bytes=appended, size=size)) is due
