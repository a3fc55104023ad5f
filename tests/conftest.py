"""Shared fixtures: an app on SQLite (or on TEST_DATABASE_URL), a client, a live server, and an
``api`` helper.

The suite runs in parallel (pytest-xdist, ``-n auto`` in pyproject.toml): each worker has its own
database (a SQLite file in its own tmp folder, or on PostgreSQL a database of its own beside the
one TEST_DATABASE_URL names, made and dropped here), and tests marked ``serial`` run while no other
test of the run does (see ``pytest_runtest_protocol``).

Hearts (``tests/contract/hearts.py``), a seventh game written against the engine contract alone,
is registered for the whole run (``pytest_configure``): every test that covers "every registered
game" covers it too, and the session's app serves it. Production serves the five games only
(``production_app`` is an app made as production makes it)."""
from __future__ import annotations

import fcntl
import glob
import json
import math
import os
import sys
import tempfile
import threading
from contextlib import contextmanager

import pytest
from hypothesis import settings
from sqlalchemy import text
from sqlalchemy.engine import make_url
from werkzeug.serving import make_server

from referee import create_app
from referee.models import db

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL")
# The server TEST_DATABASE_URL names, for making and dropping databases (fresh_postgresql, workers).
SERVER_URL = TEST_DATABASE_URL
WORKER = os.environ.get("PYTEST_XDIST_WORKER")  # "gw0", "gw1"... in an xdist worker, else None
WORKER_DATABASE = None
if TEST_DATABASE_URL and WORKER and TEST_DATABASE_URL.startswith("postgresql"):
    # Each worker has a database of its own, "<name>_<worker>" on the same server (test_gw0...). The
    # environment says so too, before any test module reads it (some connect to it themselves).
    _url = make_url(TEST_DATABASE_URL)
    WORKER_DATABASE = f"{_url.database}_{WORKER}"
    TEST_DATABASE_URL = _url.set(database=WORKER_DATABASE).render_as_string(hide_password=False)
    os.environ["TEST_DATABASE_URL"] = TEST_DATABASE_URL

# Property tests. Locally (no HYPOTHESIS_PROFILE: "dev") they keep exploring: new examples on every
# run (failures remembered in .hypothesis/), a quarter of each test's count (its max_examples, or
# Hypothesis's 100), at least 10 (or its own count, if smaller). .ci/run sets HYPOTHESIS_PROFILE=ci:
# each test's full count, and the same examples on every run, so that a merge never hangs on a
# lucky draw. (HYPOTHESIS_PROFILE=default: the full counts, exploring.) Neither has a deadline
# per example: on a machine busy with the other workers' browsers, a slow example is not a failure.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, deadline=None)
settings.register_profile("dev", deadline=None)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
settings.load_profile(PROFILE)
EXAMPLES_SHARE = 0.25 if PROFILE == "dev" else 1  # of the examples each test asks for


def examples(count: int) -> int:
    """The examples a property test that asks for ``count`` draws under the loaded profile."""
    if EXAMPLES_SHARE >= 1:
        return count
    return max(min(count, 10), math.ceil(count * EXAMPLES_SHARE))


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    """pytest rewrites the asserts of each test module it imports, and keeps the result in __pycache__
    unless bytecode is not to be written (PYTHONDONTWRITEBYTECODE, set on this project's machines):
    then every run, and every xdist worker, rewrites them all again (seconds each). So bytecode is
    written while a test module is imported, whatever that setting says: the rewritten module, and
    the modules it is the first to import (into __pycache__ folders, which git ignores)."""
    if not isinstance(collector, pytest.Module) or not sys.dont_write_bytecode:
        return (yield)
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = True


@pytest.fixture
def property_examples():
    """``property_examples(count)``: ``examples`` for a test that makes its settings as it runs."""
    return examples


def pytest_collection_modifyitems(config, items):
    """A property test's own ``@settings(max_examples=N)`` wins over any profile: outside CI it draws
    ``examples(N)`` (Hypothesis reads the settings it runs with from the attribute set here)."""
    if EXAMPLES_SHARE >= 1:
        return
    done = set()
    for item in items:
        test = getattr(item, "obj", None)
        chosen = getattr(test, "_hypothesis_internal_use_settings", None)
        if not getattr(test, "is_hypothesis_test", False) or chosen is None or id(test) in done:
            continue
        done.add(id(test))
        test._hypothesis_internal_use_settings = settings(chosen, max_examples=examples(chosen.max_examples))


def _run_file(run: str, suffix: str) -> str:
    """A file that the processes of one xdist run share (its lock, a worker's reason to stop)."""
    return os.path.join(tempfile.gettempdir(), f"referee-tests-{run}{suffix}")


_runs: set[str] = set()  # in the xdist controller: the runs whose files it removes at its end
_deselected: list[str] = []  # in an xdist worker: the tests that -m, -k... left out


def pytest_deselected(items):
    _deselected.extend(getattr(item, "nodeid", str(item)) for item in items)


