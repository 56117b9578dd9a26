"""Reads through snapshots: a few entries whatever the log's length, history paged by exactly the
commits that hold it, and a damaged, missing, newer or older snapshot never changing an answer."""

from __future__ import annotations

import json
import uuid

import pytest

from a2a_core.core.errors import StoreUnavailableError
from a2a_core.core.tasklog.changes import Change, Decide, status
from a2a_core.core.tasklog.ledger import TaskLedger
from a2a_core.core.tasklog.records import (
    ArtifactUpdated,
    Commit,
    LogEvent,
    MessageAdded,
    RunLease,
    StatusChanged,
)
from a2a_core.core.tasklog.snapshots import (
    RECENT_MESSAGES,
    SMALL_SNAPSHOT,
    SNAPSHOT_EVERY,
    pack_positions,
    unpack_positions,
)
from a2a_core.core.tasklog.store import InMemoryTaskStore, TaskStore
from a2a_core.domain import Artifact, Message, Role, TaskState, TaskStatus, TextPart
from log_checks import CountingStore, reference_task
from support import user_message

pytestmark = pytest.mark.anyio

LAST = 9_999_999_999
PAGE = SNAPSHOT_EVERY  # the entries one read of the newest snapshot asks for


def agent_message(text: str) -> Message:
    return Message(role=Role.agent, parts=[TextPart(text=text)], message_id=f"a-{uuid.uuid4()}")


def chunk(text: str, *, append: bool = True, artifact_id: str = "answer") -> ArtifactUpdated:
    return ArtifactUpdated(
        seq=0, artifact=Artifact(artifact_id=artifact_id, parts=[TextPart(text=text)]), append=append
    )


def always(change: Change) -> Decide:
    return lambda _head: change


async def write(ledger: TaskLedger, task_id: str, *events: LogEvent) -> Commit:
    def decide(head: Commit) -> Change:
        if not any(isinstance(event, MessageAdded) for event in events):
            return Change(list(events))
        # A message starts the next turn, as the engine writes it (the generation relies on it).
        turn = head.run.turn + 1 if head.run is not None else 0
        return Change(list(events), run=RunLease(run_id=f"turn-{turn}", turn=turn))

    commit = await ledger.write(task_id, decide)
    assert commit is not None
    return commit


async def conversation(ledger: TaskLedger, turns: int, *, chunks: int = 1) -> str:
    """A task of ``turns`` turns: the user's message, ``chunks`` artifact chunks, the agent's
    question; two messages and ``chunks + 2`` commits per turn."""
    task_id = str(uuid.uuid4())
    await ledger.create(task_id=task_id, context_id="ctx", message=user_message("turn 0"), run_id="r")
    for turn in range(turns):
        if turn:
            await write(
                ledger,
                task_id,
                MessageAdded(seq=0, message=user_message(f"turn {turn}")),
                status(TaskState.working),
            )
        else:
            await write(ledger, task_id, status(TaskState.working))
        for index in range(chunks):
            await write(ledger, task_id, chunk(f"{turn}.{index} ", append=index > 0))
        await write(ledger, task_id, status(TaskState.input_required, agent_message(f"question {turn}")))
    return task_id


async def log(store: TaskStore, task_id: str) -> list[Commit]:
    return await store.read(task_id)


async def test_a_long_task_is_read_from_its_newest_snapshot_and_a_few_commits() -> None:
    store = CountingStore(InMemoryTaskStore())
    ledger = TaskLedger(store)
    task_id = await conversation(ledger, 100)  # 301 commits
    store.reset()

    task = await ledger.load(task_id, history_length=RECENT_MESSAGES)

    assert task == reference_task(await log(store.inner, task_id), RECENT_MESSAGES)
    assert store.calls == {"latest": 1}
    assert store.commits <= PAGE


@pytest.mark.parametrize(
    ("cap", "asked", "returned"),
    [
        (100, 0, 0),
        (100, 1, 1),
        (100, 10, 10),
        (100, 11, 11),
        (100, 25, 25),
        (100, 80, 80),
        (100, 95, 80),  # more than the task has
        (100, None, 80),
        (61, 61, 61),
        (61, 90, 61),  # more than the cap
        (61, None, 61),
    ],
)
async def test_history_length_reads_only_the_commits_that_hold_the_messages_asked_for(
    cap: int, asked: int | None, returned: int
) -> None:
    store = CountingStore(InMemoryTaskStore())
    ledger = TaskLedger(store, history_cap=cap)
    task_id = await conversation(ledger, 40, chunks=3)  # 80 messages, 201 commits
    store.reset()

    task = await ledger.load(task_id, history_length=asked)

    assert task == reference_task(await log(store.inner, task_id), returned)
    # The newest snapshot and the commits after it, then each commit holding an older message
    # (here one message per commit, two commits apart: one range read of those).
    older = max(0, returned - RECENT_MESSAGES)
    assert store.commits <= PAGE + 5 * older // 2 + 5


