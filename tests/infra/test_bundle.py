"""The Lambda bundles: their hashes follow every input, and (one test) they are built for real,
each holding exactly what its function imports, and exercised."""

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
from infra.bundling import WEB_SERVER_SCRIPT, BundleSpec, asset_hash, export_requirements, source_files
from infra.exercise import Stage, Variant, exercise
from infra.functions import BUNDLES, RUNTIME
from infra.options import AuthMode, JwtIssuer, StreamingMode
from infra.stack import A2AStack
from infra.testing import checked_app, logical_id
from infra.wheels import BundlingError, find_uv, requirement_name

from infra import bundling, closures
from support import missing_prerequisite

ARM = BundleSpec(platform="aarch64", python_version="3.11")
ELF_MACHINES = {"aarch64": 183, "x86_64": 62}  # e_machine in the ELF header
# What the Lambda Python runtime provides and the bundle leaves out (boto3 and its dependencies).
RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "dateutil", "jmespath", "urllib3", "six.py")
API_KEY_MODE_LIMIT = 6 * 2**20  # zipped, arm64: the API function in API-key mode
SIGNATURE_CHECKERS = {"cryptography", "cffi", "pycparser", "joserfc"}


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
        replace(ARM, distributions=("pydantic",)),
        replace(ARM, distributions=("pydantic",), kept_packages=("aws_lambda_powertools",)),
        BundleSpec.for_function("api", lambda_.Architecture.ARM_64, RUNTIME, web_server=True),
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


def test_spec_follows_the_function_architecture_runtime_and_closure() -> None:
    spec = BundleSpec.for_function("api", lambda_.Architecture.X86_64, RUNTIME, auth="jwt", web_server=True)
    closure = closures.closure("api", {"auth": "jwt", "server": "uvicorn"})
    assert spec == BundleSpec(
        platform="x86_64",
        python_version="3.11",
        distributions=tuple(sorted(closure.distributions)),
        kept_packages=tuple(sorted(closure.packages)),
        web_server=True,
    )
    worker = BundleSpec.for_function(
        "worker", lambda_.Architecture.ARM_64, RUNTIME, web_server=True, packages=("agents/research",)
    )
    assert (worker.web_server, worker.agent_dependencies, worker.packages) == (
        False,
        True,
        ("agents/research",),
    )
    dlq = BundleSpec.for_function("dlq", lambda_.Architecture.ARM_64, RUNTIME, packages=("agents/research",))
    assert (dlq.agent_dependencies, dlq.packages) == (False, ())


def test_bundles_hold_what_each_function_imports_and_serve_requests(tmp_path: Path) -> None:
    """Bundles for real, through CDK: arm64 buffered with API keys, x86_64 response streaming with
    JWT. Each holds its function's traced closure and nothing else; the bundles this machine can
    run cold-start alone (with what the Lambda runtime provides) and serve their requests on moto
    (`infra.exercise`), so nothing they need is missing either."""
    try:
        find_uv()
    except BundlingError as error:  # `make test` always has it (.tools/bin/uv)
        missing_prerequisite(str(error))
    app = checked_app(tmp_path / "cdk.out", skip_bundling=False)
    A2AStack(app, "Arm", agent="a2a_core.examples.echo:agent", push=True)
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
        _bundles(assembly.directory, assembly.get_stack_by_name(name).template) for name in ("Arm", "X86")
    )
    assert set(arm) == {"api", "worker", "dlq", "push"}
    assert set(x86) == {*arm, "authorizer"}

    for bundles, platform, settings in (
        (arm, "aarch64", {"auth": "api_key", "server": "mangum"}),
        (x86, "x86_64", {"auth": "jwt", "server": "uvicorn"}),
    ):
        for function, bundle in bundles.items():
            closure = closures.closure(function, settings if function == "api" else {})
            assert _distributions(bundle) == closure.distributions - closures.RUNTIME_PROVIDED, function
            _assert_pruned(bundle, closure.packages)
            libraries = [path for path in bundle.rglob("*.so*") if path.is_file()]
            assert {_elf_machine(path) for path in libraries} <= {ELF_MACHINES[platform]}
            assert not [name for name in RUNTIME_PACKAGES if (bundle / name).exists()]
            assert not (bundle / "bin").exists()
            web_server = function == "api" and settings["server"] == "uvicorn"
            assert (bundle / WEB_SERVER_SCRIPT).exists() == web_server
            _assert_precompiled(bundle, function)
            print(f"\n{platform} {function} bundle: {_sizes(bundle, tmp_path)}")
    # Signatures are checked by the authorizer (JWT) and, in JWT mode, the app; KMS makes them.
    assert not SIGNATURE_CHECKERS & (_distributions(arm["api"]) | _distributions(arm["worker"]))
    assert not SIGNATURE_CHECKERS & (_distributions(x86["push"]) | _distributions(x86["dlq"]))
    assert {"cryptography", "joserfc"} <= _distributions(x86["authorizer"])
    assert _zipped(arm["api"], tmp_path) <= API_KEY_MODE_LIMIT

    # Run the bundles this machine can execute, each alone with what the Lambda runtime provides.
    runnable, auth, server = (
        (x86, "jwt", "uvicorn") if os.uname().machine == "x86_64" else (arm, "api_key", "mangum")
    )
    runtime = _runtime_packages(tmp_path)
    with Stage() as stage:
        for function, bundle in runnable.items():
            exercise(stage, Variant(function, auth=auth, server=server), [bundle, runtime])
    if runnable is x86:
        template = assembly.get_stack_by_name("X86").template
        _serve_through_the_web_adapter_command(x86["api"], _deployed_environment(template, "api"), tmp_path)


