"""The front page and the pages that describe the tree stay true to it: the README's links
land, the configuration page names every setting, the layout names every package and module.
(Links between pages are checked by `mkdocs build --strict`, in `make test`.)"""

from __future__ import annotations

import re
from pathlib import Path

from markdown.extensions.toc import slugify  # type: ignore[import-untyped]

from a2a_core.settings import Settings
from doc_blocks import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
SRC = ROOT / "src" / "a2a_core"
_LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(?P<title>.+?)\s*$", re.M)


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    return {slugify(match.group("title").replace("`", ""), "-") for match in _HEADING.finditer(text)}


def test_the_readme_is_a_front_page_with_the_repository_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    assert "make dev" in text
    assert "make test" in text  # what .ci/run runs


def test_every_relative_link_of_the_readme_lands_on_a_file_and_heading() -> None:
    broken = []
    for match in _LINK.finditer(README.read_text(encoding="utf-8")):
        target = match.group("target")
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        page = (ROOT / path) if path else README
        if not page.exists():
            broken.append(f"{target}: no such file")
        elif anchor and anchor not in _anchors(page):
            broken.append(f"{target}: no heading #{anchor} in {path}")
    assert broken == []


def test_the_configuration_page_names_every_setting() -> None:
    page = (DOCS / "configuration.md").read_text(encoding="utf-8")
    missing = [f"A2A_{name.upper()}" for name in Settings.model_fields if f"`A2A_{name.upper()}`" not in page]
    assert missing == []


def test_the_layout_names_every_package_module_and_test_directory() -> None:
    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    layout = page[page.index("## Repository layout") :]
    named = set(re.findall(r"[\w.]+", layout))
    packages = [p.name for p in SRC.iterdir() if (p / "__init__.py").exists()]
    modules = [p.stem for p in SRC.glob("*.py") if p.stem != "__init__"]
    # core/'s modules, its wings' and the HTTP edge's: each named where the layout describes it.
    wings = [SRC / "core", *(p.parent for p in (SRC / "core").glob("*/__init__.py")), SRC / "web"]
    core = [p.stem for wing in wings for p in wing.glob("*.py") if p.stem != "__init__"]
    functions = [p.name for p in (SRC / "functions").iterdir() if (p / "handler.py").exists()]
    tests = [p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and not p.name.startswith((".", "_"))]
    names = [*packages, *modules, *core, *(wing.name for wing in wings), *functions, *tests]
    missing = {name for name in names if name not in named}
    assert missing == set()
