"""botocore's data loader, made to read only what this kit's clients need.

Building the first client of a session, botocore's loader lists every service in its data
directory (400-odd directories, each listed and probed, once for the service models and once more
for the endpoint rule sets) and parses ``endpoints.json`` (1.2 MB: every service in every region)
for its legacy endpoint resolver. On a small Lambda that is most of a client's construction.
`KitLoader` is the same loader, from the same data directory, with two differences:

- it lists only the services the kit calls (`SERVICES`), probing their directories alone, so an
  unknown service name is an error as before;
- when the bundle carries ``botocore_endpoints.json`` beside this module (the Lambda bundler
  writes it: botocore's ``endpoints.json`` with only `SERVICES` kept, from the pinned botocore),
  that is read instead, and counts as botocore's own data: endpoint rule sets still decide every
  endpoint, exactly as with the full file.

Service models and rule sets are always the running botocore's own, so a client behaves the same
whichever botocore the Lambda runtime provides.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from botocore.loaders import Loader, instance_cache

SERVICES = ("dynamodb", "dynamodbstreams", "ecs", "kms", "s3", "secretsmanager", "sqs", "ssm")
PRUNED_ENDPOINTS = Path(__file__).with_name("botocore_endpoints.json")


class KitLoader(Loader):
    def __init__(self, services: tuple[str, ...] = SERVICES, endpoints: Path = PRUNED_ENDPOINTS) -> None:
        super().__init__()
        self._services = services
        self._endpoints = str(endpoints) if endpoints.is_file() else None

    @instance_cache
    def list_available_services(self, type_name: str) -> list[str]:
        """The kit's services that have a ``type_name`` file (``service-2``, ...) in some version."""
        found = set()
        for base in self.search_paths:
            for service in self._services:
                directory = os.path.join(base, service)
                if not os.path.isdir(directory):
                    continue
                versions = os.listdir(directory)
                if any(self.file_loader.exists(os.path.join(directory, v, type_name)) for v in versions):
                    found.add(service)
        return sorted(found)

    def load_data_with_path(self, name: str) -> tuple[Any, str]:
        if name == "endpoints" and self._endpoints is not None:
            with open(self._endpoints, "rb") as file:
                return json.load(file), self._endpoints
        data, path = super().load_data_with_path(name)
        return data, str(path)

    def is_builtin_path(self, path: str) -> bool:
        # botocore feeds the legacy resolver's answer to the rule sets as a custom endpoint when
        # endpoints.json is not its own; the pruned file is its own, minus other services.
        return path == self._endpoints or bool(super().is_builtin_path(path))


def prune_endpoints(endpoints: dict[str, Any], services: tuple[str, ...] = SERVICES) -> dict[str, Any]:
    """botocore's ``endpoints.json`` with only ``services`` in each partition."""
    return {
        **endpoints,
        "partitions": [
            {**partition, "services": {k: v for k, v in partition["services"].items() if k in services}}
            for partition in endpoints["partitions"]
        ],
    }


def write_pruned_endpoints(target: Path, services: tuple[str, ...] = SERVICES) -> None:
    """Write the installed botocore's ``endpoints.json``, pruned to ``services``, to ``target``."""
    loader = Loader()
    data, _ = loader.load_data_with_path("endpoints")
    target.write_text(json.dumps(prune_endpoints(data, services), separators=(",", ":")))
