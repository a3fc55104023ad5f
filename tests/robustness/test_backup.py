"""A backup of the embedded database taken while games are played, and its restore (issue 16)."""
from __future__ import annotations

import os

import pytest
from sqlalchemy import text

from referee import create_app
from referee.models import db

pytestmark = pytest.mark.skipif(bool(os.environ.get("TEST_DATABASE_URL")),
                                reason="the embedded database's backup; PostgreSQL has pg_dump")


def make_app(path):
    return create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}", "AUTO_MIGRATE": True, "TESTING": True,
                       "SECRET_KEY": "x", "RATELIMIT_ENABLED": False})


def test_backup_while_running_then_restore_gives_back_every_acknowledged_move(tmp_path):
    app = make_app(tmp_path / "live.sqlite3")
    client = app.test_client()
    game = client.post("/api/v1/games", json={"game": "ninety-nine", "players": ["Ann", "Bob"]}).json
    auth = {"Authorization": f"Bearer {game['token']}"}
    for player, card in (("Ann", "5H"), ("Bob", "6H"), ("Ann", "7H")):
        assert client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "play", "player": player,
                                                                        "card": card}, headers=auth).status_code == 201
    backup = tmp_path / "backups" / "referee.sqlite3"
    result = app.test_cli_runner().invoke(args=["backup", str(backup)])
    assert result.exit_code == 0 and "1 games" in result.output
    before = client.get(f"/api/v1/games/{game['id']}").json
    # a later move, then a disaster: the live database is lost
    client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "play", "player": "Bob", "card": "8H"},
                headers=auth)
    with app.app_context():
        db.session.execute(text("DELETE FROM moves"))
        db.session.execute(text("DELETE FROM games"))
        db.session.commit()
        db.engine.dispose()
    result = app.test_cli_runner().invoke(args=["restore", str(backup)])
    assert result.exit_code == 0 and "Restored 1 games" in result.output
    restored = make_app(tmp_path / "live.sqlite3").test_client().get(f"/api/v1/games/{game['id']}").json
    assert restored == before and restored["version"] == 3 and restored["total"] == 18


def test_backup_refuses_postgresql_with_the_right_tool(tmp_path):
    app = create_app({"SQLALCHEMY_DATABASE_URI": "postgresql://postgres@127.0.0.1:5432/test", "AUTO_MIGRATE": False,
                      "TESTING": True, "SECRET_KEY": "x", "RATELIMIT_ENABLED": False})
    result = app.test_cli_runner().invoke(args=["backup", str(tmp_path / "x")])
    assert result.exit_code != 0 and "pg_dump" in result.output
