"""Each function's code asset: its bundle (`a2a_core.bundling`), built locally while CDK synthesizes."""

from __future__ import annotations

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

# Context ``a2a:skip_bundling``: placeholder code instead of bundles (for tests of the template).
SKIP_BUNDLING_CONTEXT = "a2a:skip_bundling"
PLACEHOLDER = Path(__file__).resolve().parent / "placeholder"
NO_BYTECODE = "a2a-serverless:noBytecode"


@jsii.implements(ILocalBundling)
class LocalBundler:
    def __init__(self, bundle: Bundle) -> None:
        self._bundle = bundle

    def try_bundle(self, output_dir: str, *, image: DockerImage, **options: Any) -> bool:
        self._bundle.build(Path(output_dir))
        return True


def bundle_code(bundle: Bundle) -> lambda_.Code:
    """``bundle`` as a code asset, hashed by what it is built from."""
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
            local=LocalBundler(bundle),
        ),
    )


def function_codes(scope: Construct, plan: BundlePlan | None) -> Callable[[str], lambda_.Code]:
    """Each function's own code asset by its name in `a2a_core.bundling.closures.FUNCTIONS`;
    without a ``plan`` (bundling skipped), a placeholder. Says at synth time (a warning on
    ``scope`` and a line on stderr) when the bundles go without bytecode although it was wanted."""
    if plan is None:
        placeholder = lambda_.Code.from_asset(str(PLACEHOLDER))
        return lambda _: placeholder
    if plan.compiler.interpreter is None and plan.options.bytecode is not Bytecode.OFF:
        message = plan.compiler.warning()
        Annotations.of(scope).add_warning_v2(NO_BYTECODE, message)
        print(f"a2a-serverless: {scope.node.path}: {message}", file=sys.stderr)
    return lambda function: bundle_code(plan.bundle(function))