def _bundles(outdir: str, template: Any) -> dict[str, Path]:
    """The asset directory of each function of the stack."""
    found = {}
    resources = Template.from_json(template)
    for name, function in BUNDLES.items():
        try:
            resource = logical_id(resources, "AWS::Lambda::Function", f"/Functions/{name}/Resource")
        except LookupError:
            continue  # the stack has no such function
        metadata = template["Resources"][resource]["Metadata"]
        assert metadata["aws:asset:is-bundled"] is True
        found[function] = Path(outdir) / str(metadata["aws:asset:path"])
    return found


def _distributions(bundle: Path) -> set[str]:
    return {
        closures.canonical(path.name.removesuffix(".dist-info").rsplit("-", 1)[0])
        for path in bundle.glob("*.dist-info")
    }


def _assert_pruned(bundle: Path, kept: frozenset[str]) -> None:
    """Of Powertools, exactly the packages the function imports (its event handler never)."""
    for top in closures.PRUNED.values():
        found = {
            ".".join(path.parent.relative_to(bundle).parts) for path in bundle.glob(f"{top}/**/__init__.py")
        }
        assert found == {package for package in kept if package.split(".")[0] == top}
        assert f"{top}.event_handler" not in found


def _elf_machine(library: Path) -> int:
    with library.open("rb") as file:
        header = file.read(20)
    assert header[:4] == b"\x7fELF", library
    return int.from_bytes(header[18:20], "little")


def _assert_precompiled(bundle: Path, function: str) -> None:
    for module in (f"functions/{function}/handler.py", "a2a_core/app.py", "pydantic/main.py"):
        source = bundle / module
        cached = Path(importlib.util.cache_from_source(str(source)))
        header = cached.read_bytes()[:8]
        assert header[:4] == importlib.util.MAGIC_NUMBER  # compiled by the runtime's Python version
        assert int.from_bytes(header[4:8], "little") == 0b01  # hash-based, source never re-checked


def _zipped(bundle: Path, tmp_path: Path) -> int:
    archive = tmp_path / f"{bundle.name}.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        for path in sorted(bundle.rglob("*")):
            if path.is_file():
                zipped.write(path, path.relative_to(bundle))
    return archive.stat().st_size


def _sizes(bundle: Path, tmp_path: Path) -> str:
    files = [path for path in bundle.rglob("*") if path.is_file()]
    unzipped = sum(path.stat().st_size for path in files)
    zipped_size = _zipped(bundle, tmp_path)
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


def _runtime_packages(tmp_path: Path) -> Path:
    """A directory with what the Lambda runtime provides (boto3 & co.), linked from this venv."""
    provided = tmp_path / "runtime"
    provided.mkdir(exist_ok=True)
    site = Path(next(p for p in sys.path if p.endswith("site-packages")))
    for name in RUNTIME_PACKAGES:
        if not (provided / name).exists():
            (provided / name).symlink_to(site / name)
    return provided


def _runtime(bundle: Path, tmp_path: Path, variables: dict[str, str]) -> dict[str, str]:
    """Only the bundle and what the Lambda runtime provides (boto3 & co.) on the path."""
    return {
        **variables,
        "PATH": os.environ["PATH"],
        "PYTHONPATH": f"{bundle}{os.pathsep}{_runtime_packages(tmp_path)}",
        "AWS_DEFAULT_REGION": "eu-west-1",
    }


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


def test_the_worker_alone_gets_the_agent_group_and_its_dependencies(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `agent` group is empty here; the dev group stands in for an agent's dependencies."""
    monkeypatch.setattr(bundling, "AGENT_GROUP", "dev")
    worker = BundleSpec.for_function("worker", lambda_.Architecture.ARM_64, RUNTIME)
    dlq = BundleSpec.for_function("dlq", lambda_.Architecture.ARM_64, RUNTIME)
    lines = {"worker": export_requirements(worker).splitlines(), "dlq": export_requirements(dlq).splitlines()}
    names = {function: [requirement_name(line) for line in found] for function, found in lines.items()}
    assert {"a2a-sdk", "moto", "httpx"} <= set(names["worker"])  # the group's, and what they need
    assert not {"a2a-sdk", "moto", "httpx"} & set(names["dlq"])
    assert set(names["dlq"]) < set(names["worker"])
    repeated = {name for name in names["worker"] if names["worker"].count(name) > 1}
    # Each pinned once, unless the lock splits it by environment markers (one line per Python).
    assert all(";" in line for line in lines["worker"] if requirement_name(line) in repeated)
    assert not closures.RUNTIME_PROVIDED & set(names["worker"])  # boto3's family still the runtime's
