"""The Lambda bundle: its hash follows every input, and (one test) it is built for real."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from aws_cdk import aws_lambda as lambda_
from aws_cdk.assertions import Template
from infra.bundling import WEB_SERVER_SCRIPT, BundleSpec, BundlingError, asset_hash, find_uv, source_files
from infra.functions import RUNTIME
from infra.options import AuthMode, JwtIssuer, StreamingMode
from infra.stack import A2AStack
from infra.testing import checked_app, logical_id

ARM = BundleSpec(platform="aarch64", python_version="3.11")
ELF_MACHINES = {"aarch64": 183, "x86_64": 62}  # e_machine in the ELF header
# What the Lambda Python runtime provides and the bundle leaves out (boto3 and its dependencies).
RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "dateutil", "urllib3", "six.py")


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    (tmp_path / "src" / "a2a_core").mkdir(parents=True)
    (tmp_path / "src" / "a2a_core" / "__init__.py").write_text("")
    (tmp_path / "functions" / "api").mkdir(parents=True)
    (tmp_path / "functions" / "api" / "handler.py").write_text("handler = None\n")
    return tmp_path


def test_hash_follows_architecture_python_version_and_options(sources: Path) -> None:
    specs = [
        ARM,
        replace(ARM, platform="x86_64"),
        replace(ARM, python_version="3.12"),
        replace(ARM, include_boto3=True),
        BundleSpec.for_function(lambda_.Architecture.ARM_64, RUNTIME, web_server=True),
    ]
    hashes = {asset_hash(spec, "pydantic==2.12.0\n", sources) for spec in specs}
    assert len(hashes) == len(specs)
    assert asset_hash(ARM, "pydantic==2.12.0\n", sources) == asset_hash(ARM, "pydantic==2.12.0\n", sources)


def test_hash_follows_requirements_and_sources_but_not_bytecode_caches(sources: Path) -> None:
    before = asset_hash(ARM, "pydantic==2.12.0\n", sources)
    assert asset_hash(ARM, "pydantic==2.12.1\n", sources) != before
    (sources / "functions" / "api" / "__pycache__").mkdir()
    (sources / "functions" / "api" / "__pycache__" / "handler.cpython-311.pyc").write_bytes(b"\0")
    assert asset_hash(ARM, "pydantic==2.12.0\n", sources) == before
    (sources / "functions" / "api" / "handler.py").write_text("handler = print\n")
    assert asset_hash(ARM, "pydantic==2.12.0\n", sources) != before


def test_agent_packages_are_bundled_at_the_top_level_and_hashed(sources: Path) -> None:
    (sources / "agents" / "research").mkdir(parents=True)
    (sources / "agents" / "research" / "__init__.py").write_text("async def agent(ctx): ...\n")
    spec = replace(ARM, packages=("agents/research",))

    assert "research/__init__.py" in {name for _, name in source_files(sources, spec.packages)}
    assert asset_hash(spec, "", sources) != asset_hash(ARM, "", sources)


def test_spec_follows_the_function_architecture_and_runtime() -> None:
    spec = BundleSpec.for_function(lambda_.Architecture.X86_64, RUNTIME, web_server=True)
    assert spec == BundleSpec(
        platform="x86_64", python_version="3.11", extras=("aws", "web"), web_server=True
    )


def test_bundles_hold_the_right_native_wheels_and_import_under_python_311(tmp_path: Path) -> None:
    """Bundles for real, through CDK: arm64 buffered and x86_64 response streaming."""
    try:
        find_uv()
    except BundlingError as error:  # `make test` always has it (.tools/bin/uv)
        pytest.skip(str(error))
    app = checked_app(tmp_path / "cdk.out", skip_bundling=False)
    A2AStack(app, "Arm", agent="a2a_core.examples.echo:agent")
    A2AStack(
        app,
        "X86",
        agent="a2a_core.examples.echo:agent",
        auth=AuthMode.JWT,
        jwt=JwtIssuer("https://issuer.example.com/", "agent", "https://issuer.example.com/jwks.json"),
        architecture=lambda_.Architecture.X86_64,
        streaming=StreamingMode.RESPONSE_STREAM,
        push=True,
    )
    assembly = app.synth()
    arm, x86 = (
        _bundle(assembly.directory, assembly.get_stack_by_name(name).template) for name in ("Arm", "X86")
    )

    assert arm != x86
    for bundle, platform in ((arm, "aarch64"), (x86, "x86_64")):
        (native,) = bundle.glob("pydantic_core/_pydantic_core.cpython-311-*-linux-gnu.so")
        assert native.name == f"_pydantic_core.cpython-311-{platform}-linux-gnu.so"
        libraries = [path for path in bundle.rglob("*.so*") if path.is_file()]  # cryptography's too
        assert {_elf_machine(path) for path in libraries} == {ELF_MACHINES[platform]}
        assert not [name for name in RUNTIME_PACKAGES if (bundle / name).exists()]
        assert not (bundle / "bin").exists()
        _assert_precompiled(bundle)
        print(f"\n{platform} bundle: {_sizes(bundle, tmp_path)}")
    assert not (arm / WEB_SERVER_SCRIPT).exists()
    assert not (arm / "uvicorn").exists()

    # Run the bundle this machine can execute, with the environment its stack gives each function.
    runnable = "X86" if os.uname().machine == "x86_64" else "Arm"
    template = assembly.get_stack_by_name(runnable).template
    bundle = x86 if runnable == "X86" else arm
    functions = (
        ("api", "worker", "dlq", "push", "authorizer") if runnable == "X86" else ("api", "worker", "dlq")
    )
    for function in functions:
        _import_handler(bundle, function, _deployed_environment(template, function), tmp_path)
    if runnable == "X86":
        _serve_through_the_web_adapter_command(x86, _deployed_environment(template, "api"), tmp_path)


def _bundle(outdir: str, template: Any) -> Path:
    """The asset directory of the stack's API function (every function shares it)."""
    api = template["Resources"][
        logical_id(Template.from_json(template), "AWS::Lambda::Function", "/Functions/Api/Resource")
    ]
    assert api["Metadata"]["aws:asset:is-bundled"] is True
    return Path(outdir) / str(api["Metadata"]["aws:asset:path"])