async def test_older_messages_far_apart_are_read_by_key() -> None:
    store = CountingStore(InMemoryTaskStore())
    ledger = TaskLedger(store)
    task_id = await conversation(ledger, 15, chunks=20)  # 30 messages, 20 chunks between each pair
    store.reset()

    task = await ledger.load(task_id, history_length=25)

    assert task == reference_task(await log(store.inner, task_id), 25)
    assert store.calls["commits_at"] == 1
    assert store.commits <= PAGE + 25 - RECENT_MESSAGES


async def test_reads_as_of_a_commit_see_that_commit_and_nothing_after_it() -> None:
    ledger = TaskLedger(InMemoryTaskStore())
    task_id = await conversation(ledger, 12, chunks=2)
    commits = await log(ledger.store, task_id)

    for index, commit in enumerate(commits):
        view = await ledger.view(task_id, through=commit.first_seq, history_length=7)
        assert view.head == commit
        assert view.task == reference_task(commits[: index + 1], 7)


async def test_a_damaged_snapshot_is_skipped_and_a_fresh_one_stored_with_the_head() -> None:
    store = CountingStore(InMemoryTaskStore())
    ledger = TaskLedger(store)
    task_id = await conversation(ledger, 30)
    commits = await log(store.inner, task_id)
    for entry in await store.inner.latest(task_id, limit=3 * PAGE):
        if entry.snapshot is not None:
            await store.inner.attach_snapshot(entry.commit, b'{"format": 1, "task_id": "trunc')
    store.reset()

    assert await ledger.load(task_id, history_length=15) == reference_task(commits, 15)
    assert store.calls["attach_snapshot"] == 1
    [head] = await store.inner.latest(task_id, limit=1)
    assert head.commit == commits[-1]
    assert head.snapshot is not None

    store.reset()
    assert await ledger.load(task_id, history_length=15) == reference_task(commits, 15)
    assert store.calls["latest"] == 1
    assert store.calls["attach_snapshot"] == 0


@pytest.mark.parametrize(
    "damage",
    [
        {"upto": 1},  # it claims to fold less than the commit it is stored with
        {"task_id": "another-task"},
        {"positions": "not base64!"},
        {"status": "completed"},  # not a TaskStatus
    ],
    ids=["upto", "task", "positions", "status"],
)
async def test_a_snapshot_that_does_not_fit_its_commit_is_never_trusted(damage: dict[str, object]) -> None:
    store = InMemoryTaskStore()
    ledger = TaskLedger(store)
    task_id = await conversation(ledger, 20)
    [newest] = [e for e in await store.latest(task_id, limit=PAGE) if e.snapshot is not None][:1]
    assert newest.snapshot is not None
    await store.attach_snapshot(newest.commit, json.dumps({**json.loads(newest.snapshot), **damage}).encode())

    assert await ledger.load(task_id, history_length=30) == reference_task(await log(store, task_id), 30)


async def test_a_log_written_before_snapshots_is_read_whole_once_then_gets_one() -> None:
    store = CountingStore(InMemoryTaskStore())
    writer = TaskLedger(store)
    task_id = await conversation(writer, 20)
    # The same log as an older version wrote it: no marks, no snapshots.
    legacy = InMemoryTaskStore()
    for commit in await log(store.inner, task_id):
        await legacy.append(commit.model_copy(update={"snapshot_mark": None}))
    store = CountingStore(legacy)
    ledger = TaskLedger(store)
    commits = await log(legacy, task_id)

    assert await ledger.load(task_id, history_length=12) == reference_task(commits, 12)
    assert store.calls["attach_snapshot"] == 1
    store.reset()
    assert await ledger.load(task_id, history_length=12) == reference_task(commits, 12)
    assert store.calls == {"latest": 1, "entries": 1}  # its snapshot, and the messages before it

    # The first commit a new version writes after an old head carries a snapshot.
    written = await write(ledger, task_id, status(TaskState.working))
    [entry] = await legacy.latest(task_id, limit=1)
    assert entry.commit == written
    assert entry.snapshot is not None


async def test_a_snapshot_of_a_newer_format_is_skipped_and_left_in_place() -> None:
    store = CountingStore(InMemoryTaskStore())
    ledger = TaskLedger(store)
    task_id = await conversation(ledger, 20)
    commits = await log(store.inner, task_id)
    newer = json.dumps(
        {"format": 2, "task_id": task_id, "upto": commits[-1].last_seq, "layout": "new"}
    ).encode()
    for entry in await store.inner.entries(task_id, 1, LAST):
        if entry.snapshot is not None:
            await store.inner.attach_snapshot(entry.commit, newer)
    store.reset()

    assert await ledger.load(task_id, history_length=5) == reference_task(commits, 5)
    assert store.calls["attach_snapshot"] == 0  # the version that wrote it keeps using it


