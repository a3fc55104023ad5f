"""Abuse: game creation is rate-limited per client address; tokens are stored hashed and checked
in constant time. Durability: SQLite in WAL mode with synchronous=FULL (PostgreSQL: fsync on)."""
from __future__ import annotations

import hashlib
import re

import pytest
from flask_limiter import Limiter
from sqlalchemy import text

from referee import create_app, store
from referee.api.limits import limiter
from referee.app import SQLITE_BUSY_SECONDS
from referee.models import Game, db

BODY = {"game": "ninety-nine", "players": ["Ann", "Bob", "Cid"]}


@pytest.fixture
def limited_app(app, database_url):
    """An app with a low creation limit. The Limiter is one module-level object shared by every
    app, so its switch and storage are put back afterwards for the suite's app."""
    enabled = limiter.enabled
    limited = create_app({"SQLALCHEMY_DATABASE_URI": database_url, "AUTO_MIGRATE": False, "TESTING": True,
                          "SECRET_KEY": "test", "RATELIMIT_ENABLED": True, "RATELIMIT_CREATE": "3 per minute",
                          "RATELIMIT_STORAGE_URI": "memory://"})
    limiter.reset()
    yield limited
    limiter.reset()
    limiter.enabled = enabled


def test_creating_games_is_rate_limited_per_client_address(limited_app):
    client = limited_app.test_client()
    one = {"REMOTE_ADDR": "192.0.2.1"}
    other = {"REMOTE_ADDR": "192.0.2.2"}
    for _ in range(3):
        assert client.post("/api/v1/games", json=BODY, environ_base=one).status_code == 201
    refused = client.post("/api/v1/games", json=BODY, environ_base=one)
    assert refused.status_code == 429, refused.get_data(as_text=True)
    assert refused.mimetype == "application/problem+json"
    problem = refused.get_json()
    assert problem["status"] == 429 and problem["title"] and problem["detail"]
    assert int(refused.headers["Retry-After"]) > 0
    # Another address is not affected; reads and moves are not limited.
    created = client.post("/api/v1/games", json=BODY, environ_base=other)
    assert created.status_code == 201
    game = created.get_json()
    for _ in range(5):
        assert client.get(f"/api/v1/games/{game['id']}", environ_base=one).status_code == 200
    move = client.post(f"/api/v1/games/{game['id']}/moves", environ_base=one,
                       json={"type": "play", "player": "Ann", "card": "5S"},
                       headers={"Authorization": f"Bearer {game['token']}"})
    assert move.status_code == 201


def test_an_import_spends_the_creation_budget(limited_app):
    """An import (unauthenticated, seconds of work for a long record) makes a game: it counts against
    the same budget per address as creating one, by the API or the pages."""
    client = limited_app.test_client()
    one = {"REMOTE_ADDR": "192.0.2.7"}
    record = {"format": "referee-game", "format_version": 1, "game": "nines", "players": ["Ann", "Bob"],
              "options": {}, "moves": []}
    assert client.post("/api/v1/games", json=BODY, environ_base=one).status_code == 201
    for _ in range(2):
        assert client.post("/api/v1/games/import", json=record, environ_base=one).status_code == 201
    for refused in (client.post("/api/v1/games/import", json=record, environ_base=one),
                    client.post("/api/v1/games", json=BODY, environ_base=one)):
        assert refused.status_code == 429 and refused.mimetype == "application/problem+json"


def test_only_the_views_that_create_games_are_checked(limited_app, monkeypatch):
    """The limiter's check in front of every view is skipped when no limit covers the whole app: a
    move or a read never reaches the limiter's storage; creating a game is checked by its view."""
    checks = []
    real = Limiter._check_request_limit

    def counted(self, callable_name=None, in_middleware=True):
        checks.append("in front" if in_middleware else "in the view")
        return real(self, callable_name, in_middleware)

    monkeypatch.setattr(Limiter, "_check_request_limit", counted)
    client = limited_app.test_client()
    game = client.post("/api/v1/games", json=BODY).get_json()
    assert checks == ["in the view"]
    assert client.get(f"/api/v1/games/{game['id']}").status_code == 200
    assert client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "play", "player": "Ann", "card": "5S"},
                       headers={"Authorization": f"Bearer {game['token']}"}).status_code == 201
    assert client.get("/healthz").status_code == 200
    assert checks == ["in the view"]


def test_a_limit_on_the_whole_app_is_still_checked_in_front_of_every_view(app, database_url):
    """An operator's RATELIMIT_DEFAULT (Flask-Limiter's own setting) limits every route as before."""
    enabled = limiter.enabled
    limited = create_app({"SQLALCHEMY_DATABASE_URI": database_url, "AUTO_MIGRATE": False, "TESTING": True,
                          "SECRET_KEY": "test", "RATELIMIT_ENABLED": True, "RATELIMIT_DEFAULT": "2 per minute",
                          "RATELIMIT_STORAGE_URI": "memory://"})
    limiter.reset()
    try:
        client = limited.test_client()
        assert [client.get("/healthz").status_code for _ in range(3)] == [200, 200, 429]
    finally:
        limiter.limit_manager.set_default_limits([])  # one Limiter serves every app of the suite
        limiter.reset()
        limiter.enabled = enabled


