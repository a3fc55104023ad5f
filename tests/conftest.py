"""Shared fixtures: an app on SQLite (or on TEST_DATABASE_URL), a client, a live server, and an
``api`` helper."""
from __future__ import annotations

import os
import threading

import pytest
from hypothesis import settings
from sqlalchemy import text
from werkzeug.serving import make_server

from referee import create_app
from referee.models import db

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL")

# .ci/run sets HYPOTHESIS_PROFILE=ci: the same examples on every run, so that a merge never hangs on
# a lucky draw; local runs keep exploring new examples (and remember failures in .hypothesis/).
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


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
def database_url(tmp_path_factory):
    return TEST_DATABASE_URL or "sqlite:///" + str(tmp_path_factory.mktemp("db") / "test.sqlite3")


@pytest.fixture(scope="session")
def app(database_url):
    app = create_app({"SQLALCHEMY_DATABASE_URI": database_url, "AUTO_MIGRATE": False, "TESTING": True,
                      "SECRET_KEY": "test-secret", "RATELIMIT_ENABLED": False})
    reset_database(app)
    return app


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

    from sqlalchemy import create_engine

    admin = create_engine(TEST_DATABASE_URL, isolation_level="AUTOCOMMIT")
    made = []

    def make(prefix: str) -> str:
        name = f"{prefix}_{uuid4().hex[:8]}"
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        made.append(name)
        return TEST_DATABASE_URL.rsplit("/", 1)[0] + "/" + name

    yield make
    with admin.connect() as connection:
        for name in made:
            connection.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    admin.dispose()
