"""AWS requests and cost per simple task, counted on the local (moto) stack.

A simple task: a non-blocking ``message/send`` through the API Lambda handler, the worker Lambda
handler completing it (fed by the same poller `a2a-serverless dev` uses, which does what the SQS
event source mapping does), then one ``tasks/get``. Every boto3 call the handlers make is seen
by a botocore event hook: DynamoDB read/write units are computed from item sizes the way
DynamoDB bills them (writes: ceil(item KB); an item carrying an index's keys writes the index
entry too, sized by what the index projects, and an update removing them deletes it; strongly
consistent queries: ceil(sum of returned item sizes / 4 KB)); SQS requests and Lambda
invocations are counted. Prices: us-east-1 list prices; the agent's own compute is
excluded; Lambda durations are those measured here against moto (an upper bound: moto answers
slower than DynamoDB does).

The API requests are priced for the front door the stack was deployed with, each run fed that
door's events with its auth as deployed: the REST API ($3.50/M, payload 1.0; API keys checked by
API Gateway's usage plan), the HTTP API ($1.00/M, payload 2.0; JWTs checked by API Gateway) or a
Lambda function URL (free, payload 2.0; API keys checked by the app: its key lookups and rate
bucket writes are the DynamoDB calls counted, with the deployed cache and lease settings), and
the function URL with IAM callers (``function_url_iam``: Lambda checks SigV4, the app pays
nothing). With ``--front-door all`` (the default) they run one after another. Every door's client
keeps to an API key's default limit (10 requests/s): the API-key door needs it, and pacing alone
makes each call slower (a process idle between calls: ~6.5 ms of API handler time becomes ~10
ms against moto), so every door is paced alike and their compute differs only by what they do.

    .venv/bin/python bench/aws_cost.py [--tasks 50] [--json]
        [--front-door all|rest_api|http_api|function_url|function_url_iam]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import math
import os
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import smoke  # noqa: E402
from a2a_core.auth.key_store import generate_key  # noqa: E402
from a2a_core.aws import clients as aws_clients  # noqa: E402
from a2a_core.aws.dynamodb.api_keys import DynamoDBApiKeyStore  # noqa: E402
from a2a_core.aws.resources import TABLE  # noqa: E402
from a2a_core.emulator.moto_server import start_emulator  # noqa: E402
from a2a_core.emulator.pollers import SqsPoller  # noqa: E402
from a2a_core.settings import Settings  # noqa: E402
from lambda_events import FakeLambdaContext, http_event, rest_event  # noqa: E402

PRICES = {
    "apigw_rest_request": 3.50 / 1e6,
    "apigw_http_request": 1.00 / 1e6,
    "function_url_request": 0.0,
    # CloudFront + WAF in front of a function URL (EdgeOptions), per request, not measured here:
    # HTTPS requests (North America/Europe), the viewer-request CloudFront Function, the
    # Lambda@Edge body hash (requests, and 128 MB for ~5 ms) and WAF's request charge.
    "cloudfront_https_request": 1.00 / 1e6,
    "cloudfront_function": 0.10 / 1e6,
    "lambda_edge_request": 0.60 / 1e6,
    "lambda_edge_compute": 0.125 * 0.005 * 0.00005001,
    "waf_request": 0.60 / 1e6,
    "lambda_request": 0.20 / 1e6,
    "lambda_gb_second_arm64": 0.0000133334,
    "dynamodb_write_unit": 0.625 / 1e6,
    "dynamodb_read_unit": 0.125 / 1e6,
    "sqs_standard_request": 0.40 / 1e6,
}
MEMORY_GB = {"api": 0.25, "worker": 0.5}
TARGETS = {"write_units": 6, "read_units": 3, "sqs_requests": 3, "dollars_per_million": 10.0}
# The target for the cheapest door with streaming.
FUNCTION_URL_TARGET = 5.0


def attribute_size(value: dict[str, Any]) -> int:
    """Bytes DynamoDB bills for one attribute value (low-level wire format)."""
    ((kind, inner),) = value.items()
    if kind == "S":
        return len(inner.encode())
    if kind == "N":
        return math.ceil(len(inner.lstrip("-").replace(".", "")) / 2) + 1
    if kind == "B":
        return len(inner) if isinstance(inner, bytes) else len(inner.encode())
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "M":
        return 3 + sum(len(k.encode()) + attribute_size(v) for k, v in inner.items())
    if kind == "L":
        return 3 + sum(1 + attribute_size(v) for v in inner)
    return sum(len(str(v)) for v in inner)


def item_size(item: dict[str, Any]) -> int:
    return sum(len(name.encode()) + attribute_size(value) for name, value in item.items())


def index_entries(item: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The entry ``item`` writes in each index whose keys it carries (what the index holds)."""
    entries = {}
    for name, (partition, sort, projected) in TABLE.indexes.items():
        if partition in item and sort in item:
            kept = (TABLE.partition_key, TABLE.sort_key, partition, sort, *projected)
            entries[name] = {key: item[key] for key in kept if key in item}
    return entries


