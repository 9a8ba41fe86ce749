"""The report page's browser: Debian's chromium driven by Playwright, and a page opened from ``file://``
that records every request, console message and page error.

The system chromium is used (never ``playwright install``, which downloads a browser). Without it, or
without Playwright, a test is skipped saying how to get them, except under CI, where it fails: CI
installs both (``.ci/run``, the ``dev`` extra).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

#: Chromium flags: no sandbox (tests run as root), and no background traffic of the browser's own.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
#: Schemes a page of a report folder may load from: the folder itself, inline data, and blobs it makes.
LOCAL_SCHEMES = ("file:", "data:", "blob:")


def _unavailable(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def chromium_path() -> str | None:
    """The system chromium, if installed."""
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@pytest.fixture(scope="module")
def browser():
    """A headless system chromium under Playwright, one per test module: Playwright's sync API keeps an
    event loop running in the main thread while it is open, which would break every later test that
    runs its own loop (the asyncio libraries behind the contract)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install -e '.[dev]')")
    executable = chromium_path()
    if executable is None:
        _unavailable("no chromium found (apt-get install -y --no-install-recommends chromium)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=list(CHROMIUM_ARGS))
        yield launched
        launched.close()


@dataclass
class OpenedPage:
    """A page of a report folder with what it asked for and logged."""

    page: object
    """The Playwright page."""
    url: str
    """``file://`` URL of its ``index.html``."""
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Console errors and uncaught page errors."""

    def route(self, fragment: str) -> None:
        """Go to the view ``#fragment`` of the open page."""
        self.page.evaluate("fragment => { location.hash = fragment; }", fragment)

    def outside(self) -> list[str]:
        """Requests that left the folder (any scheme but file:, data:, blob:)."""
        return [url for url in self.requests if not url.startswith(LOCAL_SCHEMES)]


@pytest.fixture
def open_report(browser):
    """``open_report(index_html)``: a new page of that report; after the test, no request may have left
    the folder and no console error may have been logged."""
    opened: list[OpenedPage] = []

    def open_(index: Path) -> OpenedPage:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        found = OpenedPage(page, Path(index).resolve().as_uri())
        page.on("request", lambda request: found.requests.append(request.url))
        page.on("console", lambda message: message.type == "error" and found.errors.append(message.text))
        page.on("pageerror", lambda error: found.errors.append(str(error)))
        opened.append(found)
        page.goto(found.url)
        page.wait_for_selector("body[data-ready]")
        return found

    yield open_
    for found in opened:
        found.page.close()
        assert found.outside() == [], f"requests outside the report folder: {found.outside()}"
        assert found.errors == [], f"console errors: {found.errors}"
