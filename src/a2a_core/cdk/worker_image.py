"""The worker as a container image (``WorkerPackage.CONTAINER_IMAGE``): for agents whose
dependencies pass the 250 MB a .zip function may hold (CrewAI, BeeAI, Semantic Kernel, the full
agent-framework); an image may hold 10 GB.

The image is the worker's usual bundle (`a2a_core.bundling`: the same files, wheels and bytecode
for the runtime's Python and architecture) copied onto AWS's public Lambda base image for that
Python, by a generated Dockerfile. The bundle is built while CDK synthesizes, without Docker,
straight into the cloud assembly as ``asset.<hash>`` (the hash of what the bundle is built from,
as for the .zip bundles: a synth with the same inputs reuses it); Docker builds and pushes the
image at ``cdk deploy``, to the bootstrap's container asset repository.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from aws_cdk import Stack, Stage
from aws_cdk import aws_ecr as ecr
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from a2a_core.bundling.build import Bundle

HANDLER = "a2a_core.functions.worker.handler.handler"
BASE_IMAGE = "public.ecr.aws/lambda/python"
PLATFORMS = {"arm64": "linux/arm64", "x86_64": "linux/amd64"}
DOCKERFILE = """\
# Made by a2a-serverless at synth: the worker Lambda's bundle on AWS's Lambda base image.
FROM {base}:{python}
COPY . ${{LAMBDA_TASK_ROOT}}/
CMD ["{handler}"]
"""
DOCKERIGNORE = "Dockerfile\n.dockerignore\n"


def dockerfile(python_version: str) -> str:
    return DOCKERFILE.format(base=BASE_IMAGE, python=python_version, handler=HANDLER)


def worker_image_code(
    scope: Construct, bundle: Bundle | None, *, python_version: str, architecture: str
) -> lambda_.Code:
    """The worker's code as an image asset of ``scope``'s stack: ``bundle`` and its Dockerfile
    (no ``bundle``: bundling skipped, the Dockerfile alone)."""
    text = dockerfile(python_version)
    repository, tag = image_asset(scope, "WorkerImage", bundle, text, architecture=architecture)
    return lambda_.Code.from_ecr_image(repository, tag_or_digest=tag)


def image_asset(
    scope: Construct, name: str, bundle: Bundle | None, text: str, *, architecture: str
) -> tuple[ecr.IRepository, str | None]:
    """``bundle`` with the Dockerfile ``text`` as an image asset of ``scope``'s stack, built into
    the cloud assembly now and by Docker at deploy: (the repository, the image's tag)."""
    stack = Stack.of(scope)
    digest = hashlib.sha256(text.encode())
    digest.update((bundle.asset_hash() if bundle is not None else "no bundle").encode())
    source_hash = digest.hexdigest()
    stage = Stage.of(stack)
    assert stage is not None  # a stack is always in a stage (its app, at least)
    directory = Path(stage.asset_outdir) / f"asset.{source_hash}"
    if not directory.is_dir():
        _build(directory, bundle, text)
    location = stack.synthesizer.add_docker_image_asset(
        source_hash=source_hash,
        directory_name=os.path.relpath(directory, stage.outdir),
        platform=PLATFORMS[architecture],
        display_name=f"{scope.node.path}/{name}",
    )
    repository = ecr.Repository.from_repository_name(scope, f"{name}Repository", location.repository_name)
    return repository, location.image_tag


def _build(directory: Path, bundle: Bundle | None, text: str) -> None:
    """Build into a sibling first, so an interrupted build never passes for a finished one."""
    building = directory.with_name(f"{directory.name}-building")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    if bundle is not None:
        bundle.build(building)
    (building / "Dockerfile").write_text(text)
    (building / ".dockerignore").write_text(DOCKERIGNORE)
    building.rename(directory)
