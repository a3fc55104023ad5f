"""Web page fixtures: Debian's headless Chromium (the live server is in tests/conftest.py).

Browser tests are marked ``browser``. They never skip: when a run selects any, a missing
/usr/bin/chromium (or $TEST_CHROMIUM), or one that Playwright cannot launch, stops the run at once
with one message that names the browser and how to install it (``apt-get install -y chromium``);
``-m "not browser"`` deselects them, and then nothing needs a browser. Screenshots go under
``test-output/web/`` (or $TEST_OUTPUT).
"""
from __future__ import annotations

import json
import os
import re
import tempfile
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


# An xdist worker (pytest -n) launches its browser as soon as its collection says it will need one:
# a browser that is missing or cannot start stops the run before any test, as it does without xdist.
_launched: tuple | None = None  # (playwright, browser) of this worker, until the browser fixture takes it


def _launch():
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        return playwright, playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    except BaseException:
        playwright.stop()
        raise


def _launch_problem(exc) -> str:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"Playwright could not launch ({first})"


def _stop_run(config, message: str, returncode: int):
    """Stop the run with one message: at once without xdist; in an xdist worker, through the file that
    the controller reads when this worker's collection reaches it (tests/conftest.py, which exits)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        pytest.exit(message, returncode=returncode)
    path = os.path.join(tempfile.gettempdir(),
                        f"referee-tests-{workerinput['testrunuid']}-{workerinput['workerid']}.stop")
    with open(path, "w") as out:
        json.dump({"message": message, "returncode": int(returncode)}, out)


@pytest.hookimpl(tryfirst=True)  # in a worker: before xdist sends the collection to the controller
def pytest_collection_finish(session):
    """Before any test runs: a run that selected browser tests and has no browser stops here, rather
    than skipping them or failing each one after the rest of the suite."""
    global _launched
    if session.config.option.collectonly:
        return
    count = sum(1 for item in session.items if _wants_browser(item))
    if not count:
        return
    if not os.access(CHROMIUM, os.X_OK):
        _stop_run(session.config, no_browser("is missing" if not os.path.exists(CHROMIUM) else "is not executable",
                                             count), pytest.ExitCode.USAGE_ERROR)
    elif hasattr(session.config, "workerinput"):
        from playwright.sync_api import Error

        try:
            _launched = _launch()
        except Error as exc:
            _stop_run(session.config, no_browser(_launch_problem(exc)), pytest.ExitCode.TESTS_FAILED)


def pytest_unconfigure(config):
    global _launched
    if _launched is not None:  # launched, and no test of this worker wanted it
        playwright, browser = _launched
        _launched = None
        browser.close()
        playwright.stop()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import Error

    global _launched
    if _launched is None:
        try:
            _launched = _launch()
        except Error as exc:  # stop the run: every other browser test would fail the same way
            pytest.exit(no_browser(_launch_problem(exc)), returncode=pytest.ExitCode.TESTS_FAILED)
    playwright, browser = _launched
    _launched = None
    yield browser
    browser.close()
    playwright.stop()


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