def _elf_machine(library: Path) -> int:
    with library.open("rb") as file:
        header = file.read(20)
    assert header[:4] == b"\x7fELF", library
    return int.from_bytes(header[18:20], "little")


def _assert_precompiled(bundle: Path) -> None:
    for module in ("functions/api/handler.py", "a2a_core/app.py", "pydantic/main.py", "starlette/routing.py"):
        source = bundle / module
        cached = Path(importlib.util.cache_from_source(str(source)))
        header = cached.read_bytes()[:8]
        assert header[:4] == importlib.util.MAGIC_NUMBER  # compiled by the runtime's Python version
        assert int.from_bytes(header[4:8], "little") == 0b01  # hash-based, source never re-checked


def _sizes(bundle: Path, tmp_path: Path) -> str:
    files = [path for path in bundle.rglob("*") if path.is_file()]
    unzipped = sum(path.stat().st_size for path in files)
    archive = tmp_path / f"{bundle.name}.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for path in files:
            zipped.write(path, path.relative_to(bundle))
    zipped_size = archive.stat().st_size
    assert unzipped < 250 * 2**20  # Lambda's limits
    assert zipped_size < 50 * 2**20
    return f"{unzipped / 2**20:.1f} MiB unzipped, {zipped_size / 2**20:.1f} MiB zipped, {len(files)} files"


def _deployed_environment(template: Any, function: str) -> dict[str, str]:
    """The function's environment from the template, CloudFormation references filled in."""
    name = {
        "api": "Api",
        "worker": "Worker",
        "dlq": "DeadLetter",
        "push": "Push",
        "authorizer": "Authorizer",
    }[function]
    resource = logical_id(
        Template.from_json(template), "AWS::Lambda::Function", f"/Functions/{name}/Resource"
    )
    variables = template["Resources"][resource]["Properties"]["Environment"]["Variables"]
    resolved = {
        "A2A_AWS_REGION": "eu-west-1",
        "A2A_QUEUE_URL": "https://sqs.eu-west-1.amazonaws.com/123456789012/runs",
        "A2A_DLQ_URL": "https://sqs.eu-west-1.amazonaws.com/123456789012/runs-dlq",
        "A2A_PUSH_DLQ_URL": "https://sqs.eu-west-1.amazonaws.com/123456789012/push-dlq",
        "A2A_PUBLIC_URL": "https://abc123.execute-api.eu-west-1.amazonaws.com/prod/",
        "A2A_PAGE_TOKEN_SECRET": "5b2f3e60-8a3b-11ef-9c1d-0a1b2c3d4e5f",  # the stack id's GUID
    }
    return {
        key: value if isinstance(value, str) else resolved.get(key, "resolved")
        for key, value in variables.items()
    }


def _runtime(bundle: Path, tmp_path: Path, variables: dict[str, str]) -> dict[str, str]:
    """Only the bundle and what the Lambda runtime provides (boto3 & co.) on the path."""
    provided = tmp_path / "runtime"
    provided.mkdir(exist_ok=True)
    site = Path(next(p for p in sys.path if p.endswith("site-packages")))
    for name in RUNTIME_PACKAGES:
        if not (provided / name).exists():
            (provided / name).symlink_to(site / name)
    return {
        **variables,
        "PATH": os.environ["PATH"],
        "PYTHONPATH": f"{bundle}{os.pathsep}{provided}",
        "AWS_DEFAULT_REGION": "eu-west-1",
    }


def _import_handler(bundle: Path, function: str, variables: dict[str, str], tmp_path: Path) -> None:
    code = (
        f"import functions.{function}.handler as h, pydantic_core, sys;"
        "assert all(m.__file__.startswith(sys.argv[1]) for m in (h, pydantic_core));"
        "assert callable(h.handler)"
    )
    # -S: no site-packages, so nothing outside the bundle (and the runtime's boto3) is importable.
    subprocess.run(  # noqa: S603
        [sys.executable, "-S", "-c", code, str(bundle)],
        env=_runtime(bundle, tmp_path, variables),
        cwd=tmp_path,
        check=True,
        timeout=60,
    )


def _serve_through_the_web_adapter_command(bundle: Path, variables: dict[str, str], tmp_path: Path) -> None:
    """Run the bundle's start script as the adapter would and read the card through it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "$@"\n')
    (bin_dir / "python3").chmod(0o755)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = _runtime(bundle, tmp_path, {**variables, "AWS_LWA_PORT": str(port)})
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    with _running([str(bundle / WEB_SERVER_SCRIPT)], env) as server:
        card = _get(f"http://127.0.0.1:{port}/.well-known/agent.json", server)
    assert card["url"] == variables["A2A_PUBLIC_URL"]


@contextlib.contextmanager
def _running(command: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as process:  # noqa: S603
        try:
            yield process
        finally:
            process.terminate()


def _get(url: str, server: subprocess.Popen[bytes]) -> dict[str, object]:
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310
                data: dict[str, object] = json.loads(response.read())
                return data
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                output = server.stdout.read().decode() if server.stdout else ""
                raise AssertionError(f"the start script did not serve {url}:\n{output}") from None
            time.sleep(0.1)