@pytest.hookimpl(tryfirst=True)  # before xdist sends the worker's collection to the controller
def pytest_collection_finish(session):
    workerinput = getattr(session.config, "workerinput", None)
    if workerinput is not None and _deselected:
        with open(_run_file(workerinput["testrunuid"], f"-{workerinput['workerid']}.deselected"), "w") as out:
            json.dump(_deselected, out)


class _Deselected:
    def __init__(self, nodeid: str):
        self.nodeid = nodeid


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """In the xdist controller, as each worker's collection arrives (the same in every worker): the
    first says which tests it left out, so that the summary counts them "deselected" as a run without
    xdist does; and a worker whose collection says the run cannot go on (tests/web/conftest.py writes
    why: no browser) stops the run here, once, before any test is sent to a worker."""
    run, worker = node.workerinput["testrunuid"], node.workerinput["workerid"]
    first = run not in _runs
    _runs.add(run)
    stop = _run_file(run, f"-{worker}.stop")
    if os.path.exists(stop):
        with open(stop) as why:
            why = json.load(why)
        pytest.exit(why["message"], returncode=why["returncode"])
    deselected = _run_file(run, f"-{worker}.deselected")
    if first and os.path.exists(deselected):
        with open(deselected) as left_out:
            node.config.hook.pytest_deselected(items=[_Deselected(nodeid) for nodeid in json.load(left_out)])


# ---------------------------------------------------------------- the games of the tests

CONTRACT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "contract")
TEST_GAMES = ("hearts",)  # modules of tests/contract registered for the whole run


def pytest_configure(config):
    """Register the games of the tests before any test module is collected (their parameters list
    the registered engines)."""
    from referee.rules import register

    if CONTRACT not in sys.path:
        sys.path.insert(0, CONTRACT)
    for module in TEST_GAMES:
        register(__import__(module).GAME)


@contextmanager
def production_games_only():
    """The registry as production has it (the games under referee/rules) while the block runs."""
    from referee.rules import ENGINES

    everything = dict(ENGINES)
    for name, engine in everything.items():
        if not engine.module.startswith("referee."):
            del ENGINES[name]
    try:
        yield
    finally:
        ENGINES.clear()
        ENGINES.update(everything)


def pytest_unconfigure(config):
    from referee.rules import ENGINES

    for module in TEST_GAMES:
        if module in sys.modules:
            ENGINES.pop(sys.modules[module].GAME.name, None)
    for run in _runs:  # the workers are gone by now
        for path in glob.glob(_run_file(run, "*")):
            os.remove(path)


@contextmanager
def _run_lock(kind: int):
    """The run's lock, shared (LOCK_SH) or alone (LOCK_EX), in an xdist worker; nothing otherwise."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run:
        yield
        return
    with open(_run_file(run, ".lock"), "a") as lock:
        fcntl.flock(lock, kind)
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Under xdist, every test holds the run's lock shared from its setup to its teardown, and a test
    marked ``serial`` (a timing assertion, hundreds of connections) holds it alone while it runs: no
    other test of the run loads the machine meanwhile. Its own setup and teardown (starting and
    stopping its servers) need not wait for that."""
    if item.get_closest_marker("serial"):
        return (yield)
    with _run_lock(fcntl.LOCK_SH):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    if not item.get_closest_marker("serial"):
        return (yield)
    with _run_lock(fcntl.LOCK_EX):
        return (yield)


def _admin():
    from sqlalchemy import create_engine

    return create_engine(SERVER_URL, isolation_level="AUTOCOMMIT")


@pytest.fixture(scope="session", autouse=True)
def _worker_database():
    """On PostgreSQL under xdist: this worker's own database, made empty at the start of its session
    (a run stopped before its end leaves one behind) and dropped at its end."""
    if WORKER_DATABASE is None:
        yield
        return
    admin = _admin()
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{WORKER_DATABASE}" WITH (FORCE)'))
        connection.execute(text(f'CREATE DATABASE "{WORKER_DATABASE}"'))
    yield
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{WORKER_DATABASE}" WITH (FORCE)'))
    admin.dispose()


def reset_database(app) -> None:
    """Start from an empty schema at the newest migration."""
    from flask_migrate import upgrade

    from referee import MIGRATIONS

    with app.app_context():
        if db.engine.dialect.name == "postgresql":
            db.session.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
            db.session.commit()
        upgrade(directory=MIGRATIONS)


@pytest.fixture(scope="session")
def database_url(tmp_path_factory, _worker_database):
    return TEST_DATABASE_URL or "sqlite:///" + str(tmp_path_factory.mktemp("db") / "test.sqlite3")


@pytest.fixture(scope="session")
def app(database_url):
    app = create_app({"SQLALCHEMY_DATABASE_URI": database_url, "AUTO_MIGRATE": False, "TESTING": True,
                      "SECRET_KEY": "test-secret", "RATELIMIT_ENABLED": False})
    reset_database(app)
    return app