async def test_a_snapshot_as_the_first_format_wrote_it_is_read() -> None:
    """What version 1 stored must stay readable by every later version (rolling deploys): a
    later version only adds fields with defaults (an unknown one here is ignored)."""
    store = InMemoryTaskStore()
    ledger = TaskLedger(store, snapshot_every=100)  # the only snapshot is the one stored below
    hello = Message(
        role=Role.user, parts=[TextPart(text="hello")], message_id="m1", task_id="t1", context_id="c1"
    )
    await ledger.create(task_id="t1", context_id="c1", message=hello, run_id="m1")
    for _ in range(8):  # seqs 3-10: longer than a page, so a skipped snapshot shows in the reads
        await write(ledger, "t1", status(TaskState.working))
    question = agent_message("Which language?")
    await write(ledger, "t1", status(TaskState.working), chunk("draft ", append=False))  # 11-12
    await write(ledger, "t1", chunk("v2"), status(TaskState.input_required, question))  # 13-14
    await write(ledger, "t1", MessageAdded(seq=0, message=user_message("French")), status(TaskState.working))
    commits = await log(store, "t1")
    asked = commits[-2].events[1]
    assert isinstance(asked, StatusChanged)
    first_format = {
        "format": 1,
        "task_id": "t1",
        "context_id": "c1",
        "upto": 14,
        "status": {
            "state": "input-required",
            "message": question.model_dump(mode="json", by_alias=True),
            "timestamp": asked.status.timestamp,
        },
        "artifacts": [
            {
                "artifactId": "answer",
                "parts": [{"kind": "text", "text": "draft "}, {"kind": "text", "text": "v2"}],
            }
        ],
        "messages": [
            hello.model_dump(mode="json", by_alias=True),
            question.model_dump(mode="json", by_alias=True),
        ],
        "message_count": 2,
        "positions": "eNpj5AEAABAADg==",  # commits 1 and 13: pack_positions([1, 13])
        "added_by_a_later_version": {"anything": True},
    }
    await store.attach_snapshot(commits[-2], json.dumps(first_format).encode())
    counting = CountingStore(store)

    task = await TaskLedger(counting, history_cap=3).load("t1", history_length=3)

    assert task == reference_task(commits, 3)
    assert counting.calls == {"latest": 1}  # it was used, not skipped


async def test_a_read_only_ledger_reads_damaged_snapshots_but_never_writes_one() -> None:
    store = CountingStore(InMemoryTaskStore())
    task_id = await conversation(TaskLedger(store), 20)
    for entry in await store.inner.entries(task_id, 1, LAST):
        if entry.snapshot is not None:
            await store.inner.attach_snapshot(entry.commit, b"")
    store.reset()

    task = await TaskLedger(store, repair_snapshots=False).load(task_id, history_length=4)

    assert task == reference_task(await log(store.inner, task_id), 4)
    assert store.calls["attach_snapshot"] == 0


async def test_a_growing_artifact_is_snapshotted_less_often_as_it_grows() -> None:
    """Copying the merged artifact into a snapshot every few chunks would write O(size) per chunk;
    each snapshot comes after about its own size was appended, so all of them together weigh
    about twice the bytes appended."""
    store = InMemoryTaskStore()
    ledger = TaskLedger(store)
    task_id = str(uuid.uuid4())
    await ledger.create(task_id=task_id, context_id="ctx", message=user_message(), run_id="r")
    head = await write(ledger, task_id, status(TaskState.working), chunk("", append=False))
    for index in range(2000):
        written = await ledger.write(task_id, always(Change([chunk(f"{index:05d}" * 200)])), head=head)
        assert written is not None
        head = written

    entries = await store.entries(task_id, 1, LAST)
    appended = sum(len(entry.commit.model_dump_json(exclude_none=True)) for entry in entries)
    snapshots = [len(entry.snapshot) for entry in entries if entry.snapshot is not None]
    assert sum(snapshots) < 2 * appended + SMALL_SNAPSHOT * len(snapshots)
    assert len(snapshots) < 20  # geometric: about log2(2 MB / 4 KB), not 2000 / 4
    task = await ledger.load(task_id, history_length=1)
    assert task == reference_task([entry.commit for entry in entries], 1)