def test_the_start_page_and_the_api_share_one_budget(limited_app):
    client = limited_app.test_client()
    addr = {"REMOTE_ADDR": "192.0.2.7"}
    page = client.get("/new/nines", environ_base=addr)                            # reading the form is free
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.get_data(as_text=True)).group(1)
    for _ in range(3):
        assert client.post("/api/v1/games", json=BODY, environ_base=addr).status_code == 201
    refused = client.post("/new/nines", data={"csrf_token": token, "players": "Ann\nBob"}, environ_base=addr)
    assert refused.status_code == 429 and refused.mimetype == "text/html"
    assert "Too many games" in refused.get_data(as_text=True) and int(refused.headers["Retry-After"]) > 0


def test_a_refused_creation_creates_nothing(limited_app):
    client = limited_app.test_client()
    addr = {"REMOTE_ADDR": "192.0.2.9"}
    for _ in range(3):
        client.post("/api/v1/games", json=BODY, environ_base=addr)
    with limited_app.app_context():
        before = db.session.scalar(text("SELECT COUNT(*) FROM games"))
    assert client.post("/api/v1/games", json=BODY, environ_base=addr).status_code == 429
    with limited_app.app_context():
        assert db.session.scalar(text("SELECT COUNT(*) FROM games")) == before
        db.session.remove()


def test_the_token_is_stored_only_as_a_hash(app, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    token = game["token"]
    with app.app_context():
        row = db.session.execute(text("SELECT * FROM games WHERE id = :id"), {"id": game["id"]}).mappings().one()
        db.session.remove()
    assert row["token_hash"] == hashlib.sha256(token.encode()).hexdigest()
    # No column holds the token itself, nor any part of it long enough to matter.
    for column, value in row.items():
        assert token not in str(value), column
        assert token[:12] not in str(value), column


def _game(token: str) -> Game:
    return Game(id="g", game="ninety-nine", players=[], options={}, state={}, token_hash=store.hash_token(token))


def test_check_token_accepts_only_the_right_token():
    game = _game("s3cret-token")
    store.check_token(game, "s3cret-token")
    for wrong in ("s3cret-tokeN", "s3cret-toke", "s3cret-token ", store.hash_token("s3cret-token"), "x" * 10_000):
        with pytest.raises(store.StoreError) as refused:
            store.check_token(game, wrong)
        assert refused.value.status == 403
    for missing in (None, ""):
        with pytest.raises(store.StoreError) as refused:
            store.check_token(game, missing)
        assert refused.value.status == 401 and "Bearer" in refused.value.headers["WWW-Authenticate"]


def test_check_token_compares_digests_in_constant_time(monkeypatch):
    """The comparison goes through hmac.compare_digest, on fixed-length digests (so neither the
    token's length nor its first differing byte changes the time taken)."""
    import hmac

    seen = []
    real = hmac.compare_digest

    def spy(a, b):
        seen.append((a, b))
        return real(a, b)

    monkeypatch.setattr(store.hmac, "compare_digest", spy)
    game = _game("right")
    store.check_token(game, "right")
    with pytest.raises(store.StoreError):
        store.check_token(game, "wrong-and-much-longer")
    assert len(seen) == 2
    assert all(len(a) == len(b) == 64 for a, b in seen)
    assert seen[0] == (store.hash_token("right"), game.token_hash)


def test_sqlite_runs_in_wal_mode_with_synchronous_full(app):
    with app.app_context():
        if db.engine.dialect.name != "sqlite":
            pytest.skip("SQLite only")
        with db.engine.connect() as conn:
            assert conn.execute(text("PRAGMA journal_mode")).scalar().lower() == "wal"
            assert conn.execute(text("PRAGMA synchronous")).scalar() == 2  # 2 = FULL
            # SQLite's own busy wait holds up a whole gevent worker: it is a few milliseconds, and a
            # writer waits for another process's lock in turns (store._begin_write, test_hung_database)
            assert conn.execute(text("PRAGMA busy_timeout")).scalar() == SQLITE_BUSY_SECONDS * 1000


def test_postgresql_commits_are_durable(app):
    with app.app_context():
        if db.engine.dialect.name != "postgresql":
            pytest.skip("PostgreSQL only")
        with db.engine.connect() as conn:
            assert conn.execute(text("SHOW fsync")).scalar() == "on"
            assert conn.execute(text("SHOW synchronous_commit")).scalar() in ("on", "remote_apply", "remote_write")


def test_behind_a_trusted_proxy_the_limit_counts_the_real_client(app, database_url):
    enabled = limiter.enabled
    proxied = create_app({"SQLALCHEMY_DATABASE_URI": database_url, "AUTO_MIGRATE": False, "TESTING": True,
                          "SECRET_KEY": "test", "RATELIMIT_ENABLED": True, "RATELIMIT_CREATE": "2 per minute",
                          "RATELIMIT_STORAGE_URI": "memory://", "TRUSTED_PROXIES": 1})
    limiter.reset()
    try:
        client = proxied.test_client()
        proxy = {"REMOTE_ADDR": "10.0.0.1"}
        for client_address in ("198.51.100.1", "198.51.100.2"):   # two players behind the same proxy
            for _ in range(2):
                assert client.post("/api/v1/games", json=BODY, environ_base=proxy,
                                   headers={"X-Forwarded-For": client_address}).status_code == 201
        assert client.post("/api/v1/games", json=BODY, environ_base=proxy,
                           headers={"X-Forwarded-For": "198.51.100.1"}).status_code == 429
    finally:
        limiter.reset()
        limiter.enabled = enabled
