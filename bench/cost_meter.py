"""What `aws_cost` counts while the handlers run: every AWS call and its billed units (`Meter`), the
invocations of each function and their duration (`Invocations`), and the bytes each function logs
(`LogTap`, which the functions' loggers write to instead of stdout).
"""

from __future__ import annotations

import contextlib
import contextvars
import io
import logging
import math
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from a2a_core.aws.json_client import AwsJsonClient
from a2a_core.aws.resources import TABLE
from cost_model import ITEM_OVERHEAD

TASK_ITEM = "TASK#"  # a task's items (commits, push configs): what it keeps stored


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


def updated_item(before: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """The item an UpdateItem leaves: ``before`` with its SET attributes given their values (an
    expression's last value placeholder, as ``if_not_exists(n, :zero) + :one`` sets a number) and
    its REMOVE attributes gone."""
    names = params.get("ExpressionAttributeNames", {})
    values = params.get("ExpressionAttributeValues", {})
    after = dict(before)
    for clause, body in _clauses(params.get("UpdateExpression", "")):
        for part in _top_level(body):
            if clause == "REMOVE":
                after.pop(names.get(part.strip(), part.strip()), None)
            elif clause == "SET" and "=" in part:
                path, expression = part.split("=", 1)
                placeholders = [
                    word.strip("(),") for word in expression.split() if word.strip("(),") in values
                ]
                if placeholders:
                    after[names.get(path.strip(), path.strip())] = values[placeholders[-1]]
    return after


def _clauses(expression: str) -> list[tuple[str, str]]:
    """``SET a = :a, b = :b REMOVE c`` -> [("SET", "a = :a, b = :b"), ("REMOVE", "c")]."""
    clauses: list[tuple[str, str]] = []
    for word in expression.split():
        if word in ("SET", "REMOVE", "ADD", "DELETE"):
            clauses.append((word, ""))
        elif clauses:
            clauses[-1] = (clauses[-1][0], f"{clauses[-1][1]} {word}")
    return clauses


def _top_level(body: str) -> list[str]:
    """A clause's comma-separated actions (commas inside a function's parentheses kept)."""
    parts, depth, current = [], 0, ""
    for char in body:
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [*parts, current] if current.strip() else parts


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
    # What the task items written keep stored (with DynamoDB's per-item overhead), in the table
    # and in the owner index.
    table_bytes: int = 0
    index_bytes: int = 0
    # Leave out the writers' push-config checks (`a2a_core.aws.dynamodb.push_marks`): a run as the
    # stack ran before it marked commits.
    without_marks: bool = False
    # The items written so far, by key: DynamoDB bills an UpdateItem by the larger of the item's
    # sizes before and after it.
    items: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def attach(self, client: Any) -> None:
        """Count ``client``'s calls: the lean client's (`a2a_core.aws.json_client`, what the
        functions call DynamoDB, SQS and KMS through) or a botocore client's."""
        if isinstance(client, AwsJsonClient):
            service = client.service.name
            client.after_call.append(lambda op, params, answer: self.count(service, op, params, answer))
            return
        service = client.meta.service_model.service_name
        client.meta.events.register(f"provide-client-params.{service}.*", self._botocore_request)
        client.meta.events.register(f"after-call.{service}.*", self._botocore_response)

    def reset(self) -> None:
        self.calls.clear()
        self.write_units = self.read_units = 0.0
        self.item_bytes.clear()
        self.table_bytes = self.index_bytes = 0

    def _botocore_request(self, params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        context["a2a_params"] = dict(params)

    def _botocore_response(
        self, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any
    ) -> None:
        service = model.service_model.service_name
        self.count(service, model.name, context.get("a2a_params", {}), parsed)

    def count(self, service: str, operation: str, params: dict[str, Any], answer: dict[str, Any]) -> None:
        """One call: its request and its billed units."""
        if operation == "Query" and params.get("Select") == "COUNT" and _push_configs(params):
            operation = "Query (push marks)"
            if self.without_marks:
                return
        self.calls[f"{service}:{operation}"] += 1
        if service != "dynamodb" or "Error" in answer:
            return
        if operation == "UpdateItem":  # rate buckets, push configs, listing moves, contexts
            key = _key(params["Key"])
            before = self.items.get(key, params["Key"])
            after = self.items[key] = updated_item(before, params)
            self.write_units += math.ceil(max(item_size(before), item_size(after)) / 1024)
            self.write_units += len(removed_index_entries(params))
            if params["Key"][TABLE.partition_key]["S"].startswith(TASK_ITEM):  # a push config
                values = params.get("ExpressionAttributeValues", {}).values()
                self.table_bytes += (
                    item_size(params["Key"]) + sum(map(attribute_size, values)) + ITEM_OVERHEAD
                )
        if operation == "PutItem":
            self._put(params["Item"])
        if operation == "Query" and params.get("IndexName") == TABLE.owner_index:
            # An index query is billed on every entry it examined, before its filter and for
            # COUNT too: ScannedCount entries of the owner index (GSI reads: eventually consistent).
            scanned = answer.get("ScannedCount", 0) * self.index_entry_bytes
            self.read_units += max(1, math.ceil(scanned / 4096)) * 0.5
        elif operation in ("Query", "GetItem", "Query (push marks)"):
            # An eventually consistent read costs half a unit (the API key lookups are).
            factor = 1.0 if params.get("ConsistentRead") else 0.5
            items = answer.get("Items") or ([answer["Item"]] if answer.get("Item") else [])
            units = max(1, math.ceil(sum(item_size(i) for i in items) / 4096))
            self.read_units += units * factor

    def _put(self, item: dict[str, Any]) -> None:
        self.items[_key(item)] = item
        size = item_size(item)
        self.item_bytes.append(size)
        self.write_units += math.ceil(size / 1024)
        if item[TABLE.partition_key]["S"].startswith(TASK_ITEM):
            self.table_bytes += size + ITEM_OVERHEAD
        for name, entry in index_entries(item).items():
            entry_bytes = item_size(entry)
            if name == TABLE.owner_index:
                self.index_entry_bytes = entry_bytes
            self.write_units += math.ceil(entry_bytes / 1024)
            self.index_bytes += entry_bytes + ITEM_OVERHEAD


def _key(item: dict[str, Any]) -> tuple[str, str]:
    return item[TABLE.partition_key]["S"], item.get(TABLE.sort_key, {}).get("S", "")


def _push_configs(params: dict[str, Any]) -> bool:
    """Whether a query reads a task's push configs (``PUSH#`` items)."""
    values = params.get("ExpressionAttributeValues", {})
    return any(value.get("S") == "PUSH#" for value in values.values())


# The function whose invocation is running (in this thread or in a thread it started).
running: contextvars.ContextVar[str] = contextvars.ContextVar("running", default="bench")


@dataclass
class Invocations:
    count: Counter[str] = field(default_factory=Counter)
    seconds: dict[str, float] = field(default_factory=dict)

    def timed(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            token = running.set(name)
            started = time.perf_counter()
            try:
                return fn(*args)
            finally:
                self.count[name] += 1
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started
                running.reset(token)

        return call

    def reset(self) -> None:
        self.count.clear()
        self.seconds.clear()


class LogTap(io.TextIOBase):
    """Where the functions' log lines go: their bytes and events, by the function running."""

    def __init__(self) -> None:
        self.bytes: Counter[str] = Counter()
        self.events: Counter[str] = Counter()
        self.lines: dict[str, list[str]] = {}

    def write(self, text: str) -> int:
        function = running.get()
        self.bytes[function] += len(text.encode())
        self.events[function] += text.count("\n")  # a line may come in pieces (print: text, then "\n")
        self.lines.setdefault(function, []).append(text)
        return len(text)

    def reset(self) -> None:
        self.bytes.clear()
        self.events.clear()
        self.lines.clear()


# The Lambda Python runtime's text format for the standard library's loggers (its root handler);
# the root logger keeps Python's default level, WARNING, unless the function sets another.
LAMBDA_FORMAT = "[%(levelname)s]\t%(asctime)s.%(msecs)03dZ\t%(aws_request_id)s\t%(message)s"


class _RequestId(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.aws_request_id = "8f5a3c6e-1b2d-4e5f-9a8b-7c6d5e4f3a2b"
        return True


class _Stdout(io.TextIOBase):
    """stdout: ``tap`` while a function runs (what it prints, Powertools' EMF metrics among it,
    is logged in Lambda), the terminal otherwise."""

    def __init__(self, terminal: Any, tap: LogTap) -> None:
        self.terminal = terminal
        self.tap = tap

    def write(self, text: str) -> int:
        return (self.terminal if running.get() == "bench" else self.tap).write(text)

    def flush(self) -> None:
        self.terminal.flush()


@contextlib.contextmanager
def lambda_logging(tap: LogTap) -> Iterator[None]:
    """Log as the Lambda runtime does, into ``tap``: the root logger at WARNING in Lambda's text
    format, every logger with a handler of its own (Powertools', JSON lines at the level
    POWERTOOLS_LOG_LEVEL says, INFO by default) writing there too (`redirect_function_loggers`),
    and what a function prints."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level, sys.stdout)
    handler = logging.StreamHandler(tap)
    handler.setFormatter(logging.Formatter(LAMBDA_FORMAT, "%Y-%m-%dT%H:%M:%S"))
    handler.addFilter(_RequestId())
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    sys.stdout = _Stdout(sys.stdout, tap)
    try:
        yield
    finally:
        root.handlers[:], _, sys.stdout = saved
        root.setLevel(saved[1])


def redirect_function_loggers(tap: LogTap) -> None:
    """Point every non-root logger's stream handlers (Powertools' write to stdout) at ``tap``."""
    for logger in list(logging.Logger.manager.loggerDict.values()):
        for handler in getattr(logger, "handlers", []):
            if isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler):
                handler.setStream(tap)
