"""Bundle sizes per Lambda function, zipped as CDK uploads them, next to the one shared bundle of before.

Every function is bundled as the CDK stack bundles it (`a2a_core.bundling`: arm64 manylinux wheels,
bytecode compiled, its own closure from `a2a_core/bundling/function_imports.json`) for the deployments that
change it: the default (REST API, API keys, push on), JWT (with the authorizer) and response
streaming (uvicorn). "shared (before)" is the bundle every function shipped until each got its
own: the whole ``aws`` extra, boto3's family left to the runtime as now. Zipped with deflate at
zlib's default level, as CDK's asset zips are. Each bundle's ``a2a_core`` (the kit's modules its
function can import, `a2a_core.bundling.modules`) is shown beside the whole kit every bundle
carried before (all of ``a2a_core`` but its deploy-time packages), both with their bytecode.

    .venv/bin/python bench/bundle_sizes.py [--platform aarch64|x86_64] [--json]
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import sys
import tempfile
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # function_trace/ lives beside the package, it is not installed

import smoke  # noqa: E402
from a2a_core.bundling import closures  # noqa: E402
from a2a_core.bundling.build import KIT_SOURCE  # noqa: E402
from a2a_core.bundling.bytecode import compile_bytecode  # noqa: E402
from a2a_core.bundling.plan import BundleOptions, BundlePlan  # noqa: E402
from a2a_core.bundling.requirements import requirement_name  # noqa: E402
from a2a_core.bundling.uv import find_uv, run  # noqa: E402
from a2a_core.bundling.wheels import install_wheels  # noqa: E402
from a2a_core.project import find_project  # noqa: E402

API_KEY_MODE_LIMIT = 6 * 2**20
# (label, function, auth, response streaming)
BUNDLES = (
    ("api", "api", "api_key", False),
    ("worker", "worker", "api_key", False),
    ("dlq", "dlq", "api_key", False),
    ("push", "push", "api_key", False),
    ("api (jwt)", "api", "jwt", False),
    ("authorizer", "authorizer", "jwt", False),
    ("api (streaming)", "api", "api_key", True),
)


@dataclass(frozen=True)
class Size:
    files: int
    unzipped: int
    zipped: int
    distributions: list[str]
    kit_unzipped: int = 0  # of it, the kit's own package (a2a_core)
    kit_zipped: int = 0


def measure(bundle: Path) -> Size:
    unzipped, zipped, files = _zip(bundle, bundle)
    names = sorted(
        closures.canonical(p.name.removesuffix(".dist-info").rsplit("-", 1)[0])
        for p in bundle.glob("*.dist-info")
    )
    kit_unzipped, kit_zipped, _ = _zip(bundle, bundle / "a2a_core")
    return Size(files, unzipped, zipped, names, kit_unzipped, kit_zipped)


def _zip(bundle: Path, part: Path) -> tuple[int, int, int]:
    """(unzipped, zipped, files) of the files under ``part``."""
    files = sorted(path for path in part.rglob("*") if path.is_file())
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            archive.write(path, path.relative_to(bundle))
    return sum(p.stat().st_size for p in files), len(buffer.getvalue()), len(files)


def whole_kit(output: Path) -> Size:
    """The kit as every bundle carried it before: all of a2a_core but cdk/ and bundling/, compiled."""
    ignored = shutil.ignore_patterns("__pycache__", "cdk", "bundling")
    shutil.copytree(KIT_SOURCE, output / "a2a_core", ignore=ignored)
    compile_bytecode(output, sys.executable)
    return measure(output)


def shared_bundle(output: Path, platform: str) -> None:
    """The one bundle of before: the ``aws`` extra, minus boto3's family, and our sources."""
    uv = find_uv(ROOT)
    command = [uv, "export", "--project", str(ROOT), "--frozen", "--no-emit-project", "--no-hashes"]
    command += ["--no-header", "--no-annotate", "--no-default-groups", "--extra=aws"]
    lines = run(command, "export the aws extra").stdout.splitlines()
    requirements = "".join(
        f"{line}\n" for line in lines if requirement_name(line) not in closures.RUNTIME_PROVIDED
    )
    install_wheels(output, requirements, platform=platform, python_version="3.11", uv=uv)
    shutil.copytree(KIT_SOURCE, output / "a2a_core", ignore=shutil.ignore_patterns("__pycache__"))
    compile_bytecode(output, sys.executable)


def build_all(directory: Path, platform: str, *, only_api: bool = False) -> dict[str, Size]:
    """Every bundle, or with ``only_api`` just the API function's (a smoke run)."""
    architecture = "arm64" if platform == "aarch64" else "x86_64"
    sizes = {}
    sizes["whole kit"] = whole_kit(directory / "kit")
    if not only_api:
        shared_bundle(directory / "shared", platform)
        sizes["shared (before)"] = measure(directory / "shared")
    for label, function, auth, streaming in BUNDLES[:1] if only_api else BUNDLES:
        # Python 3.11: this interpreter compiles the bytecode, as the runtime's Python would.
        options = BundleOptions(
            architecture=architecture, python_version="3.11", auth=auth, web_server=streaming
        )
        output = directory / label.replace(" ", "-").replace("(", "").replace(")", "")
        BundlePlan(find_project(ROOT), options).bundle(function).build(output)
        sizes[label] = measure(output)
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--platform", choices=("aarch64", "x86_64"), default="aarch64")
    parser.add_argument("--json", action="store_true", help="print one machine-readable JSON object")
    args = smoke.parse(parser)
    with tempfile.TemporaryDirectory(prefix="a2a-bundle-sizes-") as scratch:
        sizes = build_all(Path(scratch), args.platform, only_api=args.smoke)
    if args.json:
        print(
            json.dumps(
                {
                    "benchmark": "bundle_sizes",
                    "platform": args.platform,
                    "bundles": {k: asdict(v) for k, v in sizes.items()},
                }
            )
        )
        return
    print(f"Lambda bundles, {args.platform}, zipped as CDK uploads them (MiB = 2^20 bytes)")
    print()
    kit = sizes.pop("whole kit")
    mib = 2**20
    columns = f"{'zipped MiB':>10} {'unzipped MiB':>13} {'files':>6} {'a2a_core: zipped / unzipped MiB':>33}"
    header = f"{'bundle':<17} {columns}  distributions (boto3's family: from the runtime)"
    print(header)
    print("-" * len(header))
    for label, size in sizes.items():
        own = f"{size.kit_zipped / mib:.2f} / {size.kit_unzipped / mib:.2f}"
        print(
            f"{label:<17} {size.zipped / mib:>10.2f} {size.unzipped / mib:>13.2f} {size.files:>6} {own:>33}"
            f"  {len(size.distributions)}: {' '.join(size.distributions)}"
        )
    print(
        f"\nthe whole kit each bundle carried before (all of a2a_core but cdk/ and bundling/): "
        f"{kit.kit_zipped / mib:.2f} MiB zipped, {kit.kit_unzipped / mib:.2f} MiB unzipped, "
        f"{kit.files} files; a bundle's size before: its size now + the whole kit - its a2a_core"
    )
    api = sizes["api"].zipped
    verdict = "PASS" if api <= API_KEY_MODE_LIMIT else "MISS"
    print()
    print(f"API function, API-key mode: {api / 2**20:.2f} MiB zipped (target <= 6 MiB: {verdict})")


if __name__ == "__main__":
    main()
