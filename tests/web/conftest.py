"""Web page fixtures: Debian's headless Chromium (the live server is in tests/conftest.py).

Browser tests are marked ``browser``. Without /usr/bin/chromium they skip, unless
REQUIRE_BROWSER=1, when they fail. Screenshots go under ``test-output/web/`` (or $TEST_OUTPUT).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
OUTPUT = Path(os.environ.get("TEST_OUTPUT") or Path(__file__).resolve().parents[2] / "test-output") / "web"
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        message = f"{CHROMIUM} is missing: the browser tests cannot run."
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
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