@pytest.fixture(autouse=True)
def _limiter_as_it_was():
    """One Flask-Limiter serves every app of a process, and an app made with the default config
    turns it on for all: a test that makes one must not leave the next tests' creates limited."""
    from referee.api.limits import limiter

    enabled = limiter.enabled
    yield
    limiter.enabled = enabled


@pytest.fixture(autouse=True)
def _clean_tables(request):
    """Each test starts with no games (only for tests that use the app)."""
    if "app" not in request.fixturenames:
        yield
        return
    app = request.getfixturevalue("app")
    yield
    with app.app_context():
        db.session.remove()
        for table in ("credentials", "idempotency_records", "moves", "games", "group_renames", "groups"):
            db.session.execute(text(f"DELETE FROM {table}"))
        db.session.commit()


@pytest.fixture(scope="session")
def production_app(app, database_url):
    """An app made as production makes it, with the service's own games only (the games of the
    tests unregistered meanwhile), on the session's database: what openapi.yaml describes."""
    with production_games_only():
        return create_app({"SQLALCHEMY_DATABASE_URI": database_url, "AUTO_MIGRATE": False, "TESTING": True,
                           "SECRET_KEY": "test-secret", "RATELIMIT_ENABLED": False})


@pytest.fixture(scope="session")
def live_server(app):
    """The app served on 127.0.0.1 by a real HTTP server in a thread (browsers, generated clients)."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=5)


@pytest.fixture
def client(app):
    return app.test_client()


class Api:
    """Small helpers over the test client, with status checks."""

    def __init__(self, client):
        self.client = client

    @staticmethod
    def _check(response, expect):
        if expect is not None:
            assert response.status_code == expect, (response.status_code, response.get_json())
        return response.get_json()

    def create(self, game, players, options=None, expect=201):
        body = {"game": game, "players": players}
        if options is not None:
            body["options"] = options
        return self._check(self.client.post("/api/v1/games", json=body), expect)

    def move(self, game, move, expect=201, headers=None):
        headers = {"Authorization": f"Bearer {game['token']}", **(headers or {})}
        return self._check(self.client.post(f"/api/v1/games/{game['id']}/moves", json=move,
                                            headers=headers), expect)

    def refused(self, game, move, rule):
        """The move is a 422 citing ``rule``, and the game's version does not move."""
        before = self.state(game)["version"]
        body = self.move(game, move, expect=422)
        assert body["status"] == 422 and body["rule"] == rule and body["detail"]
        assert self.state(game)["version"] == before
        return body

    def undo(self, game, expect=200, headers=None):
        headers = {"Authorization": f"Bearer {game['token']}", **(headers or {})}
        return self._check(self.client.post(f"/api/v1/games/{game['id']}/undo", headers=headers), expect)

    def state(self, game, expect=200):
        return self._check(self.client.get(f"/api/v1/games/{game['id']}"), expect)

    def log(self, game, expect=200):
        return self._check(self.client.get(f"/api/v1/games/{game['id']}/moves"), expect)

    def judge(self, game_name, verdict, body, expect=200):
        return self._check(self.client.post(f"/api/v1/judge/{game_name}/{verdict}", json=body), expect)


@pytest.fixture
def api(client):
    return Api(client)


def _join_table(client, game: dict, label: str | None = None) -> dict:
    """Make ``client`` a phone at the table, as a person would: a table link made with the game's token
    (``POST /games/{id}/links``), then its code posted by the join page (what static/join.js does with
    the link's fragment). Returns the link as the API gave it."""
    import re

    body = {"label": label} if label else None
    link = client.application.test_client().post(f"/api/v1/games/{game['id']}/links", json=body,
                                                 headers={"Authorization": f"Bearer {game['token']}"})
    assert link.status_code == 201, link.get_json()
    html = client.get(f"/g/{game['id']}/join").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    joined = client.post(f"/g/{game['id']}/join", data={"csrf_token": csrf, "code": link.get_json()["code"]})
    assert joined.status_code == 302 and joined.headers["Location"] == f"/g/{game['id']}", joined.status_code
    return link.get_json()


@pytest.fixture
def join_table():
    """``join_table(client, game)``: ``client`` joins the game's table; returns the table link."""
    return _join_table


@pytest.fixture
def table_client(app):
    """``table_client(game)``: a new test client that joined the game's table (see ``_join_table``)."""
    def open_table(game: dict):
        table = app.test_client()
        _join_table(table, game)
        return table

    return open_table


@pytest.fixture
def fresh_postgresql():
    """``fresh_postgresql(prefix)``: the URL of a new, empty database on the suite's PostgreSQL server
    (a migration or a start from nothing), each dropped at teardown."""
    from uuid import uuid4

    admin = _admin()
    made = []

    def make(prefix: str) -> str:
        name = f"{prefix}_{uuid4().hex[:8]}"
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        made.append(name)
        return make_url(SERVER_URL).set(database=name).render_as_string(hide_password=False)

    yield make
    with admin.connect() as connection:
        for name in made:
            connection.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    admin.dispose()
