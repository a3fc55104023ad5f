"""The database restarts under a running service (every connection of the pool dies at once): no
pre-ping on checkout (it cost every request a round trip), so the first request on a dead
connection is a 503 problem+json with Retry-After, never a 500; that failure replaces every pooled
connection older than it at once, and the requests after it, moves included, are served."""
from __future__ import annotations

import os
import time

import pytest
from sqlalchemy import create_engine, text

from referee.models import db

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL")
pytestmark = pytest.mark.skipif(not (TEST_DATABASE_URL or "").startswith("postgresql"),
                                reason="needs the PostgreSQL server (TEST_DATABASE_URL)")


def _kill_every_connection() -> None:
    """Terminate every other connection to the database, and wait until they are gone: a backend
    ends a moment after pg_terminate_backend returns, and could still answer the next request."""
    admin = create_engine(TEST_DATABASE_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        killed = connection.execute(text("SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity "
                                         "WHERE datname = current_database() AND pid <> pg_backend_pid()")).scalars().all()
        deadline = time.monotonic() + 10
        while connection.execute(text("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(:pids)"),
                                 {"pids": killed}).scalar() and time.monotonic() < deadline:
            time.sleep(0.01)
    admin.dispose()


def test_a_restart_costs_at_most_one_503(app, client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    with app.app_context():  # several connections in the pool, as under load
        held = [db.engine.connect() for _ in range(4)]
        for connection in held:
            connection.execute(text("SELECT 1"))
            connection.close()
    _kill_every_connection()
    move = {"type": "play", "player": "Ann", "card": "5H"}
    headers = {"Authorization": f"Bearer {game['token']}", "Idempotency-Key": "after-restart"}
    answers = [client.get(f"/api/v1/games/{game['id']}") for _ in range(2)]
    for _ in range(2):  # the 503's advice: the same write again, with the same key
        answers.append(client.post(f"/api/v1/games/{game['id']}/moves", json=move, headers=headers))
    answers += [client.get(f"/api/v1/games/{game['id']}") for _ in range(6)]
    refused = [r for r in answers if r.status_code == 503]
    assert len(refused) <= 1 and all(r.status_code in (200, 201, 503) for r in answers), \
        [r.status_code for r in answers]
    for response in refused:
        assert response.mimetype == "application/problem+json" and response.headers["Retry-After"]
    assert api.state(game)["version"] == 1  # the move applied once



def test_a_move_first_on_a_dead_connection_is_a_503_and_its_retry_applies_it_once(app, client, api):
    """A dead connection under the move's first statement is a 503 that replaces the pool, not a 500."""
    game = api.create("ninety-nine", ["Ann", "Bob"])
    with app.app_context():  # one connection in the pool, opened now: the move below takes it
        db.engine.dispose()
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    _kill_every_connection()
    move = {"type": "play", "player": "Bob", "card": "6H"}
    headers = {"Authorization": f"Bearer {game['token']}", "Idempotency-Key": "first-after-restart"}
    answers = [client.post(f"/api/v1/games/{game['id']}/moves", json=move, headers=headers) for _ in range(2)]
    assert [r.status_code for r in answers] == [503, 201], [r.get_json() for r in answers]
    assert answers[0].mimetype == "application/problem+json" and answers[0].headers["Retry-After"]
    assert api.state(game)["version"] == 2  # applied once
