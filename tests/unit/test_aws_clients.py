"""The S3 client is built on first use, once, however many threads ask at the same time."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from a2a_core.aws.blobs import S3Blobs
from a2a_core.aws.clients import AwsClients, build_clients


def test_s3_is_built_on_first_use_and_only_once() -> None:
    built: list[object] = []
    gate = threading.Barrier(8)

    def build() -> Any:
        time.sleep(0.01)  # widen the window in which a second builder could slip in
        built.append(object())
        return built[-1]

    clients = AwsClients(dynamodb=object(), sqs=object(), s3=build)  # type: ignore[arg-type]
    assert built == []

    def first_use() -> object:
        gate.wait()
        return clients.s3

    with ThreadPoolExecutor(8) as pool:
        seen = list(pool.map(lambda _: first_use(), range(8)))
    assert len(built) == 1
    assert all(client is built[0] for client in seen)


def test_built_clients_defer_s3_and_blobs_defer_asking() -> None:
    clients = build_clients("eu-west-1", "http://127.0.0.1:9")  # nothing is contacted
    asked: list[int] = []

    def s3() -> Any:
        asked.append(1)
        return clients.s3

    blobs = S3Blobs(s3, "bucket")
    assert asked == []
    assert blobs._client.meta.service_model.service_name == "s3"
    assert blobs._client is blobs._client  # the same client each time it is asked for
    assert len(asked) == 3
