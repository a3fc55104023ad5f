"""Idempotency records expire (issue 16): a key's first answer is replayed for a day
(IDEMPOTENCY_TTL_HOURS), then the record is gone and the key may be used afresh."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select, update

from bench.common import move_stream
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


def test_the_move_log_comes_a_page_at_a_time(client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"], {"tokens": 99})
    for i in range(5):
        api.move(game, {"type": "play", "player": "Ann" if i % 2 == 0 else "Bob", "card": ["5H", "6H", "7H", "8H", "3C"][i]})
    api.undo(game)
    whole = client.get(f"/api/v1/games/{game['id']}/moves")
    assert [m["seq"] for m in whole.json["moves"]] == [1, 2, 3, 4, 5] and "Link" not in whole.headers
    seqs, url = [], f"/api/v1/games/{game['id']}/moves?limit=2"
    while url:
        page = client.get(url)
        assert page.status_code == 200 and len(page.json["moves"]) <= 2
        seqs += [m["seq"] for m in page.json["moves"]]
        link = page.headers.get("Link")
        url = link[link.index("<") + 1:link.index(">")] if link else None
    assert seqs == [1, 2, 3, 4, 5]
    assert whole.json["moves"][-1]["voided"] is True
    for bad in ("limit=0", "limit=1001", "after=-1", "limit=x"):
        assert client.get(f"/api/v1/games/{game['id']}/moves?{bad}").status_code in (400, 422)


def test_expired_records_of_other_keys_are_cleared_every_few_writes(app, client, api):
    from referee.store import PURGE_EVERY

    players, options = ["Ann", "Bob", "Cid"], {"tokens": 99, "decks": 2}
    game = api.create("ninety-nine", players, options)
    moves = iter(move_stream(PURGE_EVERY, players=players, options=options))
    post(client, game, next(moves), "old")
    with app.app_context():
        db.session.execute(update(IdempotencyRecord).where(IdempotencyRecord.game_id == game["id"])
                           .values(created_at=_now() - timedelta(hours=25)))
        db.session.commit()
    for version in range(2, PURGE_EVERY + 1):
        assert post(client, game, next(moves), f"k-{version}").status_code == 201
    with app.app_context():
        keys = set(db.session.scalars(select(IdempotencyRecord.key).where(IdempotencyRecord.game_id == game["id"])))
    assert "old" not in keys and len(keys) == PURGE_EVERY - 1
