"""The Lambda bundles: their hashes follow every input, and (one test) they are built for real,
each holding exactly what its function imports, and exercised."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import marshal
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

from a2a_core.bundling import closures, modules
from a2a_core.bundling.build import KIT_SOURCE, WEB_SERVER_SCRIPT, Bundle, BundleSpec
from a2a_core.bundling.plan import BundleOptions, BundlePlan
from a2a_core.bundling.requirements import requirement_name
from a2a_core.bundling.uv import BundlingError, find_uv
from a2a_core.cdk import A2AServiceProps, A2AStack, AuthMode, JwtIssuer, StreamingMode
from a2a_core.cdk.functions import BUNDLES
from a2a_core.cdk.testing import checked_app, logical_id
from a2a_core.project import find_project
from function_trace.runner import Stage, Variant, exercise
from support import missing_prerequisite

ARM = BundleSpec(platform="aarch64", python_version="3.13")
ELF_MACHINES = {"aarch64": 183, "x86_64": 62}  # e_machine in the ELF header
# What the Lambda Python runtime provides and the bundle leaves out (boto3 and its dependencies).
RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "dateutil", "jmespath", "urllib3", "six.py")
API_KEY_MODE_LIMIT = 6 * 2**20  # zipped, arm64: the API function in API-key mode
SIGNATURE_CHECKERS = {"cryptography", "cffi", "pycparser", "joserfc"}
# The Lambda runtime the real bundles are built for: this interpreter's, so their bytecode is
# compiled (by this very interpreter) and they run here.
LOCAL_RUNTIME = lambda_.Runtime.PYTHON_3_11


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    (tmp_path / "a2a_core" / "functions" / "api").mkdir(parents=True)
    (tmp_path / "a2a_core" / "__init__.py").write_text("")
    (tmp_path / "a2a_core" / "functions" / "api" / "handler.py").write_text("handler = None\n")
    return tmp_path


def _bundle(
    sources: Path, spec: BundleSpec = ARM, requirements: str = "pydantic==2.12.0\n", **more: Any
) -> Bundle:
    return Bundle(spec=spec, requirements=requirements, code=((sources / "a2a_core", "a2a_core"),), **more)


def test_hash_follows_platform_python_version_and_options(sources: Path) -> None:
    specs = [
        ARM,
        replace(ARM, platform="x86_64"),
        replace(ARM, python_version="3.14"),
        replace(ARM, include_boto3=True),
        replace(ARM, distributions=("pydantic",)),
        replace(ARM, distributions=("pydantic",), kept_packages=("aws_lambda_powertools",)),
        replace(ARM, agent=True),
        BundleSpec.for_function("api", architecture="arm64", python_version="3.13", web_server=True),
    ]
    hashes = {_bundle(sources, spec).asset_hash() for spec in specs}
    assert len(hashes) == len(specs)
    assert _bundle(sources).asset_hash() == _bundle(sources).asset_hash()


def test_hash_follows_requirements_sources_and_bytecode_but_no_path_of_this_machine(
    sources: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    before = _bundle(sources).asset_hash()
    assert _bundle(sources, requirements="pydantic==2.12.1\n").asset_hash() != before
    assert _bundle(sources, interpreter=sys.executable).asset_hash() != before  # with bytecode
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "a2a_core").mkdir()
    for path, name in _bundle(sources).source_files():
        (elsewhere / name).parent.mkdir(parents=True, exist_ok=True)
        (elsewhere / name).write_bytes(path.read_bytes())
    assert _bundle(elsewhere, cwd=elsewhere, uv="/elsewhere/uv").asset_hash() == before
    cache = sources / "a2a_core" / "functions" / "api" / "__pycache__"
    cache.mkdir()
    (cache / "handler.cpython-311.pyc").write_bytes(b"\0")
    assert _bundle(sources).asset_hash() == before
    (sources / "a2a_core" / "functions" / "api" / "handler.py").write_text("handler = print\n")
    assert _bundle(sources).asset_hash() != before


def test_hash_follows_the_content_of_a_wheel_named_by_path(sources: Path) -> None:
    (sources / "wheels").mkdir()
    wheel = sources / "wheels" / "greeting-1.0-py3-none-any.whl"
    wheel.write_bytes(b"one")
    requirements = "./wheels/greeting-1.0-py3-none-any.whl\npydantic==2.12.0\n"
    before = _bundle(sources, requirements=requirements, cwd=sources).asset_hash()
    wheel.write_bytes(b"two")
    assert _bundle(sources, requirements=requirements, cwd=sources).asset_hash() != before


def test_the_kits_deploy_time_packages_stay_out_of_its_bundles(sources: Path) -> None:
    for package in ("cdk", "bundling"):
        (sources / "a2a_core" / package).mkdir()
        (sources / "a2a_core" / package / "__init__.py").write_text("import aws_cdk\n")
    names = {name for _, name in _bundle(sources).source_files()}
    assert names == {"a2a_core/__init__.py", "a2a_core/functions/api/handler.py"}


def test_agent_code_is_bundled_at_the_top_level_and_hashed(sources: Path) -> None:
    (sources / "agents" / "research").mkdir(parents=True)
    (sources / "agents" / "research" / "__init__.py").write_text("async def agent(ctx): ...\n")
    (sources / "helper.py").write_text("")
    agent = replace(
        _bundle(sources),
        code=(
            (sources / "a2a_core", "a2a_core"),
            (sources / "agents" / "research", "research"),
            (sources / "helper.py", "helper.py"),
        ),
    )
    assert {"research/__init__.py", "helper.py"} <= {name for _, name in agent.source_files()}
    assert agent.asset_hash() != _bundle(sources).asset_hash()


def test_spec_follows_the_function_architecture_python_and_closure() -> None:
    spec = BundleSpec.for_function(
        "api", architecture="x86_64", python_version="3.14", auth="jwt", web_server=True
    )
    closure = closures.closure("api", {"auth": "jwt", "server": "uvicorn"})
    assert spec == BundleSpec(
        platform="x86_64",
        python_version="3.14",
        distributions=tuple(sorted(closure.distributions)),
        kept_packages=tuple(sorted(closure.packages)),
        web_server=True,
        kit_modules=spec.kit_modules,
    )
    # The kit's modules: those traced, and every one they can import (lazily too).
    assert closure.modules <= set(spec.kit_modules)
    assert "a2a_core.aws.json_client" in spec.kit_modules  # imported when the clients are built
    assert "a2a_core.protocol.v1.rest" in spec.kit_modules  # on the first 1.0 HTTP+JSON request
    assert not [
        m for m in spec.kit_modules if m.startswith(("a2a_core.client", "a2a_core.dev", "a2a_core.cdk"))
    ]
    worker = BundleSpec.for_function("worker", architecture="arm64", python_version="3.13", web_server=True)
    assert (worker.web_server, worker.agent) == (False, True)
    assert "a2a_core.examples.multiturn" not in worker.kit_modules
    kit_agent = BundleSpec.for_function(
        "worker", architecture="arm64", python_version="3.13", agent="a2a_core.examples.multiturn:agent"
    )
    assert "a2a_core.examples.multiturn" in kit_agent.kit_modules  # an agent of the kit's own
    assert not BundleSpec.for_function("dlq", architecture="arm64", python_version="3.13").agent


def test_bundles_hold_what_each_function_imports_and_serve_requests(tmp_path: Path) -> None:
    """Bundles for real, through CDK: arm64 buffered with API keys, x86_64 response streaming with
    JWT, both for this interpreter's Python (so bytecode is compiled). Each holds its function's
    traced closure and nothing else; the bundles this machine can run cold-start alone (with what
    the Lambda runtime provides) and serve their requests on moto (`function_trace.runner`), so
    nothing they need is missing either."""
    try:
        find_uv(find_project().root)
    except BundlingError as error:  # `make test` always has it (.tools/bin/uv)
        missing_prerequisite(str(error))
    app = checked_app(tmp_path / "cdk.out", skip_bundling=False)
    A2AStack(app, "Arm", A2AServiceProps(runtime=LOCAL_RUNTIME), push=True)
    A2AStack(
        app,
        "X86",
        A2AServiceProps(
            auth=AuthMode.JWT,
            jwt=JwtIssuer("https://issuer.example.com/", "agent", "https://issuer.example.com/jwks.json"),
            runtime=LOCAL_RUNTIME,
            architecture=lambda_.Architecture.X86_64,
            streaming=StreamingMode.RESPONSE_STREAM,
        ),
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
            _assert_kit_modules(bundle, function, settings)
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


def _assert_kit_modules(bundle: Path, function: str, settings: dict[str, str]) -> None:
    """Of the kit, the modules the function's spec names, with their packages' data; never the
    client, the CLI, dev's server and emulator, or the deploy-time packages."""
    spec = BundleSpec.for_function(
        function,
        architecture="arm64",
        python_version="3.11",
        auth=settings["auth"],
        web_server=settings["server"] == "uvicorn",
        agent=find_project().agent,
    )
    shipped = {
        path.relative_to(bundle).as_posix()
        for path in (bundle / "a2a_core").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.name != "botocore_endpoints.json"
    }
    assert shipped == {name for _, name in modules.bundled_files(spec.kit_modules, KIT_SOURCE)}
    assert "a2a_core/functions/" + function + "/handler.py" in shipped
    for absent in ("client", "cli", "dev", "emulator", "cdk", "bundling", "testing"):
        assert not [name for name in shipped if name.startswith(f"a2a_core/{absent}/")], absent


