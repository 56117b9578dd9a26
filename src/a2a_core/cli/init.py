"""``a2a-serverless init DIR``: a new agent project, ready to run, test and deploy, offline.

It writes the agent (``src/<name>/agent.py``), its test (``a2a_core.testing``), a pyproject.toml
naming them in ``[tool.a2a-serverless]`` and depending on the kit, a CDK app on the packaged
construct (``app.py``, ``cdk.json``, ``package.json`` pinning the CDK CLI), ``.gitignore`` and a
README with the project's commands. Nothing is downloaded or installed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from a2a_core.cli.errors import CommandError
from a2a_core.cli.kit_source import kit_source
from a2a_core.cli.scaffold import TEMPLATES, Names, project_names, render


def add_parser(commands: Any) -> None:
    init = commands.add_parser(
        "init",
        help="make a new agent project: the agent, its test, pyproject.toml, a CDK app",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    init.add_argument("directory", nargs="?", default=".", metavar="DIR", help="where (default: here)")
    init.add_argument(
        "--template",
        choices=sorted(TEMPLATES),
        default="plain",
        help="; ".join(f"{name}: {template.summary}" for name, template in TEMPLATES.items()),
    )
    init.add_argument("--name", help="the project's name (default: DIR's; the package's: with _ for -)")
    init.add_argument(
        "--kit-source",
        metavar="SOURCE",
        help="where the project gets a2a-serverless: a checkout, a wheel, a git URL "
        "(git+https://host/repo.git@tag) or a requirement (a2a-serverless>=0.1); default: where this "
        "one was installed from (a local wheel or checkout), else the package index at this version",
    )
    init.add_argument(
        "--force", action="store_true", help="write into a folder that is not empty (same names are replaced)"
    )


def run(args: argparse.Namespace, stdout: TextIO | None = None) -> int:
    directory = Path(args.directory).expanduser().resolve()
    names = project_names(args.name or directory.name)
    if directory.exists() and not directory.is_dir():
        raise CommandError(f"{args.directory} is a file, not a folder")
    if directory.exists() and any(directory.iterdir()) and not args.force:
        raise CommandError(
            f"{args.directory} is not empty: name a new folder, or add --force to write the project's "
            "files into it (files of the same names are replaced)"
        )
    kit = kit_source(args.kit_source, directory)
    for relative, text in render(args.template, names, kit).items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    choose = "" if args.kit_source else "; --kit-source chooses another"
    (stdout or sys.stdout).write(_summary(args.template, directory, names, kit.description + choose))
    return 0


def _summary(template: str, directory: Path, names: Names, kit: str) -> str:
    here = Path.cwd().resolve()
    shown = directory.relative_to(here) if directory.is_relative_to(here) else directory
    files = {
        f"src/{names.package}/agent.py": "the agent, which [tool.a2a-serverless] in pyproject.toml names",
        "tests/test_agent.py": "its test, through the kit's engine in memory",
        "app.py": "the CDK app (cdk.json; package.json pins the CDK CLI)",
    }
    width = max(map(len, files)) + 2
    lines = (
        f"Made the agent project {names.distribution} in {directory} (template: {template}):\n"
        + "".join(f"  {name.ljust(width)}{what}\n" for name, what in files.items())
        + f"The kit comes from {kit}.\n\nNext, where a2a-serverless is installed ({sys.prefix}):\n"
        + "".join(f"  {step}\n" for step in next_steps(template, str(shown) if directory != here else None))
        + "(With uv alone, `uv run COMMAND` runs each in the project's own .venv.)\n"
    )
    return lines


def next_steps(template: str, cd: str | None = None) -> list[str]:
    """What to run after ``init``, in order: the dependencies first (a framework's agent imports
    its framework), then its tests, dev (offline on the tests' scripted model for a framework),
    the deployment and its self-test."""
    chosen = TEMPLATES[template]
    scripted = ", on a scripted model (tests/scripted.py)" if chosen.model else ""
    on_model = f", on {chosen.model}" if chosen.model else ""
    steps = [
        *([f"cd {cd}"] if cd else []),
        "uv sync --active                # its locked dependencies and pytest, into this environment",
        f"pytest                          # its tests{scripted}",
        f"a2a-serverless dev              # serve it on http://127.0.0.1:8000/{on_model}",
    ]
    if chosen.model:
        steps.append(f"{OFFLINE_DEV}   # or offline, on the tests' scripted model")
    model = f"; {chosen.deployed_model}" if chosen.deployed_model else ""
    return [
        *steps,
        f"npm install && npx cdk deploy   # deploy it (AWS credentials{model})",
        "a2a-serverless check <AgentUrl> -H 'x-api-key: <key>'   # with the deploy's outputs: a self-test",
    ]


# dev puts src/ on the path itself; tests/ holds the scripted model.
OFFLINE_DEV = "PYTHONPATH=tests a2a-serverless dev --agent scripted:agent"
