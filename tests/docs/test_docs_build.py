"""`make docs` (in `make test`) fails on a broken link: its recipe, run as the Makefile has it,
on a copy of the site."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from doc_blocks import ROOT


def _docs_recipe() -> str:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(r"^docs:.*\n\t(?P<recipe>.+)$", makefile, re.M)
    assert match, "the Makefile has no docs target"
    return match.group("recipe").replace("$(VENV)/bin/", f"{Path(sys.executable).parent}/")


def _build(site: Path) -> subprocess.CompletedProcess[str]:
    # The Makefile's own recipe, on a copy of the site.
    return subprocess.run(  # noqa: S602
        _docs_recipe(), shell=True, cwd=site, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture
def site(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "mkdocs.yml", tmp_path)
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    return tmp_path


def test_the_site_builds_and_a_broken_link_fails_the_build(site: Path) -> None:
    built = _build(site)
    assert built.returncode == 0, built.stderr
    assert (site / "site" / "index.html").exists()
    with (site / "docs" / "index.md").open("a", encoding="utf-8") as page:
        page.write("\n[gone](security.md#no-such-heading)\n")
    broken = _build(site)
    assert broken.returncode != 0
    assert "no-such-heading" in broken.stderr
