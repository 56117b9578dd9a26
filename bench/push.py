"""Push notification benchmarks: handler throughput and end-to-end delay on the local stack.

1. Throughput: one push handler (`a2a_core.aws.push_stream`, the code the push Lambda runs)
   is fed Lambda-shaped DynamoDB stream events, ``--batch`` records each (the event source's batch
   size), every record a task reaching ``completed`` with one webhook config. It loads the task and
   its config, signs an ES256 JWT and POSTs to a receiver on 127.0.0.1. Reported: notifications
   delivered per second, for the in-memory stores with an in-process key (the handler's own cost)
   and for the local stack (DynamoDB and S3 on moto, the key in moto's KMS: every read and every
   signature is an HTTP call to the emulator, an upper bound).
2. End-to-end delay on the local stack (what `a2a-serverless dev` runs): a worker-style status
   write of ``completed`` to the DynamoDB table on moto, its stream record picked up by the dev
   stream poller, the push handler, the POST; measured from just before the write to the moment
   the receiver has the request.

    .venv/bin/python bench/push.py [--notifications 400] [--batch 10] [--samples 40] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
# The push function's clients (KMS, the table) take the usual credential chain; moto accepts any.
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")

import smoke  # noqa: E402
from a2a_core.aws.kms_signer import KmsSigner  # noqa: E402
from a2a_core.aws.push_stream import push_stream_handler  # noqa: E402
from a2a_core.compose.aws import build_kms_client, build_push_store, build_task_store  # noqa: E402
from a2a_core.compose.backends import build_adapters  # noqa: E402
from a2a_core.compose.push import build_sender  # noqa: E402
from a2a_core.core.push_store import InMemoryPushConfigStore, PushConfigStore  # noqa: E402
from a2a_core.core.tasklog.changes import Change, status  # noqa: E402
from a2a_core.core.tasklog.ledger import TaskLedger  # noqa: E402
from a2a_core.core.tasklog.records import Commit  # noqa: E402
from a2a_core.core.tasklog.store import InMemoryTaskStore, TaskStore  # noqa: E402
from a2a_core.dev.emulated import push_poller  # noqa: E402
from a2a_core.domain import Message, PushNotificationConfig, Role, TaskState, TextPart  # noqa: E402
from a2a_core.emulator.lambda_shapes import LocalLambdaContext  # noqa: E402
from a2a_core.emulator.moto_server import start_emulator  # noqa: E402
from a2a_core.push.dead_letters import InMemoryPushDeadLetters  # noqa: E402
from a2a_core.push.notifier import PushNotifier  # noqa: E402
from a2a_core.push.signing import LocalSigner, Signer  # noqa: E402
from a2a_core.settings import Settings  # noqa: E402
from push_receiver import Receiver  # noqa: E402

SETTINGS = Settings(
    push_enabled=True, push_allow_insecure_loopback=True, public_url="https://agent.example.com/"
)


async def make_tasks(store: TaskStore, configs: PushConfigStore, count: int, url: str) -> list[Commit]:
    """``count`` tasks taken to completed, each with one config; their completing commits."""
    ledger = TaskLedger(store)

    async def one() -> Commit:
        task_id = str(uuid.uuid4())
        message = Message(role=Role.user, parts=[TextPart(text="benchmark")], message_id=str(uuid.uuid4()))
        await ledger.create(task_id=task_id, context_id="bench", message=message, run_id="r")
        await configs.put(task_id, PushNotificationConfig(url=url, id="c1", token=uuid.uuid4().hex))
        await ledger.write(task_id, lambda head: Change([status(TaskState.working)]))
        commit = await ledger.write(task_id, lambda head: Change([status(TaskState.completed)]))
        assert commit is not None
        return commit

    slots = asyncio.Semaphore(16)

    async def bounded() -> Commit:
        async with slots:
            return await one()

    return list(await asyncio.gather(*(bounded() for _ in range(count))))


def stream_record(commit: Commit, sequence: int) -> dict[str, Any]:
    """The stream record DynamoDB emits for the commit's item (see `DynamoDBTaskStore`)."""
    image = {
        "pk": {"S": f"TASK#{commit.task_id}"},
        "sk": {"S": f"EVT#{commit.first_seq:010d}"},
        "task_id": {"S": commit.task_id},
        "first_seq": {"N": str(commit.first_seq)},
        "last_seq": {"N": str(commit.last_seq)},
        "state": {"S": commit.state.value},
        "body": {"S": commit.model_dump_json(exclude_none=True)},
    }
    return {
        "eventID": uuid.uuid4().hex,
        "eventName": "INSERT",
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "dynamodb": {
            "ApproximateCreationDateTime": time.time(),
            "Keys": {"pk": image["pk"], "sk": image["sk"]},
            "NewImage": image,
            "SequenceNumber": str(sequence),
            "SizeBytes": 512,
            "StreamViewType": "NEW_IMAGE",
        },
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/bench/stream/1",
    }


# A minimal webhook in its own process (so it takes no CPU from the handler in this one): reads a
# request, answers 204, closes.
RECEIVER = """
import asyncio

async def serve(reader, writer):
    head = await reader.readuntil(b"\\r\\n\\r\\n")
    lines = head.lower().split(b"\\r\\n")
    length = next((int(l.split(b":")[1]) for l in lines if l.startswith(b"content-length:")), 0)
    await reader.readexactly(length)
    writer.write(b"HTTP/1.1 204 No Content\\r\\nConnection: close\\r\\n\\r\\n")
    await writer.drain()
    writer.close()

async def main():
    server = await asyncio.start_server(serve, "127.0.0.1", 0, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()

asyncio.run(main())
"""


