"""The files of a new project: the package's templates (``a2a_core/templates``) filled in.

``templates/common`` holds what every project has (pyproject.toml, the CDK app, cdk.json,
package.json, .gitignore, a README, the tests' conftest); ``templates/<name>`` the agent and its
test (a framework's also ``tests/scripted.py``, the scripted model its tests run on). Paths map
onto the project as they are, with ``src/package`` named after the project and ``gitignore`` as
``.gitignore`` (a file of that name would be read as one by the wheel's build); ``*.tmpl`` files
have their ``{{placeholders}}`` filled in, and the rest is copied.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable

from a2a_core.cli.errors import CommandError
from a2a_core.cli.kit_source import KitSource

COMMON = "common"
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*([-_][A-Za-z0-9]+)*$")
# Names the project's own files or the kit take: src/app would lose to app.py, src/tests to tests/.
# src/scripted would shadow the framework templates' tests/scripted.py.
_TAKEN = frozenset(
    {"a2a_core", "a2a_serverless", "app", "src", "tests", "scripted", "aws_cdk", "constructs", "cdk_nag"}
)


@dataclass(frozen=True)
class Template:
    summary: str  # what ``init --help`` says of it
    description: str  # the card's, and the project's
    skills: tuple[Mapping[str, object], ...]
    # The kit's extra that brings the agent's framework (the project depends on the kit with it).
    extra: str = ""
    # What the agent needs to reach its model in `dev` (a framework's; the kit's own need none).
    # A template with one has tests/scripted.py too: its tests, and dev offline, run on that.
    model: str = ""
    # How the deployed worker reaches that model.
    deployed_model: str = ""


_COUNT = {
    "id": "count",
    "name": "Count words",
    "description": "Counts the words of a text.",
    "tags": ["example"],
}
TEMPLATES = {
    "plain": Template(
        "one turn per message (default)",
        "Answers each message in one turn.",
        ({"id": "reply", "name": "Reply", "description": "Counts a message's words.", "tags": ["example"]},),
    ),
    "multiturn": Template(
        "asks a question, completes on the answer",
        "Outlines a piece about a topic, asks who it is for, and completes on the answer.",
        (
            {
                "id": "outline",
                "name": "Outline",
                "description": "Outlines a piece about a topic for the audience you name.",
                "tags": ["writing", "multi-turn"],
            },
        ),
    ),
    "adk": Template(
        "a Google ADK agent with a tool, through ADK's A2A executor",
        "Counts words with a tool (Google ADK), and remembers the conversation of a context.",
        (_COUNT,),
        extra="adk",
        model="Gemini, with GOOGLE_API_KEY set",
        deployed_model="its key: worker_secrets in app.py",
    ),
    "agent-framework": Template(
        "a Microsoft Agent Framework agent streaming its answer, through its A2A executor",
        "Counts words (Microsoft Agent Framework), streaming its answer.",
        (_COUNT,),
        extra="agent-framework",
        model="the chat client agent.py builds",
        deployed_model="its key: worker_secrets in app.py",
    ),
    "strands": Template(
        "a Strands agent that asks before it acts, through Strands' A2A executor",
        "Counts words with a tool (Strands Agents), asking for approval first.",
        (_COUNT,),
        extra="strands",
        model="Bedrock, with AWS credentials",
        deployed_model="app.py lets the worker call MODEL",
    ),
}


@dataclass(frozen=True)
class Names:
    distribution: str  # [project] name: my-agent
    package: str  # the agent's package: my_agent
    title: str  # the card's name: My agent
    stack: str  # the CloudFormation stack: MyAgent


def project_names(name: str) -> Names:
    """The names a project called ``name`` goes by; `CommandError` for one that cannot serve."""
    if not _NAME.match(name):
        raise CommandError(
            f"{name!r} cannot name a project: use letters, digits, '-' and '_', starting with a letter "
            "(choose another DIR, or --name)"
        )
    package = name.replace("-", "_").lower()
    shadowed = _shadowed(package)
    if shadowed:
        raise CommandError(
            f"{name!r} cannot name a project: its package, {package}, would shadow {shadowed} "
            "(choose another DIR, or --name)"
        )
    words = re.split(r"[-_]", name)
    title = " ".join(words).capitalize() if name.islower() else " ".join(words)
    return Names(name, package, title, "".join(word[:1].upper() + word[1:] for word in words))


def _shadowed(package: str) -> str | None:
    if keyword.iskeyword(package):
        return "a Python keyword"
    if package in sys.stdlib_module_names:
        return "Python's own module of that name"
    if package in _TAKEN:
        return "a name the project's files or the kit use"
    return None


def render(template: str, names: Names, kit: KitSource) -> dict[str, str]:
    """The project's files (relative path -> text) for ``template``."""
    chosen = TEMPLATES[template]
    values = {
        "distribution": names.distribution,
        "package": names.package,
        "title": names.title,
        "title_toml": json.dumps(names.title),
        "stack": names.stack,
        "description": chosen.description,
        "description_toml": json.dumps(chosen.description),
        "skills_toml": ",\n".join(f"    {_inline_table(skill)}" for skill in chosen.skills),
        "kit_requirement": kit.requirement(f"[{chosen.extra}]" if chosen.extra else ""),
        "kit_requirement_dev": kit.requirement("[local,cdk]"),
        "kit_source": kit.sources_table(),
        "run_model": _run_model(chosen),
    }
    root = files("a2a_core") / "templates"
    rendered: dict[str, str] = {}
    for folder in (COMMON, template):
        for parts, source in _walk(root / folder, ()):
            path = _target(parts, names.package)
            text = source.read_text(encoding="utf-8")
            rendered[path.removesuffix(".tmpl")] = _fill(text, values) if path.endswith(".tmpl") else text
    return rendered


def _run_model(template: Template) -> str:
    """The README's word on the agent's model (a framework template's), where `dev` runs it."""
    if not template.model:
        return ""
    return (
        f"\nThe agent calls its model in `dev` ({template.model}). Offline, serve it on the\n"
        "scripted model its tests run on (tests/scripted.py) instead:\n\n"
        "```bash\nPYTHONPATH=tests a2a-serverless dev --agent scripted:agent\n```\n"
    )


def _walk(folder: Traversable, parts: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Traversable]]:
    for entry in sorted(folder.iterdir(), key=lambda entry: entry.name):
        if entry.name == "__pycache__":
            continue
        if entry.is_dir():
            yield from _walk(entry, (*parts, entry.name))
        else:
            yield (*parts, entry.name), entry


def _target(parts: tuple[str, ...], package: str) -> str:
    if parts[:2] == ("src", "package"):
        parts = ("src", package, *parts[2:])
    if parts == ("gitignore",):
        parts = (".gitignore",)
    return "/".join(parts)


def _fill(text: str, values: Mapping[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        return values[match.group(1)]  # a KeyError here is a template naming an unknown value

    return _PLACEHOLDER.sub(value, text)


def _inline_table(values: Mapping[str, object]) -> str:
    return "{ " + ", ".join(f"{key} = {json.dumps(value)}" for key, value in values.items()) + " }"
