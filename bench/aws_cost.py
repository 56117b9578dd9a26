"""The whole bill of a simple task, counted on the local (moto) stack, per front door.

A simple task: a non-blocking ``message/send`` through the API Lambda handler, the worker Lambda
handler completing it (fed by the same poller `a2a-serverless dev` uses, which does what the SQS
event source mapping does), then one ``tasks/get``; the stack as deployed with push on, so the
table's stream goes through the push function's filter (`a2a_core.aws.event_filters`) and every
record it lets through invokes the push handler. Counted, per task:

- every AWS call the handlers make (the lean client's hooks): DynamoDB read and write units from
  item sizes the way DynamoDB bills them (writes: ceil(item KB), an update the larger of the
  item's sizes before and after it; an item carrying an index's keys writes the index entry too,
  sized by what the index projects, and an update removing them deletes it; strongly consistent
  queries: ceil(sum of returned item sizes / 4 KB)), SQS requests, KMS signatures;
- Lambda invocations and their duration against moto (an upper bound: moto answers slower than
  DynamoDB does), the agent's own compute excluded;
- the log bytes each function writes (its real lines, at the stack's levels: Powertools' at
  INFO, the standard library's at WARNING as the Lambda runtime leaves it), Lambda's START, END
  and REPORT lines (`cost_model.PLATFORM_LINES`) and API Gateway's access log line
  (`a2a_core.aws.access_logs`); CloudWatch Logs adds 26 bytes to each event;
- X-Ray traces at the default rule's 5% (REST stage tracing, active tracing on every function:
  each API request starts a trace, the worker joins its send's through SQS, a push invocation
  from the stream starts one);
- what the task keeps stored for the stack's retention (30 days): its items in the table and the
  owner index, with DynamoDB's 100 bytes per item, and point-in-time recovery of the table.

Prices: us-east-1 list prices (`cost_model`). The API requests are priced for the front door
the stack was deployed with, each run fed that door's events with its auth as deployed: the REST
API ($3.50/M, payload 1.0; API keys checked by API Gateway's usage plan), the HTTP API ($1.00/M,
payload 2.0; JWTs checked by API Gateway) or a Lambda function URL (free, payload 2.0; API keys
checked by the app: its key lookups and rate bucket writes are the DynamoDB calls counted, with
the deployed cache and lease settings), and the function URL with IAM callers
(``function_url_iam``: Lambda checks SigV4, the app pays nothing). Every door's client keeps to
an API key's default limit (10 requests/s), so their compute differs only by what they do.
``--push-config`` gives every task a webhook (on 127.0.0.1): what a notified task adds.
``--before`` runs the same as the stack ran before these line items were cut: the stream's filter
letting every new commit through to the push function, the worker timing every turn's message
(``A2A_RECOVERY_HOLD_AFTER_SECONDS=0``, which is the default again: prompt recovery first), the
access logs' former fields. ``--hold-after 2`` prices the option of not timing a turn's message
until it has run 2 s (one SQS request less per short turn; a worker dying in those 2 s has its
turn resumed only after the queue's visibility timeout).

    .venv/bin/python bench/aws_cost.py [--tasks 50] [--json] [--push-config] [--before] [--hold-after S]
        [--front-door all|rest_api|http_api|function_url|function_url_iam]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import cost_model  # noqa: E402
import smoke  # noqa: E402
from a2a_core.auth.key_store import generate_key  # noqa: E402
from a2a_core.aws import access_logs  # noqa: E402
from a2a_core.aws import clients as aws_clients  # noqa: E402
from a2a_core.aws.clients import client_factory  # noqa: E402
from a2a_core.aws.dynamodb.api_keys import DynamoDBApiKeyStore  # noqa: E402
from a2a_core.aws.event_filters import PUSH_STREAM_FILTERS, matches  # noqa: E402
from a2a_core.emulator.moto_server import EmulatedAws, start_emulator  # noqa: E402
from a2a_core.emulator.pollers import SqsPoller  # noqa: E402
from a2a_core.emulator.stream_poller import lambda_record  # noqa: E402
from a2a_core.push.urls import UrlPolicy  # noqa: E402
from a2a_core.settings import Settings  # noqa: E402
from cost_doors import (  # noqa: E402
    ACCESS_LOGS,
    APP_AUTH_ENV,
    BEFORE_ACCESS_LOGS,
    BEFORE_FILTERS,
    FRONT_DOORS,
    URL_KEY,
)
from cost_meter import (  # noqa: E402 (item_size, Meter: what other benchmarks import from here)
    Invocations,
    LogTap,
    Meter,
    item_size,
    lambda_logging,
    redirect_function_loggers,
)
from cost_model import MEMORY_GB, PRICES  # noqa: E402
from cost_print import print_report, print_summary  # noqa: E402
from lambda_events import FakeLambdaContext  # noqa: E402

__all__ = ["PRICES", "Meter", "item_size", "run"]
RETENTION_DAYS = Settings().retention_days


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def front_door_env(
    front_door: str, aws: Any, *, before: bool = False, hold_after: float | None = None
) -> Iterator[None]:
    hold = "0" if before else None if hold_after is None else str(hold_after)
    env = {**APP_AUTH_ENV.get(front_door, {}), **({"A2A_RECOVERY_HOLD_AFTER_SECONDS": hold} if hold else {})}
    new = generate_key("bench", now=time.time())
    asyncio.run(DynamoDBApiKeyStore(aws.clients.dynamodb, aws.names.table).add(new.stored))
    URL_KEY["key"] = new.key
    os.environ.update(env)
    try:
        yield
    finally:
        for name in env:
            os.environ.pop(name, None)


def run(
    tasks: int,
    front_door: str = "rest_api",
    *,
    push_config: bool = False,
    before: bool = False,
    hold_after: float | None = None,
) -> dict[str, Any]:
    aws = start_emulator()
    try:
        with front_door_env(front_door, aws, before=before, hold_after=hold_after):
            return _run(aws, tasks, front_door, push_config, before)
    finally:
        aws.stop()


@contextlib.contextmanager
def metered_clients(meter: Meter) -> Iterator[None]:
    """Every client the handlers build (their DynamoDB, SQS and S3; the push signer's KMS) counted."""
    build, kms = aws_clients.build_clients, aws_clients.kms_client

    def metered(region: str, endpoint_url: str | None = None, **kwargs: Any) -> aws_clients.AwsClients:
        built = build(region, endpoint_url, **kwargs)
        for client in (built.dynamodb, built.sqs, built.s3):
            meter.attach(client)
        return built

    def metered_kms(*args: Any, **kwargs: Any) -> Any:
        client = kms(*args, **kwargs)
        meter.attach(client)
        return client

    aws_clients.build_clients, aws_clients.kms_client = metered, metered_kms
    try:
        yield
    finally:
        aws_clients.build_clients, aws_clients.kms_client = build, kms


class _Stack:
    """The handlers as the stack deploys them (push on), their clients metered (`metered_clients`),
    their loggers writing to ``tap``."""

    def __init__(self, aws: EmulatedAws, meter: Meter, invocations: Invocations, tap: LogTap) -> None:
        make = client_factory(aws.region, aws.endpoint_url, read_timeout=10, credentials=aws.credentials)
        key_id = make("kms").create_key(KeySpec="ECC_NIST_P256", KeyUsage="SIGN_VERIFY")["KeyMetadata"][
            "KeyId"
        ]
        os.environ.update(_environment(aws, key_id))
        # The API takes the webhooks of --push-config, which listen on loopback (as in dev).
        os.environ["A2A_PUSH_ALLOW_INSECURE_LOOPBACK"] = "true"
        try:
            api = load("api_handler", ROOT / "src/a2a_core/functions/api/handler.py")
        finally:
            del os.environ["A2A_PUSH_ALLOW_INSECURE_LOOPBACK"]
        # Every door alike: see the docstring.
        self.api = paced(invocations.timed("api", api.handler), 1 / Settings().api_key_rate_limit)
        worker = load("worker_handler", ROOT / "src/a2a_core/functions/worker/handler.py")
        push = load("push_handler", ROOT / "src/a2a_core/functions/push/handler.py")
        # The webhooks of --push-config listen on loopback, which the push function refuses in AWS.
        push.notifier.sender.policy = UrlPolicy(allow_insecure_loopback=True)
        self.push = invocations.timed("push", push.handler)
        poller_sqs = aws_clients.build_clients(aws.region, aws.endpoint_url).sqs
        # The event source mapping's receives and deletes are billed requests too.
        timed_worker = invocations.timed("worker", worker.handler)
        self.poller = SqsPoller(
            poller_sqs, aws.names.queue_url, timed_worker, function_name="worker", region=aws.region
        )
        self.streams = make("dynamodbstreams")
        self.stream_arn = aws.clients.dynamodb.describe_table(TableName=aws.names.table)["Table"][
            "LatestStreamArn"
        ]
        self.region = aws.region
        self._iterator: str | None = None
        redirect_function_loggers(tap)

    def new_records(self) -> list[dict[str, Any]]:
        """The table's stream records since the last call, as the event source hands them over."""
        if self._iterator is None:
            shard = self.streams.describe_stream(StreamArn=self.stream_arn)["StreamDescription"]["Shards"][0]
            self._iterator = self.streams.get_shard_iterator(
                StreamArn=self.stream_arn, ShardId=shard["ShardId"], ShardIteratorType="LATEST"
            )["ShardIterator"]
        records = []
        while True:
            page = self.streams.get_records(ShardIterator=self._iterator, Limit=1000)
            self._iterator = page["NextShardIterator"]
            records += page["Records"]
            if not page["Records"]:
                return [lambda_record(r, stream_arn=self.stream_arn, region=self.region) for r in records]


def _environment(aws: EmulatedAws, signing_key: str) -> dict[str, str]:
    return {
        "A2A_BACKEND": "aws",
        "A2A_AWS_ENDPOINT_URL": aws.endpoint_url,
        "A2A_AWS_REGION": aws.region,
        "A2A_TABLE_NAME": aws.names.table,
        "A2A_QUEUE_URL": aws.names.queue_url,
        "A2A_DLQ_URL": aws.names.dlq_url,
        "A2A_BUCKET_NAME": aws.names.bucket,
        "A2A_AGENT": "a2a_core.examples.echo:agent",
        "A2A_ALLOW_UNAUTHENTICATED": "true",
        "A2A_PUBLIC_URL": "https://agent.example.com/",
        # Push on, as the stack deploys it.
        "A2A_PUSH_ENABLED": "true",
        "A2A_PUSH_SIGNING_KEY_ID": signing_key,
        "A2A_PUSH_DLQ_URL": aws.names.push_dlq_url,
        # The handlers take the usual credential chain, as in AWS; moto accepts any.
        "AWS_ACCESS_KEY_ID": os.environ.get("AWS_ACCESS_KEY_ID", "testing"),
        "AWS_SECRET_ACCESS_KEY": os.environ.get("AWS_SECRET_ACCESS_KEY", "testing"),
    }


def _run(aws: EmulatedAws, tasks: int, front_door: str, push_config: bool, before: bool) -> dict[str, Any]:
    filters = BEFORE_FILTERS if before else PUSH_STREAM_FILTERS
    meter, invocations, tap = Meter(without_marks=before), Invocations(), LogTap()
    with lambda_logging(tap), metered_clients(meter), _webhook(push_config) as webhook:
        stack = _Stack(aws, meter, invocations, tap)
        stack.new_records()  # start reading the stream here
        meter.reset()
        invocations.reset()
        tap.reset()
        passed = 0
        for _ in range(tasks):
            simple_task(stack.api, stack.poller, FRONT_DOORS[front_door][0], webhook)
            for record in stack.new_records():
                if any(matches(pattern, record) for pattern in filters):
                    passed += 1
                    # One invocation per record: at low traffic the event source hands records
                    # over as they come (batching under load only lowers this).
                    # In a thread of its own, as the push function runs in a process of its own:
                    # its batch helper's event loop is not the API's (Mangum's).
                    with ThreadPoolExecutor(1) as pool:
                        pool.submit(
                            stack.push, {"Records": [record]}, FakeLambdaContext(function_name="a2a-push")
                        ).result()
    result = report(meter, invocations, tap, tasks, front_door, passed, push_config, before)
    return result


@contextlib.contextmanager
def _webhook(on: bool) -> Iterator[str | None]:
    if not on:
        yield None
        return
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    finally:
        server.shutdown()
        server.server_close()


def paced(fn: Callable[..., Any], interval: float) -> Callable[..., Any]:
    """``fn`` called at most once per ``interval`` seconds (waiting outside the timed call)."""
    last = [0.0]

    def call(*args: Any) -> Any:
        wait = last[0] + interval - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        last[0] = time.monotonic()
        return fn(*args)

    return call


def simple_task(
    api: Callable[..., Any],
    poller: SqsPoller,
    event: Callable[[dict[str, Any], str], dict[str, Any]],
    webhook: str | None = None,
) -> None:
    configuration: dict[str, Any] = {"blocking": False}
    if webhook is not None:
        configuration["pushNotificationConfig"] = {"url": webhook}
    message = {"role": "user", "messageId": str(uuid.uuid4()), "parts": [{"kind": "text", "text": "hi"}]}
    send = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {"message": message, "configuration": configuration},
    }
    answer = json.loads(api(event(send, str(uuid.uuid4())), FakeLambdaContext())["body"])
    if "result" not in answer:
        raise RuntimeError(f"message/send failed: {answer}")
    task = answer["result"]
    # The worker runs on its own thread, as it runs in its own Lambda: the Powertools batch helper
    # owns that thread's event loop, the API handler (Mangum) owns the main thread's.
    with ThreadPoolExecutor(1) as pool:
        while pool.submit(poller.poll_once, 0).result() == 0:
            pass
    get = {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task["id"]}}
    fetched = json.loads(api(event(get, str(uuid.uuid4())), FakeLambdaContext())["body"])["result"]
    if fetched["status"]["state"] != "completed":
        raise RuntimeError(f"task did not complete: {fetched['status']}")


