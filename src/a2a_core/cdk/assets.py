"""Each function's code asset: its bundle (`a2a_core.bundling`), built locally while CDK synthesizes.

The worker's .zip bundle is measured once built: over what Lambda lets a .zip function unzip to,
the synth stops, saying how big it is, what takes the room and which package to use instead (a
container image, `a2a_core.cdk.worker_image`)."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsii
from aws_cdk import Annotations, AssetHashType, BundlingOptions, DockerImage, ILocalBundling
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from a2a_core.bundling.build import Bundle
from a2a_core.bundling.bytecode import Bytecode
from a2a_core.bundling.plan import BundlePlan
from a2a_core.bundling.size import ZIP_LIMIT, measure, megabytes
from a2a_core.bundling.uv import BundlingError
from a2a_core.cdk.options import WorkerPackage
from a2a_core.cdk.worker_image import worker_image_code

# Context ``a2a:skip_bundling``: placeholder code instead of bundles (for tests of the template).
SKIP_BUNDLING_CONTEXT = "a2a:skip_bundling"
PLACEHOLDER = Path(__file__).resolve().parent / "placeholder"
NO_BYTECODE = "a2a-serverless:noBytecode"


@jsii.implements(ILocalBundling)
class LocalBundler:
    def __init__(self, bundle: Bundle, *, limit: int | None = None) -> None:
        self._bundle = bundle
        self._limit = limit

    def try_bundle(self, output_dir: str, *, image: DockerImage, **options: Any) -> bool:
        self._bundle.build(Path(output_dir))
        if self._limit is not None:
            refuse_oversized(Path(output_dir), self._limit)
        return True


def refuse_oversized(output: Path, limit: int) -> None:
    """`BundlingError` if the worker's bundle in ``output`` passes ``limit`` (bytes, unzipped),
    saying by how much, what takes the room, and the fix; the bundle is removed (CDK would keep
    it in cdk.out)."""
    size = measure(output)
    if size.total <= limit:
        return
    for entry in output.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    raise BundlingError(
        f"the worker's bundle is {megabytes(size.total)} unzipped, over the {megabytes(limit)} a "
        f"Lambda function's .zip package may unzip to (layers included). The biggest: {size.biggest()}. "
        "Deploy the worker as a container image instead (up to 10 GB; Docker builds it at `cdk "
        "deploy`): A2AServiceProps(worker_package=WorkerPackage.CONTAINER_IMAGE), with "
        "`from a2a_core.cdk import WorkerPackage`; or leave the biggest out of the agent's dependencies"
    )


def bundle_code(bundle: Bundle, *, limit: int | None = None) -> lambda_.Code:
    """``bundle`` as a code asset, hashed by what it is built from (refused over ``limit``)."""
    return lambda_.Code.from_asset(
        # Never read (the bundler builds the asset): a directory of the installed kit, whose path
        # appears nowhere in the cloud assembly.
        str(PLACEHOLDER),
        asset_hash_type=AssetHashType.CUSTOM,
        asset_hash=bundle.asset_hash(),
        bundling=BundlingOptions(
            # Never pulled: the local bundler always succeeds or raises. Named for anyone who
            # wants to swap in Docker bundling.
            image=DockerImage.from_registry(f"public.ecr.aws/sam/build-python{bundle.spec.python_version}"),
            local=LocalBundler(bundle, limit=limit),
        ),
    )


def function_codes(
    scope: Construct,
    plan: BundlePlan | None,
    *,
    worker_package: WorkerPackage = WorkerPackage.ZIP,
    python_version: str = "3.13",
    architecture: str = "arm64",
) -> Callable[[str], lambda_.Code]:
    """Each function's own code asset by its name in `a2a_core.bundling.closures.FUNCTIONS`
    (the worker's: a .zip bundle of at most `ZIP_LIMIT`, or an image); without a ``plan``
    (bundling skipped), a placeholder. Says at synth time (a warning on ``scope`` and a line on
    stderr) when the bundles go without bytecode although it was wanted."""

    def image() -> lambda_.Code:
        bundle = plan.bundle("worker") if plan is not None else None
        return worker_image_code(scope, bundle, python_version=python_version, architecture=architecture)

    if plan is None:
        placeholder = lambda_.Code.from_asset(str(PLACEHOLDER))
        if worker_package is WorkerPackage.CONTAINER_IMAGE:
            return lambda function: image() if function == "worker" else placeholder
        return lambda _: placeholder
    if plan.compiler.interpreter is None and plan.options.bytecode is not Bytecode.OFF:
        message = plan.compiler.warning()
        Annotations.of(scope).add_warning_v2(NO_BYTECODE, message)
        print(f"a2a-serverless: {scope.node.path}: {message}", file=sys.stderr)

    def code(function: str) -> lambda_.Code:
        if function != "worker":
            return bundle_code(plan.bundle(function))
        if worker_package is WorkerPackage.CONTAINER_IMAGE:
            return image()
        return bundle_code(plan.bundle(function), limit=ZIP_LIMIT)

    return code
