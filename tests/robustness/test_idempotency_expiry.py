"""Idempotency records expire (issue 16): a key's first answer is replayed for a day
(IDEMPOTENCY_TTL_HOURS), then the record is gone and the key may be used afresh."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select, update

from referee.models import IdempotencyRecord, _now, db


def post(client, game, move, key):
    return client.post(f"/api/v1/games/{game['id']}/moves", json=move,
                       headers={"Authorization": f"Bearer {game['token']}", "Idempotency-Key": key})


def test_records_expire_after_the_ttl_and_are_cleared(app, client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    first = post(client, game, {"type": "play", "player": "Ann", "card": "5H"}, "k-1")
    assert first.status_code == 201
    again = post(client, game, {"type": "play", "player": "Ann", "card": "5H"}, "k-1")
    assert again.status_code == 201 and again.headers.get("Idempotent-Replayed") == "true"
    assert post(client, game, {"type": "play", "player": "Bob", "card": "6H"}, "k-1").status_code == 422
    with app.app_context():  # a day and an hour later
        db.session.execute(update(IdempotencyRecord).where(IdempotencyRecord.game_id == game["id"])
                           .values(created_at=_now() - timedelta(hours=25)))
        db.session.commit()
    fresh = post(client, game, {"type": "play", "player": "Bob", "card": "6H"}, "k-1")
    assert fresh.status_code == 201 and fresh.headers.get("Idempotent-Replayed") is None
    assert fresh.json["version"] == 2
    with app.app_context():
        count = db.session.scalar(select(func.count()).select_from(IdempotencyRecord)
                                  .where(IdempotencyRecord.game_id == game["id"]))
    assert count == 1                                           # the expired record is gone
