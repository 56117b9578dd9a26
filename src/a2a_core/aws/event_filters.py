"""Which of the table's stream records invoke the push function: the event source mapping's
filter patterns, defined once, for the CDK stack (`a2a_core.cdk.push`) and for dev's emulated
mapping (`passes_push_filter`, which `a2a_core.dev.emulated` hands its stream poller), read by
`matches` the way Lambda reads them (tests and benchmarks decide with it what AWS would invoke).

A commit item carries ``notify`` (`a2a_core.aws.dynamodb.push_marks`): true when the push
function has work for it (a notified state, of a task with a push config), false otherwise. Items
written before commits carried it (by functions still on older code during a deploy) have none:
the second pattern lets those through, as every commit went through before.
"""

from __future__ import annotations

from typing import Any

from a2a_core.aws.dynamodb.keys import EVENT_PREFIX, PUSH_MARK
from a2a_core.aws.resources import TABLE

_COMMIT_INSERT: dict[str, Any] = {"eventName": ["INSERT"]}
_COMMIT_KEY = {TABLE.sort_key: {"S": [{"prefix": EVENT_PREFIX}]}}
PUSH_STREAM_FILTERS: tuple[dict[str, Any], ...] = (
    {**_COMMIT_INSERT, "dynamodb": {"NewImage": {**_COMMIT_KEY, PUSH_MARK: {"BOOL": [True]}}}},
    {**_COMMIT_INSERT, "dynamodb": {"NewImage": {**_COMMIT_KEY, PUSH_MARK: {"BOOL": [{"exists": False}]}}}},
)


def passes_push_filter(record: dict[str, Any]) -> bool:
    """Whether the deployed mapping hands ``record`` (a stream record shaped as Lambda's event
    carries it) to the push function: it matches one of `PUSH_STREAM_FILTERS`."""
    return any(matches(pattern, record) for pattern in PUSH_STREAM_FILTERS)


def matches(pattern: dict[str, Any], event: dict[str, Any]) -> bool:
    """Whether ``event`` matches ``pattern`` in Lambda's event filtering syntax, for the rules the
    patterns here use: a list of values (equal to one of them), ``{"prefix": ...}`` and
    ``{"exists": ...}`` (on a leaf)."""
    for key, rule in pattern.items():
        present = isinstance(event, dict) and key in event
        value = event[key] if present else None
        if isinstance(rule, dict):  # a missing object: every leaf under it is missing
            if not matches(rule, value if isinstance(value, dict) else {}):
                return False
        elif not any(_matches_one(condition, present, value) for condition in rule):
            return False
    return True


def _matches_one(condition: Any, present: bool, value: Any) -> bool:
    if isinstance(condition, dict) and "exists" in condition:
        return present is bool(condition["exists"])
    if not present:
        return False
    if isinstance(condition, dict) and "prefix" in condition:
        return isinstance(value, str) and value.startswith(condition["prefix"])
    return bool(value == condition and type(value) is type(condition))