async def test_status_messages_and_user_messages_of_one_commit_are_paged_in_order() -> None:
    store = InMemoryTaskStore()
    ledger = TaskLedger(store, history_cap=100)
    task_id = str(uuid.uuid4())
    await ledger.create(task_id=task_id, context_id="ctx", message=user_message("0"), run_id="r")
    for turn in range(1, 40):
        # Two messages in one commit: the user's, then a status message.
        await write(
            ledger,
            task_id,
            MessageAdded(seq=0, message=user_message(f"u{turn}")),
            StatusChanged(
                seq=0, status=TaskStatus(state=TaskState.working, message=agent_message(f"a{turn}"))
            ),
        )
    commits = await log(store, task_id)
    for length in (11, 12, 13, 50, 79, 100):
        assert await ledger.load(task_id, history_length=length) == reference_task(commits, length)


async def test_a_damaged_snapshot_far_back_in_a_large_task_is_skipped_too() -> None:
    """Large snapshots are spaced further apart than one page reaches: the head's mark leads the
    reader to the newest one, and if that one is damaged, to the log."""
    store = CountingStore(InMemoryTaskStore())
    ledger = TaskLedger(store)
    task_id = str(uuid.uuid4())
    await ledger.create(task_id=task_id, context_id="ctx", message=user_message(), run_id="r")
    await write(ledger, task_id, status(TaskState.working), chunk("", append=False))
    for index in range(60):
        await write(ledger, task_id, chunk(f"{index:03d}" * 1000))
    head = (await store.inner.latest(task_id, limit=1))[0].commit
    assert head.snapshot_mark is not None
    assert head.snapshot_mark.at is not None
    assert head.snapshot_mark.commits > PAGE  # the newest snapshot is beyond the first page
    commits = await log(store.inner, task_id)
    store.reset()
    assert await ledger.load(task_id, history_length=1) == reference_task(commits, 1)
    assert store.calls == {"latest": 1, "entries": 1}  # the page, then exactly back to the snapshot

    (marked,) = await store.inner.entries(task_id, head.snapshot_mark.at, head.snapshot_mark.at)
    await store.inner.attach_snapshot(marked.commit, b"\x00 not json")
    store.reset()
    assert await ledger.load(task_id, history_length=1) == reference_task(commits, 1)
    assert store.calls["attach_snapshot"] == 1  # the head has a fresh one now
    store.reset()
    assert await ledger.load(task_id, history_length=1) == reference_task(commits, 1)
    assert store.calls == {"latest": 1}


async def test_more_history_than_a_snapshot_indexes_is_read_from_the_log() -> None:
    """A cap raised since the snapshot was written: its positions cover fewer messages."""
    store = InMemoryTaskStore()
    task_id = await conversation(TaskLedger(store, history_cap=20), 30)  # 60 messages
    commits = await log(store, task_id)
    assert await TaskLedger(store, history_cap=100).load(task_id, history_length=50) == reference_task(
        commits, 50
    )


async def test_positions_that_do_not_fit_the_log_are_not_trusted() -> None:
    store = InMemoryTaskStore()
    ledger = TaskLedger(store)
    task_id = await conversation(ledger, 20)
    [newest] = [e for e in await store.latest(task_id, limit=PAGE) if e.snapshot is not None][:1]
    assert newest.snapshot is not None
    stored = json.loads(newest.snapshot)
    count = len(unpack_positions(stored["positions"]))
    # Well-formed, but naming commits that hold no message (or no such commit at all).
    for wrong in ([3] * count, list(range(10_000, 10_000 + count))):
        await store.attach_snapshot(
            newest.commit, json.dumps({**stored, "positions": pack_positions(wrong)}).encode()
        )
        assert await ledger.load(task_id, history_length=30) == reference_task(await log(store, task_id), 30)


async def test_a_read_succeeds_when_its_repaired_snapshot_cannot_be_stored() -> None:
    class Unwritable(InMemoryTaskStore):
        async def attach_snapshot(self, commit: Commit, snapshot: bytes) -> bool:
            raise StoreUnavailableError()

    store = Unwritable()
    task_id = await conversation(TaskLedger(store), 20)
    for entry in await store.entries(task_id, 1, LAST):
        if entry.snapshot is not None:
            await InMemoryTaskStore.attach_snapshot(store, entry.commit, b"")

    task = await TaskLedger(store).load(task_id, history_length=3)

    assert task == reference_task(await log(store, task_id), 3)


async def test_a_list_page_reads_each_task_from_its_snapshot_and_leaves_out_others() -> None:
    store = CountingStore(InMemoryTaskStore())
    ledger = TaskLedger(store)
    mine = [await conversation(ledger, turns) for turns in (1, 10, 40)]
    theirs = str(uuid.uuid4())
    await ledger.create(task_id=theirs, context_id="ctx", message=user_message(), run_id="r", owner="bob")
    store.reset()

    views = await ledger.views([*mine, "missing", theirs], history_length=2, owner="anonymous")

    assert [view.task.id for view in views] == mine
    for view in views:
        assert view.task == reference_task(await log(store.inner, view.task.id), 2)
    assert store.calls["latest"] == 5
