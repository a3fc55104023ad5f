"""The database restarts under a running service (every connection of the pool dies at once): no
pre-ping on checkout (it cost every request a round trip), so the first request on a dead
connection is a 503 problem+json with Retry-After, never a 500; the pool is replaced at once, and
the next requests, moves included, are served."""
from __future__ import annotations

import os

import pytest
from sqlalchemy import create_engine, text

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL")

pytestmark = pytest.mark.skipif(not (TEST_DATABASE_URL or "").startswith("postgresql"),
                                reason="needs the PostgreSQL server (TEST_DATABASE_URL)")


def _kill_every_connection() -> None:
    admin = create_engine(TEST_DATABASE_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                "WHERE datname = current_database() AND pid <> pg_backend_pid()"))
    admin.dispose()


def test_a_restart_costs_at_most_one_503_per_pool(client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    for _ in range(3):  # several pooled connections
        assert client.get(f"/api/v1/games/{game['id']}").status_code == 200
    _kill_every_connection()
    answers = [client.get(f"/api/v1/games/{game['id']}") for _ in range(3)]
    refused = [r for r in answers if r.status_code != 200]
    assert len(refused) <= 1, [r.status_code for r in answers]
    for response in refused:
        assert response.status_code == 503 and response.mimetype == "application/problem+json"
        assert response.headers["Retry-After"]
    assert answers[-1].status_code == 200
    _kill_every_connection()
    moved = client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "play", "player": "Ann", "card": "5H"},
                        headers={"Authorization": f"Bearer {game['token']}", "Idempotency-Key": "after-restart"})
    assert moved.status_code in (201, 503)
    if moved.status_code == 503:  # the answer says: send it again with the same key
        moved = client.post(f"/api/v1/games/{game['id']}/moves",
                            json={"type": "play", "player": "Ann", "card": "5H"},
                            headers={"Authorization": f"Bearer {game['token']}", "Idempotency-Key": "after-restart"})
        assert moved.status_code == 201
    assert api.state(game)["version"] == 1
