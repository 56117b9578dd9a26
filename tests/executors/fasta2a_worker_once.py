"""The worker Lambda in a process of its own: one batch of the run queue's messages, handled by a
cold-started worker function (its ``A2A_*`` settings and ``A2A_AGENT`` from the environment);
prints how many it handled and the batch response."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import boto3

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests")]

from aws_events import lambda_context, receive, settle, sqs_event  # noqa: E402


def main() -> None:
    spec = importlib.util.spec_from_file_location(
        "worker_handler", ROOT / "src/a2a_core/functions/worker/handler.py"
    )
    assert spec is not None
    assert spec.loader is not None
    worker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(worker)
    sqs = boto3.client(  # type: ignore[no-untyped-call]
        "sqs", endpoint_url=os.environ["A2A_AWS_ENDPOINT_URL"], region_name=os.environ["A2A_AWS_REGION"]
    )
    queue_url = os.environ["A2A_QUEUE_URL"]
    messages = receive(sqs, queue_url)
    response = worker.handler(sqs_event(sqs, queue_url, messages), lambda_context())
    settle(sqs, queue_url, messages, response)
    print(json.dumps({"handled": len(messages), "response": response}))


if __name__ == "__main__":
    main()