def throughput(
    store: TaskStore, configs: PushConfigStore, signer: Signer, *, count: int, batch: int
) -> dict[str, float]:
    receiver = subprocess.Popen([sys.executable, "-c", RECEIVER], stdout=subprocess.PIPE, text=True)
    try:
        assert receiver.stdout is not None
        url = f"http://127.0.0.1:{int(receiver.stdout.readline())}/hook"
        commits = asyncio.run(make_tasks(store, configs, count, url))
        sender = build_sender(SETTINGS, signer)
        dead_letters = InMemoryPushDeadLetters()
        handler = push_stream_handler(PushNotifier(TaskLedger(store), configs, sender, dead_letters))
        events = [
            {"Records": [stream_record(c, i + n) for n, c in enumerate(commits[i : i + batch])]}
            for i in range(0, len(commits), batch)
        ]
        started = time.perf_counter()
        for event in events:
            response = handler(event, LocalLambdaContext("bench-push", timeout_seconds=60))
            assert response == {"batchItemFailures": []}, response
        elapsed = time.perf_counter() - started
        assert dead_letters.letters() == []  # every notification got its 2xx
        return {"notifications": count, "seconds": elapsed, "per_second": count / elapsed}
    finally:
        receiver.terminate()
        receiver.wait(5)
        if receiver.stdout is not None:
            receiver.stdout.close()


async def end_to_end_delay(samples: int) -> dict[str, float]:
    aws = start_emulator()
    receiver = Receiver().start()
    stop = asyncio.Event()
    try:
        settings = SETTINGS.model_copy(
            update={
                "backend": "local",
                "aws_endpoint_url": aws.endpoint_url,
                "aws_region": aws.region,
                "table_name": aws.names.table,
                "bucket_name": aws.names.bucket,
                "push_dlq_url": aws.names.push_dlq_url,
            }
        )
        store = build_task_store(settings, aws.clients)
        configs = build_push_store(settings, aws.clients)
        ledger = TaskLedger(store)
        poller = asyncio.create_task(
            push_poller(build_adapters(settings, aws.clients), aws, LocalSigner()).run(stop)
        )
        delays, writes = [], []
        for index in range(samples + 3):  # the first three warm up imports, clients, connections
            [commit] = await make_tasks_until_working(ledger, configs, receiver.url())
            started = time.monotonic()
            await ledger.write(commit.task_id, lambda head: Change([status(TaskState.completed)]))
            written = time.monotonic()
            arrived = (await asyncio.to_thread(receiver.wait_for, index + 1, 30))[index].at
            if index >= 3:
                delays.append(arrived - started)
                writes.append(written - started)
        stop.set()
        await poller
        delays.sort()
        return {
            "samples": samples,
            "p50_ms": 1000 * statistics.median(delays),
            "p95_ms": 1000 * delays[int(0.95 * (len(delays) - 1))],
            "max_ms": 1000 * delays[-1],
            "write_p50_ms": 1000 * statistics.median(writes),
        }
    finally:
        stop.set()
        receiver.stop()
        aws.stop()


async def make_tasks_until_working(ledger: TaskLedger, configs: PushConfigStore, url: str) -> list[Commit]:
    task_id = str(uuid.uuid4())
    message = Message(role=Role.user, parts=[TextPart(text="benchmark")], message_id=str(uuid.uuid4()))
    await ledger.create(task_id=task_id, context_id="bench", message=message, run_id="r")
    await configs.put(task_id, PushNotificationConfig(url=url, id="c1"))
    commit = await ledger.write(task_id, lambda head: Change([status(TaskState.working)]))
    assert commit is not None
    return [commit]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notifications", type=int, default=400)
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--json", action="store_true")
    args = smoke.parse(parser, notifications=4, batch=2, samples=1)

    results: dict[str, Any] = {}
    results["memory"] = throughput(
        InMemoryTaskStore(),
        InMemoryPushConfigStore(),
        LocalSigner(),
        count=args.notifications,
        batch=args.batch,
    )
    aws = start_emulator()
    try:
        settings = SETTINGS.model_copy(
            update={
                "aws_endpoint_url": aws.endpoint_url,
                "table_name": aws.names.table,
                "bucket_name": aws.names.bucket,
            }
        )
        kms = build_kms_client(settings)
        key = kms.create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyMetadata"]["KeyId"]
        results["moto"] = throughput(
            build_task_store(settings, aws.clients),
            build_push_store(settings, aws.clients),
            KmsSigner(kms, key),
            count=max(args.notifications // 4, args.batch),
            batch=args.batch,
        )
    finally:
        aws.stop()
    results["end_to_end"] = asyncio.run(end_to_end_delay(args.samples))

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(
        f"Push handler throughput, batches of {args.batch} records, one webhook each (receiver on 127.0.0.1):"
    )
    for name, label in (("memory", "in-memory stores, in-process key"), ("moto", "DynamoDB + KMS on moto")):
        r = results[name]
        rate = f"{r['per_second']:8.1f} notifications/s"
        print(f"  {label:36} {rate}  ({r['notifications']} in {r['seconds']:.2f} s)")
    e = results["end_to_end"]
    print("End-to-end delay on the local stack, status write -> webhook has the POST:")
    print(
        f"  p50 {e['p50_ms']:.0f} ms, p95 {e['p95_ms']:.0f} ms, max {e['max_ms']:.0f} ms over {e['samples']} "
        f"samples (the write itself: p50 {e['write_p50_ms']:.0f} ms)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