def removed_index_entries(params: dict[str, Any]) -> list[str]:
    """The indexes an UpdateItem takes the item out of (it removes their partition key): each
    such removal is one more write, to the index."""
    expression = params.get("UpdateExpression", "")
    if "REMOVE" not in expression:
        return []
    removed = {
        params.get("ExpressionAttributeNames", {}).get(name, name)
        for name in expression.split("REMOVE", 1)[1].replace(",", " ").split()
    }
    return [name for name, (partition, _, _) in TABLE.indexes.items() if partition in removed]


@dataclass
class Meter:
    write_units: float = 0
    read_units: float = 0
    calls: Counter[str] = field(default_factory=Counter)
    item_bytes: list[int] = field(default_factory=list)
    # The size of the last owner index entry written (the index's reads are billed by entry size).
    index_entry_bytes: int = 0

    def attach(self, client: Any) -> None:
        service = client.meta.service_model.service_name
        client.meta.events.register(f"provide-client-params.{service}.*", self._request)
        client.meta.events.register(f"after-call.{service}.*", self._response)

    def _request(self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        name = f"{model.service_model.service_name}:{model.name}"
        self.calls[name] += 1
        # An eventually consistent read costs half a unit (the API key lookups are).
        context["a2a_read_factor"] = 1.0 if params.get("ConsistentRead") else 0.5
        context["a2a_index_query"] = params.get("IndexName") == TABLE.owner_index
        if model.name == "UpdateItem":  # the rate buckets and listing moves: small items, a unit each
            self.write_units += 1 + len(removed_index_entries(params))
        if model.name == "PutItem":
            size = item_size(params["Item"])
            self.item_bytes.append(size)
            self.write_units += math.ceil(size / 1024)
            for name, entry in index_entries(params["Item"]).items():
                if name == TABLE.owner_index:
                    self.index_entry_bytes = item_size(entry)
                self.write_units += math.ceil(item_size(entry) / 1024)

    def _response(self, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        if model.name == "Query" and context.get("a2a_index_query"):
            # An index query is billed on every entry it examined, before its filter and for
            # COUNT too: ScannedCount entries of the owner index (GSI reads: eventually consistent).
            scanned = parsed.get("ScannedCount", 0) * self.index_entry_bytes
            self.read_units += max(1, math.ceil(scanned / 4096)) * 0.5
        elif model.name in ("Query", "GetItem"):
            items = parsed.get("Items") or ([parsed["Item"]] if parsed.get("Item") else [])
            units = max(1, math.ceil(sum(item_size(i) for i in items) / 4096))
            self.read_units += units * context.get("a2a_read_factor", 1.0)


@dataclass
class Invocations:
    count: Counter[str] = field(default_factory=Counter)
    seconds: dict[str, float] = field(default_factory=dict)

    def timed(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            started = time.perf_counter()
            try:
                return fn(*args)
            finally:
                self.count[name] += 1
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started

        return call


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


URL_DOMAIN = "4xmpl3urlid5nq7d2hjk6wvtbe3yzm0a.lambda-url.us-east-1.on.aws"
# The key the function URL run authenticates with (made by `generate_key` against moto's table).
_URL_KEY: dict[str, str] = {}


def url_event(body: dict[str, Any], request_id: str) -> dict[str, Any]:
    """A function URL event (payload 2.0, auth type NONE: no authorizer) carrying the API key."""
    event = http_event(body, request_id)
    event["routeKey"] = event["requestContext"]["routeKey"] = "$default"
    event["headers"] |= {"host": URL_DOMAIN, "x-api-key": _URL_KEY["key"]}
    event["requestContext"] |= {
        "apiId": URL_DOMAIN.split(".")[0],
        "domainName": URL_DOMAIN,
        "domainPrefix": URL_DOMAIN.split(".")[0],
    }
    event["requestContext"].pop("authorizer", None)
    return event


def signed_url_event(body: dict[str, Any], request_id: str) -> dict[str, Any]:
    """A function URL event with AWS_IAM auth: Lambda checked the SigV4 signature."""
    event = url_event(body, request_id)
    del event["headers"]["x-api-key"]
    event["requestContext"]["authorizer"] = {
        "iam": {"accountId": "123456789012", "userArn": "arn:aws:iam::123456789012:user/bench"}
    }
    return event


# front door -> (the event the API function receives, its price per request)
FRONT_DOORS: dict[str, tuple[Callable[[dict[str, Any], str], dict[str, Any]], str]] = {
    "rest_api": (rest_event, "apigw_rest_request"),
    "http_api": (http_event, "apigw_http_request"),
    "function_url": (url_event, "function_url_request"),
    "function_url_iam": (signed_url_event, "function_url_request"),
}
# The app's own auth behind a function URL: API keys from the table, rate limited (defaults);
# or SigV4 checked by Lambda (AWS_IAM), which costs the app nothing.
APP_AUTH_ENV = {
    "function_url": {"A2A_FRONT_DOOR": "function_url", "A2A_AUTH_MODE": "api_key"},
    "function_url_iam": {"A2A_FRONT_DOOR": "function_url", "A2A_AUTH_MODE": "iam"},
}


@contextlib.contextmanager
def front_door_env(front_door: str, aws: Any) -> Any:
    env = APP_AUTH_ENV.get(front_door, {})
    new = generate_key("bench", now=time.time())
    asyncio.run(DynamoDBApiKeyStore(aws.clients.dynamodb, aws.names.table).add(new.stored))
    _URL_KEY["key"] = new.key
    os.environ.update(env)
    try:
        yield
    finally:
        for name in env:
            os.environ.pop(name, None)


def run(tasks: int, front_door: str = "rest_api") -> dict[str, Any]:
    aws = start_emulator()
    with front_door_env(front_door, aws):
        return _run(aws, tasks, front_door)


def _run(aws: Any, tasks: int, front_door: str) -> dict[str, Any]:
    meter = Meter()
    original = aws_clients.build_clients

    def metered(
        region: str,
        endpoint_url: str | None = None,
        *,
        credentials: tuple[str, str] | None = None,
        connections: int = 10,
    ) -> aws_clients.AwsClients:
        built = original(region, endpoint_url, credentials=credentials, connections=connections)
        for client in (built.dynamodb, built.sqs, built.s3):
            meter.attach(client)
        return built

    aws_clients.build_clients = metered  # every handler below builds its clients through this
    os.environ.update(
        {
            "A2A_BACKEND": "aws",
            "A2A_AWS_ENDPOINT_URL": aws.endpoint_url,
            "A2A_AWS_REGION": aws.region,
            "A2A_TABLE_NAME": aws.names.table,
            "A2A_QUEUE_URL": aws.names.queue_url,
            "A2A_DLQ_URL": aws.names.dlq_url,
            "A2A_BUCKET_NAME": aws.names.bucket,
            "A2A_AGENT": "a2a_core.examples.echo:agent",
            "A2A_ALLOW_UNAUTHENTICATED": "true",
            # The handlers take the usual credential chain, as in AWS; moto accepts any.
            "AWS_ACCESS_KEY_ID": os.environ.get("AWS_ACCESS_KEY_ID", "testing"),
            "AWS_SECRET_ACCESS_KEY": os.environ.get("AWS_SECRET_ACCESS_KEY", "testing"),
        }
    )
    invocations = Invocations()
    api = invocations.timed(
        "api", load("api_handler", ROOT / "src/a2a_core/functions/api/handler.py").handler
    )
    api = paced(api, 1 / Settings().api_key_rate_limit)  # every door alike: see the docstring
    worker = invocations.timed(
        "worker", load("worker_handler", ROOT / "src/a2a_core/functions/worker/handler.py").handler
    )
    poller_sqs = original(aws.region, aws.endpoint_url).sqs
    meter.attach(poller_sqs)  # the event source mapping's receive/delete are billed requests too
    poller = SqsPoller(poller_sqs, aws.names.queue_url, worker, function_name="worker", region=aws.region)
    meter.calls.clear()
    meter.write_units = meter.read_units = 0.0
    invocations.count.clear()
    invocations.seconds.clear()
    try:
        for _ in range(tasks):
            simple_task(api, poller, FRONT_DOORS[front_door][0])
    finally:
        aws.stop()
        aws_clients.build_clients = original
    return report(meter, invocations, tasks, front_door)


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
    api: Callable[..., Any], poller: SqsPoller, event: Callable[[dict[str, Any], str], dict[str, Any]]
) -> None:
    send = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {
            "message": {
                "role": "user",
                "messageId": str(uuid.uuid4()),
                "parts": [{"kind": "text", "text": "hi"}],
            },
            "configuration": {"blocking": False},
        },
    }
    task = json.loads(api(event(send, str(uuid.uuid4())), FakeLambdaContext())["body"])["result"]
    # The worker runs on its own thread, as it runs in its own Lambda: the Powertools batch helper
    # owns that thread's event loop, the API handler (Mangum) owns the main thread's.
    with ThreadPoolExecutor(1) as pool:
        while pool.submit(poller.poll_once, 0).result() == 0:
            pass
    get = {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": task["id"]}}
    fetched = json.loads(api(event(get, str(uuid.uuid4())), FakeLambdaContext())["body"])["result"]
    if fetched["status"]["state"] != "completed":
        raise RuntimeError(f"task did not complete: {fetched['status']}")


def report(meter: Meter, invocations: Invocations, tasks: int, front_door: str) -> dict[str, Any]:
    per = {
        "write_units": meter.write_units / tasks,
        "read_units": meter.read_units / tasks,
        "sqs_requests": sum(n for name, n in meter.calls.items() if name.startswith("sqs:")) / tasks,
        "api_requests": invocations.count["api"] / tasks,
        "lambda_invocations": sum(invocations.count.values()) / tasks,
        "gb_seconds": sum(MEMORY_GB[n] * s for n, s in invocations.seconds.items()) / tasks,
    }
    dollars = {
        "front_door": per["api_requests"] * PRICES[FRONT_DOORS[front_door][1]],
        "lambda_requests": per["lambda_invocations"] * PRICES["lambda_request"],
        "lambda_compute": per["gb_seconds"] * PRICES["lambda_gb_second_arm64"],
        "dynamodb_writes": per["write_units"] * PRICES["dynamodb_write_unit"],
        "dynamodb_reads": per["read_units"] * PRICES["dynamodb_read_unit"],
        "sqs": per["sqs_requests"] * PRICES["sqs_standard_request"],
    }
    per_million = {k: round(v * 1e6, 3) for k, v in dollars.items()}
    app_auth = {
        name: n / tasks
        for name, n in meter.calls.items()
        if name in ("dynamodb:GetItem", "dynamodb:UpdateItem")
    }
    return {
        "tasks": tasks,
        "front_door": front_door,
        "per_task": {k: round(v, 3) for k, v in per.items()},
        "calls_per_task": {k: round(v / tasks, 2) for k, v in sorted(meter.calls.items())},
        "mean_put_item_bytes": round(sum(meter.item_bytes) / max(1, len(meter.item_bytes))),
        "dollars_per_million_tasks": per_million,
        "total_per_million": round(sum(per_million.values()), 2),
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
    }


def edge_per_request() -> float:
    names = ("cloudfront_https_request", "cloudfront_function", "lambda_edge_request", "lambda_edge_compute")
    return sum(PRICES[name] for name in names) + PRICES["waf_request"]


def print_report(result: dict[str, Any]) -> None:
    per = result["per_task"]
    print(
        f"simple task (non-blocking send -> worker completes -> tasks/get), {result['tasks']} tasks on moto, "
        f"front door: {result['front_door']}\n"
    )
    for key in ("write_units", "read_units", "sqs_requests"):
        verdict = "PASS" if per[key] <= TARGETS[key] else "MISS"
        print(f"  {key:<20} {per[key]:>7}   target <= {TARGETS[key]}  {verdict}")
    print(f"  {'api_requests':<20} {per['api_requests']:>7}")
    print(f"  {'lambda_invocations':<20} {per['lambda_invocations']:>7}")
    memory = f"(API {MEMORY_GB['api']} GB, worker {MEMORY_GB['worker']} GB)"
    print(f"  {'gb_seconds':<20} {per['gb_seconds']:>7}   {memory}")
    print(f"  mean PutItem size    {result['mean_put_item_bytes']} bytes")
    print("\nAWS calls per task:")
    for name, n in result["calls_per_task"].items():
        print(f"  {name:<28} {n}")
    print("\ndollars per million tasks (us-east-1 list prices, agent compute excluded):")
    for name, dollars in result["dollars_per_million_tasks"].items():
        print(f"  {name:<20} ${dollars:>8.3f}")
    total = result["total_per_million"]
    url = result["front_door"].startswith("function_url")
    target = FUNCTION_URL_TARGET if url else TARGETS["dollars_per_million"]
    verdict = "PASS" if total < target else f"MISS by ${total - target:.2f}"
    print(f"  {'total':<20} ${total:>8.2f}   target < ${target:.0f}  {verdict}")
    if result["front_door"].startswith("function_url"):
        calls = ", ".join(
            f"{n} {name.split(':')[1]}" for name, n in result["app_auth_calls_per_task"].items()
        )
        print(f"\n  the app's own API key auth, per task: {calls or 'no calls'} (key cache, leased tokens)")
        worst = result["app_auth_worst_case_per_million"]
        print(f"  worst case (every request a cache miss, one-token lease): +${worst:.2f} per M tasks")
        if result["front_door"] == "function_url_iam":
            return  # no CloudFront in front: it would replace the caller's signature with its own
        edge = result["edge_per_million"]
        print(f"  with CloudFront + WAF (EdgeOptions, list prices): +${edge:.2f} -> ${total + edge:.2f}")


def print_summary(results: list[dict[str, Any]]) -> None:
    print("\n" + "=" * 72 + "\ndollars per million simple tasks, by front door:")
    for result in results:
        print(f"  {result['front_door']:<18} ${result['total_per_million']:>6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=int, default=50)
    parser.add_argument("--front-door", choices=["all", *FRONT_DOORS], default="all")
    parser.add_argument("--json", action="store_true")
    args = smoke.parse(parser, tasks=2)
    doors = list(FRONT_DOORS) if args.front_door == "all" else [args.front_door]
    results = [run(args.tasks, door) for door in doors]
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