def report(
    meter: Meter,
    invocations: Invocations,
    tap: LogTap,
    tasks: int,
    front_door: str,
    push_records: int,
    push_config: bool = False,
    before: bool = False,
) -> dict[str, Any]:
    per = {
        "write_units": meter.write_units / tasks,
        "read_units": meter.read_units / tasks,
        "sqs_requests": sum(n for name, n in meter.calls.items() if name.startswith("sqs:")) / tasks,
        "kms_signatures": meter.calls["kms:Sign"] / tasks,
        "api_requests": invocations.count["api"] / tasks,
        "lambda_invocations": sum(invocations.count.values()) / tasks,
        "push_invocations": invocations.count["push"] / tasks,
        "push_records_filtered_in": push_records / tasks,
        "gb_seconds": sum(MEMORY_GB[n] * s for n, s in invocations.seconds.items()) / tasks,
        # X-Ray: every invocation is a trace of its own (a worker's is linked to the send's
        # through SQS, not part of it; the stream carries no trace).
        "traces": sum(invocations.count.values()) / tasks,
        "table_bytes": meter.table_bytes / tasks,
        "index_bytes": meter.index_bytes / tasks,
    }
    logs = log_lines(invocations, tap, tasks, (BEFORE_ACCESS_LOGS if before else ACCESS_LOGS)[front_door])
    dollars = {
        "front_door": per["api_requests"] * PRICES[FRONT_DOORS[front_door][1]],
        "lambda_requests": per["lambda_invocations"] * PRICES["lambda_request"],
        "lambda_compute": per["gb_seconds"] * PRICES["lambda_gb_second_arm64"],
        "dynamodb_writes": per["write_units"] * PRICES["dynamodb_write_unit"],
        "dynamodb_reads": per["read_units"] * PRICES["dynamodb_read_unit"],
        "sqs": per["sqs_requests"] * PRICES["sqs_standard_request"],
        "kms": per["kms_signatures"] * PRICES["kms_asymmetric_request"],
        "logs": sum(cost_model.logged_dollars(line["events"], line["bytes"]) for line in logs.values()),
        "xray": cost_model.xray_dollars(per["traces"]),
        **cost_model.storage_dollars(per["table_bytes"], per["index_bytes"], RETENTION_DAYS),
    }
    per_million = {k: round(v * 1e6, 3) for k, v in dollars.items()}
    untraced_logs = sum(
        cost_model.logged_dollars(line["events"], line["bytes"] - line.get("xray_bytes", 0.0))
        for line in logs.values()
    )
    app_auth = {
        name: n / tasks
        for name, n in meter.calls.items()
        if name in ("dynamodb:GetItem", "dynamodb:UpdateItem")
    }
    return {
        "tasks": tasks,
        "front_door": front_door,
        "push_config": push_config,
        "before": before,
        "per_task": {k: round(v, 3) for k, v in per.items()},
        "calls_per_task": {k: round(v / tasks, 2) for k, v in sorted(meter.calls.items())},
        "mean_put_item_bytes": round(sum(meter.item_bytes) / max(1, len(meter.item_bytes))),
        "log_lines_per_task": {k: {n: round(v, 1) for n, v in line.items()} for k, line in logs.items()},
        "app_log_samples": {name: lines[:3] for name, lines in tap.lines.items() if name != "bench"},
        "dollars_per_million_tasks": per_million,
        "total_per_million": round(sum(per_million.values()), 2),
        # With A2AServiceProps(tracing=False): no traces, and REPORT lines without their X-Ray part.
        "total_without_tracing_per_million": round(
            sum(per_million.values()) - per_million["xray"] - per_million["logs"] + untraced_logs * 1e6, 2
        ),
        "app_auth_calls_per_task": {k: round(v, 3) for k, v in app_auth.items()},
        # Every request a key cache miss (0.5 read unit) and a lease of one token (1 write unit).
        "app_auth_worst_case_per_million": round(
            per["api_requests"] * (0.5 * PRICES["dynamodb_read_unit"] + PRICES["dynamodb_write_unit"]) * 1e6,
            3,
        )
        if front_door == "function_url"  # API keys; IAM is checked by Lambda, at no cost
        else 0.0,
        "edge_per_million": round(per["api_requests"] * edge_per_request() * 1e6, 3),
        "lambda_seconds_per_invocation": {
            n: round(s / max(1, invocations.count[n]), 4) for n, s in invocations.seconds.items()
        },
        "snapstart_per_million_at_1pct_cold": round(
            cost_model.snapstart_dollars(MEMORY_GB["api"], 0.01, per["api_requests"])[
                "snapstart_restores_per_task"
            ]
            * 1e6,
            3,
        ),
        "snapstart_cache_per_month": round(
            cost_model.snapstart_dollars(MEMORY_GB["api"], 0.01, 1)["snapstart_cache_per_month"], 2
        ),
    }


