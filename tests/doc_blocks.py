"""The fenced code blocks of the documentation (README.md and docs/), with the marker above each
that says whether and how it runs. The convention is documented in docs/contributing.md
("Code blocks in the docs"); `doc_runs` runs the blocks.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Languages whose blocks run unless marked no-run (json is parsed); every other one is shown only.
LANGUAGES = {"python": "python", "py": "python", "bash": "bash", "sh": "bash", "js": "js", "json": "json"}

_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
_MARKER = re.compile(r"^\s*<!--\s*(?P<kind>run|no-run)\s*(?::(?P<rest>.*?))?\s*-->\s*$")
_FLAGS = {"extended", "servers", "pytest"}
_VALUES = {"expect", "agent", "auth", "url", "say"}


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@dataclass(frozen=True)
class RunOptions:
    """What a ``<!-- run: ... -->`` marker asks for."""

    expect: tuple[str, ...] = ()
    agent: str | None = None
    auth: str | None = None
    extended: bool = False
    urls: tuple[str, ...] = ()
    say: tuple[str, ...] = ()
    servers: bool = False
    pytest: bool = False  # a python block that is a test module: pytest runs it


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # the opening fence's line, 1-based
    language: str  # normalised: python, bash, js, json, or the info string's first word
    code: str
    skip_reason: str | None = None  # set by <!-- no-run: reason -->
    options: RunOptions = field(default_factory=RunOptions)

    @property
    def id(self) -> str:
        return f"{_shown(self.path)}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.language in LANGUAGES.values() and self.skip_reason is None


def parse_options(text: str) -> RunOptions:
    """``expect="two words" auth=api_key extended ...``; raises ValueError naming what is wrong."""
    values: dict[str, list[str]] = {name: [] for name in _VALUES}
    flags: set[str] = set()
    for word in shlex.split(text):
        name, has_value, value = word.partition("=")
        if has_value and name in _VALUES and value:
            values[name].append(value)
        elif not has_value and name in _FLAGS:
            flags.add(name)
        else:
            raise ValueError(f"unknown run option {word!r} (options: {sorted(_VALUES | _FLAGS)})")
    for name in ("agent", "auth"):
        if len(values[name]) > 1:
            raise ValueError(f"{name}= given twice")
    if values["auth"] not in ([], ["api_key"]):
        raise ValueError(f"auth={values['auth'][0]} is not supported (auth=api_key is)")
    return RunOptions(
        expect=tuple(values["expect"]),
        agent=values["agent"][0] if values["agent"] else None,
        auth=values["auth"][0] if values["auth"] else None,
        extended="extended" in flags,
        urls=tuple(values["url"]),
        say=tuple(values["say"]),
        servers="servers" in flags,
        pytest="pytest" in flags,
    )


def collect(path: Path) -> tuple[list[Block], list[str]]:
    """The blocks of one Markdown file, and the problems of its markers (each naming its line)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    where = _shown(path)
    blocks: list[Block] = []
    problems: list[str] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        marker = _MARKER.match(lines[index])
        if marker and not (index + 1 < len(lines) and _FENCE.match(lines[index + 1])):
            problems.append(f"{where}:{index + 1}: a run marker must be the line right above a code block")
        if not opening:
            index += 1
            continue
        end = _closing(lines, index, opening.group("fence"))
        info = opening.group("info").split()
        language = LANGUAGES.get(info[0], info[0]) if info else ""
        code = "\n".join(_dedent(line, opening.group("indent")) for line in lines[index + 1 : end]) + "\n"
        above = _MARKER.match(lines[index - 1]) if index > 0 else None
        block, problem = _block(path, index + 1, language, code, above)
        blocks.append(block)
        if problem:
            problems.append(f"{where}:{index + 1}: {problem}")
        index = end + 1
    return blocks, problems


def collect_all() -> tuple[list[Block], list[str]]:
    blocks: list[Block] = []
    problems: list[str] = []
    for path in doc_files():
        found, wrong = collect(path)
        blocks += found
        problems += wrong
    return blocks, problems


def _block(
    path: Path, line: int, language: str, code: str, marker: re.Match[str] | None
) -> tuple[Block, str | None]:
    block = Block(path, line, language, code)
    if marker is None:
        return block, None
    rest = (marker.group("rest") or "").strip()
    if marker.group("kind") == "no-run":
        if not rest:
            return block, "<!-- no-run: ... --> needs a reason"
        return Block(path, line, language, code, skip_reason=rest), None
    if language not in LANGUAGES.values() or language == "json":
        return block, f"a {language or 'plain'} block cannot run (runnable: python, bash, js)"
    try:
        options = parse_options(rest)
    except ValueError as error:
        return block, str(error)
    if options.servers and language != "bash":
        return block, "`servers` is for bash blocks"
    if options.pytest and language != "python":
        return block, "`pytest` is for python blocks"
    return Block(path, line, language, code, options=options), None


def _shown(path: Path) -> Path:
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def _closing(lines: list[str], start: int, fence: str) -> int:
    for index in range(start + 1, len(lines)):
        stripped = lines[index].strip()
        if len(stripped) >= len(fence) and set(stripped) == {fence[0]}:
            return index
    return len(lines)


def _dedent(line: str, indent: str) -> str:
    return line[len(indent) :] if line.startswith(indent) else line.lstrip()