def _elf_machine(library: Path) -> int:
    with library.open("rb") as file:
        header = file.read(20)
    assert header[:4] == b"\x7fELF", library
    return int.from_bytes(header[18:20], "little")


def _assert_precompiled(bundle: Path, function: str) -> None:
    for module in (f"a2a_core/functions/{function}/handler.py", "a2a_core/settings.py", "pydantic/main.py"):
        source = bundle / module
        cached = Path(importlib.util.cache_from_source(str(source)))
        data = cached.read_bytes()
        assert data[:4] == importlib.util.MAGIC_NUMBER  # compiled by the runtime's Python version
        assert int.from_bytes(data[4:8], "little") == 0b01  # hash-based, source never re-checked
        # Tracebacks name the file where Lambda puts it, not where this machine built it.
        assert marshal.loads(data[16:]).co_filename  # noqa: S302 (our own bytecode) == f"{TASK_ROOT}/{module}"


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


def test_the_worker_alone_gets_the_agent_groups_dependencies() -> None:
    """This repository's `agent` group is empty; the dev group stands in for an agent's dependencies."""
    kit = find_project()
    project = kit.with_agent(kit.agent)
    project = replace(project, config=project.config.model_copy(update={"dependency_groups": ("dev",)}))
    plan = BundlePlan(project, BundleOptions(python_version="3.11"))
    lines = {f: plan.bundle(f).requirements.splitlines() for f in ("worker", "dlq")}
    names = {function: [requirement_name(line) for line in found] for function, found in lines.items()}
    assert {"a2a-sdk", "moto", "httpx"} <= set(names["worker"])  # the group's, and what they need
    assert not {"a2a-sdk", "moto", "httpx"} & set(names["dlq"])
    repeated = {name for name in names["worker"] if names["worker"].count(name) > 1}
    # Each pinned once, unless the lock splits it by environment markers (one line per Python).
    assert all(";" in line for line in lines["worker"] if requirement_name(line) in repeated)
    assert not closures.RUNTIME_PROVIDED & set(names["worker"])  # boto3's family still the runtime's