def log_lines(
    invocations: Invocations, tap: LogTap, tasks: int, fields: dict[str, str] | None
) -> dict[str, dict[str, float]]:
    """Per task, each source's log events and bytes: each function's own lines and Lambda's
    around its invocations (every function traces actively), and the stage's access log (its
    ``fields``; None: the door keeps none)."""
    lines = {}
    for function, count in invocations.count.items():
        events, size = cost_model.platform_log(count, traced=True)
        lines[function] = {
            "events": (events + tap.events[function]) / tasks,
            "bytes": (size + tap.bytes[function]) / tasks,
            "own_events": tap.events[function] / tasks,
            "own_bytes": tap.bytes[function] / tasks,
            "xray_bytes": count * len(cost_model.XRAY_REPORT_SUFFIX.encode()) / tasks,
        }
    if fields is not None:
        line = access_logs.sample_line(fields, cost_model.ACCESS_LOG_VALUES) + "\n"
        requests = invocations.count["api"] / tasks
        lines["access_log"] = {"events": requests, "bytes": requests * len(line.encode())}
    return lines


def edge_per_request() -> float:
    names = ("cloudfront_https_request", "cloudfront_function", "lambda_edge_request", "lambda_edge_compute")
    return sum(PRICES[name] for name in names) + PRICES["waf_request"]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--front-door", choices=["all", *FRONT_DOORS], default="all")
    parser.add_argument("--push-config", action="store_true", help="every task with a webhook")
    parser.add_argument("--before", action="store_true", help="as the stack ran before the cuts")
    parser.add_argument(
        "--hold-after",
        type=float,
        help="A2A_RECOVERY_HOLD_AFTER_SECONDS (default: the deployed default, 0): a turn shorter than this "
        "pays no SQS visibility change, and a worker dying in it has its turn resumed only after the "
        "queue's visibility timeout",
    )
    parser.add_argument("--json", action="store_true")
    args = smoke.parse(parser, tasks=2)
    doors = list(FRONT_DOORS) if args.front_door == "all" else [args.front_door]
    results = [
        run(args.tasks, door, push_config=args.push_config, before=args.before, hold_after=args.hold_after)
        for door in doors
    ]
    if args.json:
        print(json.dumps(results if len(results) > 1 else results[0], indent=2))
        return
    for index, result in enumerate(results):
        if index:
            print("\n" + "-" * 72 + "\n")
        print_report(result)
    if len(results) > 1:
        print_summary(results)


if __name__ == "__main__":
    main()
