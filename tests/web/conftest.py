"""Web page fixtures: Debian's headless Chromium (the live server is in tests/conftest.py).

Browser tests are marked ``browser``. They never skip: when a run selects any, a missing
/usr/bin/chromium (or $TEST_CHROMIUM), or one that Playwright cannot launch, stops the run at once
with one message that names the browser and how to install it (``apt-get install -y chromium``);
``-m "not browser"`` deselects them, and then nothing needs a browser. Screenshots go under
``test-output/web/`` (or $TEST_OUTPUT).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("TEST_CHROMIUM") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
OUTPUT = Path(os.environ.get("TEST_OUTPUT") or Path(__file__).resolve().parents[2] / "test-output") / "web"
PHONE = {"width": 390, "height": 844}


def no_browser(problem: str, count: int | None = None) -> str:
    """The one message of a run whose browser tests cannot run."""
    tests = f"{count} selected browser tests" if count else "The browser tests"
    return (f"{tests} need Chromium at {CHROMIUM}, which {problem}. Install Debian's Chromium "
            "(apt-get install -y chromium), set TEST_CHROMIUM to another Chromium, "
            'or leave the browser tests out with -m "not browser".')


def _wants_browser(item) -> bool:
    return item.get_closest_marker("browser") is not None or "browser" in getattr(item, "fixturenames", ())


def pytest_collection_finish(session):
    """Before any test runs: a run that selected browser tests and has no browser stops here, rather
    than skipping them or failing each one after the rest of the suite."""
    if session.config.option.collectonly or os.access(CHROMIUM, os.X_OK):
        return
    count = sum(1 for item in session.items if _wants_browser(item))
    if count:
        pytest.exit(no_browser("is missing" if not os.path.exists(CHROMIUM) else "is not executable", count),
                    returncode=pytest.ExitCode.USAGE_ERROR)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import Error, sync_playwright

    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        except Error as exc:  # stop the run: every other browser test would fail the same way
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            pytest.exit(no_browser(f"Playwright could not launch ({first})"), returncode=pytest.ExitCode.TESTS_FAILED)
        yield browser
        browser.close()


class Phone:
    """One phone: a browser context with its own cookies, and a page that records console errors."""

    def __init__(self, browser, base: str, viewport=PHONE, scripts=True, locale=None):
        self.base = base
        self.scripts = scripts
        # locale: the browser's language (its Accept-Language), e.g. "de-DE"; None: Chromium's default
        self.context = browser.new_context(viewport=viewport, base_url=base, java_script_enabled=scripts,
                                           **({"locale": locale} if locale else {}))
        self.context.set_default_timeout(15000)  # a loaded CI machine is slow, not wrong
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda msg: msg.type == "error" and self.errors.append(msg.text))
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def goto(self, path: str):
        response = self.page.goto(path if path.startswith("http") else self.base + path)
        return response

    def screenshot(self, name: str) -> Path:
        OUTPUT.mkdir(parents=True, exist_ok=True)
        path = OUTPUT / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def close(self):
        self.context.close()


@pytest.fixture
def phones(browser, live_server):
    """``phones()`` opens a new phone; every phone must end the test without console errors."""
    opened: list[Phone] = []

    def open_phone(viewport=PHONE, scripts=True, locale=None) -> Phone:
        phone = Phone(browser, live_server, viewport, scripts, locale)
        opened.append(phone)
        return phone

    yield open_phone
    errors = [e for phone in opened for e in phone.errors]
    for phone in opened:
        phone.close()
    assert not errors, f"console errors: {errors}"


@pytest.fixture
def phone(phones):
    return phones()


def game_id_from(url: str) -> str:
    match = re.search(r"/g/([^/#?]+)", url)
    assert match, url
    return match.group(1)
