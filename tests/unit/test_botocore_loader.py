"""`KitLoader` builds clients that address and sign requests exactly as stock botocore's do, and
clients are built on first use, once."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import botocore.session
import pytest
from botocore.config import Config
from botocore.exceptions import UnknownServiceError

from a2a_core.aws.botocore_loader import SERVICES, KitLoader, prune_endpoints, write_pruned_endpoints
from a2a_core.aws.clients import LazyClient

CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "dynamodb": ("get_item", {"TableName": "t", "Key": {"pk": {"S": "k"}}}),
    "sqs": (
        "send_message",
        {"QueueUrl": "https://sqs.eu-west-1.amazonaws.com/123456789012/q", "MessageBody": "b"},
    ),
    "s3": ("get_object", {"Bucket": "my-bucket", "Key": "large/k"}),
    "kms": ("get_public_key", {"KeyId": "0b7a3c2e-1111-2222-3333-444455556666"}),
}
REGIONS = ("us-east-1", "eu-west-1", "ap-southeast-2", "cn-north-1", "us-gov-west-1")


def _addressed(
    session: botocore.session.Session, service: str, region: str, **config: Any
) -> tuple[str, Any]:
    """Where a call would go and how it would be signed, caught before anything is sent."""
    client = session.create_client(
        service, config=Config(region_name=region, **config), aws_access_key_id="a", aws_secret_access_key="b"
    )
    seen: dict[str, Any] = {}

    def catch(params: dict[str, Any], **_: Any) -> tuple[Any, dict[str, Any]]:
        seen.update(url=params["url"], signing=params["context"].get("signing"))
        return SimpleNamespace(status_code=200, headers={}), {}

    method, kwargs = CALLS[service]
    operation = "".join(p.title() for p in method.split("_"))
    client.meta.events.register(f"before-call.*.{operation}", catch)  # type: ignore[arg-type]
    getattr(client, method)(**kwargs)
    return seen["url"], seen["signing"]


@pytest.fixture(scope="module")
def pruned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("endpoints") / "botocore_endpoints.json"
    write_pruned_endpoints(target)
    return target


@pytest.mark.parametrize("service", sorted(CALLS))
def test_requests_go_where_and_are_signed_as_with_stock_botocore(service: str, pruned: Path) -> None:
    stock = botocore.session.Session()
    ours = botocore.session.Session()
    ours.register_component("data_loader", KitLoader(endpoints=pruned))
    for region in REGIONS:
        for config in ({}, {"use_fips_endpoint": True}, {"use_dualstack_endpoint": True}):
            if region == "cn-north-1" and config:
                continue  # no FIPS or dual-stack endpoints there for some of these services
            assert _addressed(ours, service, region, **config) == _addressed(stock, service, region, **config)


def test_it_lists_only_the_kit_services_and_still_refuses_others(pruned: Path) -> None:
    loader = KitLoader(endpoints=pruned)
    assert loader.list_available_services("service-2") == sorted(SERVICES)
    assert loader.is_builtin_path(loader.load_data_with_path("endpoints")[1])
    session = botocore.session.Session()
    session.register_component("data_loader", loader)
    with pytest.raises(UnknownServiceError):
        session.create_client("lambda", region_name="eu-west-1")


def test_the_pruned_endpoints_keep_every_partition_and_only_the_kit_services(pruned: Path) -> None:
    full = botocore.session.Session().get_component("data_loader").load_data("endpoints")
    kept = json.loads(pruned.read_text())
    assert kept == prune_endpoints(full)
    assert [p["partition"] for p in kept["partitions"]] == [p["partition"] for p in full["partitions"]]
    assert {s for p in kept["partitions"] for s in p["services"]} <= set(SERVICES)
    assert pruned.stat().st_size < 100_000  # from 1.2 MB


def test_without_the_pruned_file_it_reads_botocores_own() -> None:
    loader = KitLoader(endpoints=Path("/nonexistent/botocore_endpoints.json"))
    _, path = loader.load_data_with_path("endpoints")
    assert loader.is_builtin_path(path)


def test_a_lazy_client_is_built_on_first_use_and_only_once() -> None:
    built: list[object] = []
    gate = threading.Barrier(8)

    def build() -> Any:
        time.sleep(0.01)  # widen the window in which a second builder could slip in
        built.append(SimpleNamespace(name=len(built)))
        return built[-1]

    client = LazyClient(build)
    assert built == []

    def first_use() -> object:
        gate.wait()
        return client.name

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(lambda _: first_use(), range(8))) == [0] * 8
    assert len(built) == 1


def test_building_the_clients_imports_nothing_of_botocore() -> None:
    code = (
        "import sys; from a2a_core.aws.clients import build_clients;"
        "build_clients('eu-west-1', 'http://127.0.0.1:9');"
        "assert not [m for m in sys.modules if m.startswith(('botocore', 'boto3'))], sys.modules.keys()"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)  # noqa: S603
