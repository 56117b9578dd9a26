"""GET /docs in a real headless browser: Debian's chromium driven by playwright-core (Node).

`docs_page.mjs` opens the page, reads the card, sends messages the way a person would (type,
click Send) and waits for the replies to appear; it prints what it saw as JSON and saves a
screenshot. `make test` installs chromium (`make browser`) and playwright-core (`npm ci`); a
machine without them skips these tests, except under CI, where that is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from support import missing_prerequisite

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("docs_page.mjs")
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
NODE = shutil.which("node")


@pytest.fixture(scope="module")
def backend() -> str:
    """The page is a client of the API: the default backend (moto) is enough."""
    return "local"


def _missing() -> str | None:
    if NODE is None:
        return "node is not installed"
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (run `make browser`)"
    if not (ROOT / "node_modules" / "playwright-core").is_dir():
        return "playwright-core is missing (run `npm ci`)"
    return None


def drive(base_url: str, scenario: str, shots: Path) -> dict[str, Any]:
    missing = _missing()
    if missing is not None:
        missing_prerequisite(missing)
    assert NODE is not None
    # Our own script and arguments: no untrusted input reaches the command line.
    done = subprocess.run(  # noqa: S603
        [NODE, str(SCRIPT), base_url, str(shots), scenario],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
    )
    assert done.stdout, f"docs_page.mjs printed nothing; stderr:\n{done.stderr}"
    report: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    assert done.returncode == 0, report.get("error") or done.stderr
    return report


def test_docs_page_is_self_contained(echo_server: str) -> None:
    response = httpx.get(f"{echo_server}docs")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in response.headers["content-security-policy"]
    page = response.text
    for external in ("http://", "https://", "//cdn", '<link rel="stylesheet"', "<script src"):
        assert external not in page


def test_a_person_sends_a_message_and_sees_the_reply(echo_server: str, tmp_path: Path) -> None:
    report = drive(echo_server, "echo", tmp_path)
    assert report["cardName"] == "A2A Agent"
    assert "streaming" in report["capabilities"]
    assert "None declared" in report["auth"]
    assert "File URIshttp, https, s3" in report["facts"]  # the card's accepted file URI schemes
    assert report["streamedReply"] == "Echo: hello from the browser"
    assert report["polledReply"] == "Echo: and now polled"  # streaming off: message/send + polling
    assert report["state"] == "completed"
    assert report["pageErrors"] == []
    assert all(url.startswith(echo_server) for url in report["requests"])  # nothing from elsewhere
    assert Path(report["screenshot"]).stat().st_size > 10_000


def test_a_person_answers_the_agents_question(multiturn_server: str, tmp_path: Path) -> None:
    report = drive(multiturn_server, "multiturn", tmp_path)
    assert (
        report["draft"]
        == "Here is a first draft about otters: an opening, three key points, and a short summary. "
    )
    assert report["question"] == "Who is the audience for this piece?"
    assert "needs your reply" in report["infoWhileWaiting"]
    assert report["finalReply"] == "Done: the draft is tailored for children."
    assert report["artifactTitles"] == ["Artifact: draft", "Artifact: final"]
    assert report["messages"][:2] == ["otters", "Who is the audience for this piece?"]
    assert report["pageErrors"] == []
