"""The worker's package: a .zip bundle, refused at synth over Lambda's 250 MB, or a container image.

A throwaway project depends on ``bulky``, a wheel of its own (small, as zeros compress) that
unpacks to 251 MB: as an agent on CrewAI (968 MB installed) or BeeAI would. Synthesized for real
(the bundles built by uv), its .zip worker is refused with the size, the biggest distributions and
the option to use; as a container image it synthesizes, without Docker, into an image asset whose
directory holds the bundle and its Dockerfile.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aws_cdk.assertions import Template

from a2a_core.bundling.size import MB, ZIP_LIMIT, measure
from a2a_core.bundling.uv import BundlingError, find_uv
from a2a_core.cdk import A2AServiceProps, A2AStack, ConfigurationError, WorkerPackage
from a2a_core.cdk.testing import checked_app, properties
from a2a_core.cdk.worker_image import HANDLER
from support import missing_prerequisite

KIT = Path(__file__).resolve().parents[2]
BULKY = "bulky-1.0-py3-none-any.whl"
BULKY_MB = 251
PYPROJECT = f'''\
[project]
name = "heavy"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["a2a-serverless[aws]", "bulky"]

[tool.uv.sources]
a2a-serverless = {{ path = "{KIT}" }}
bulky = {{ path = "wheels/{BULKY}" }}

[tool.a2a-serverless]
agent = "heavy.agent:agent"
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    try:
        uv = find_uv(KIT)
    except BundlingError as error:  # `make test` always has it (.tools/bin/uv)
        missing_prerequisite(str(error))
    root = tmp_path_factory.mktemp("heavy")
    (root / "heavy").mkdir()
    (root / "heavy" / "__init__.py").write_text("")
    (root / "heavy" / "agent.py").write_text("async def agent(context):\n    return 'heavy'\n")
    (root / "pyproject.toml").write_text(PYPROJECT)
    _bulky_wheel(root / "wheels" / BULKY)
    lock = [uv, "lock", "--quiet", "--python", sys.executable]  # from the package index, as a user locks
    subprocess.run(lock, cwd=root, check=True, env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"})  # noqa: S603
    patch = pytest.MonkeyPatch()
    patch.chdir(root)  # the construct finds the project from here
    patch.setenv("UV", uv)
    yield root
    patch.undo()


def _bulky_wheel(path: Path) -> None:
    """A wheel whose one data file unpacks to `BULKY_MB` MB of zeros."""
    info = "bulky-1.0.dist-info"
    files = {
        "bulky/__init__.py": b"",
        f"{info}/METADATA": b"Metadata-Version: 2.1\nName: bulky\nVersion: 1.0\n",
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    path.parent.mkdir(parents=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
        with wheel.open("bulky/weights.bin", "w") as weights:
            for _ in range(BULKY_MB):
                weights.write(bytes(MB))
        record = [*files, "bulky/weights.bin", f"{info}/RECORD"]
        wheel.writestr(f"{info}/RECORD", "".join(f"{name},,\n" for name in record))


@pytest.fixture(scope="module")
def outdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cloud assembly folder for both synths: the API's and DLQ's bundles are built once."""
    return tmp_path_factory.mktemp("cdk.out")


def test_a_zip_worker_over_the_limit_is_refused_with_its_size_and_the_fix(
    project: Path, outdir: Path
) -> None:
    app = checked_app(outdir, skip_bundling=False)
    with pytest.raises(RuntimeError) as refused:
        A2AStack(app, "Heavy")
    message = str(refused.value)
    assert "the worker's bundle is 2" in message
    assert f"over the {ZIP_LIMIT / MB:.1f} MB a Lambda function's .zip package may unzip to" in message
    assert f"The biggest: bulky {BULKY_MB:.1f} MB, " in message
    assert "A2AServiceProps(worker_package=WorkerPackage.CONTAINER_IMAGE)" in message
    # Nothing of the refused bundle is left in cdk.out.
    assert not [path for path in outdir.rglob("weights.bin")]


def test_the_container_image_worker_carries_the_bundle_on_the_lambda_base_image(
    project: Path, outdir: Path
) -> None:
    app = checked_app(outdir, skip_bundling=False)
    A2AStack(app, "Heavy", A2AServiceProps(worker_package=WorkerPackage.CONTAINER_IMAGE))
    assembly = app.synth()
    template = assembly.get_stack_by_name("Heavy").template
    image = _image_asset(outdir / "Heavy.assets.json")
    assert image["source"]["platform"] == "linux/arm64"
    directory = outdir / image["source"]["directory"]
    assert (directory / "Dockerfile").read_text().splitlines()[1:] == [
        "FROM public.ecr.aws/lambda/python:3.13",
        "COPY . ${LAMBDA_TASK_ROOT}/",
        f'CMD ["{HANDLER}"]',
    ]
    assert (directory / "heavy" / "agent.py").is_file()
    assert (directory / "a2a_core" / "functions" / "worker" / "handler.py").is_file()
    assert not (directory / "a2a_core" / "cdk").exists()
    size = measure(directory)
    assert size.total > ZIP_LIMIT
    assert size.shares[0][0] == "bulky"
    assert size.shares[0][1] >= BULKY_MB * MB
    worker = properties(Template.from_json(template), "AWS::Lambda::Function", "/Functions/Worker/Resource")
    assert worker["PackageType"] == "Image"
    assert "Handler" not in worker
    assert "Runtime" not in worker
    (destination,) = image["destinations"].values()
    assert f":{destination['imageTag']}" in json.dumps(worker["Code"]["ImageUri"])


def _image_asset(manifest: Path) -> dict[str, Any]:
    (image,) = json.loads(manifest.read_text())["dockerImages"].values()
    return dict(image)


def test_the_container_image_worker_synthesizes_without_bundling_and_may_pull_its_image(
    tmp_path: Path,
) -> None:
    app = checked_app(tmp_path, skip_bundling=True, cdk_json=KIT / "cdk.json")
    stack = A2AStack(app, "Image", A2AServiceProps(worker_package=WorkerPackage.CONTAINER_IMAGE))
    template = Template.from_stack(stack)
    worker = properties(template, "AWS::Lambda::Function", "/Functions/Worker/Resource")
    assert worker["PackageType"] == "Image"
    assert worker["Architectures"] == ["arm64"]
    assert worker["Environment"]["Variables"]["A2A_QUEUE_URL"]
    # The bootstrap's container asset repository, whose policy lets Lambda pull the image.
    assert "cdk-hnb659fds-container-assets-" in json.dumps(worker["Code"]["ImageUri"])
    template.resource_count_is("AWS::ECR::Repository", 0)
    for name in ("Api", "DeadLetter"):  # the other functions stay .zip bundles
        function = properties(template, "AWS::Lambda::Function", f"/Functions/{name}/Resource")
        assert function["Runtime"] == "python3.13"
        assert "PackageType" not in function


def test_one_code_asset_for_every_function_cannot_be_an_image() -> None:
    with pytest.raises(ConfigurationError, match=r"code: .*container image"):
        A2AServiceProps(code=object(), worker_package=WorkerPackage.CONTAINER_IMAGE)  # type: ignore[arg-type]
