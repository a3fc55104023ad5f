"""The move's write path (issue 17): a write builds on the state this process kept at the game's
ETag (store.states) or, when another process has written since, on the state the database holds;
``Prefer: return=minimal`` leaves the finished rounds out of a write's answer."""
from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest
from play_helpers import play
from sqlalchemy import event, func, select
from sqlalchemy.exc import IntegrityError

from referee import store
from referee.driver_statements import DriverStatement
from referee.models import IdempotencyRecord, db

PLAYERS = ["Ann", "Bob", "Cid"]


def _snapshot_is_the_replay(client, game):
    url = f"/api/v1/games/{game['id']}"
    now = client.get(url).get_json()
    replayed = client.get(url, query_string={"at": now["version"]}).get_json()
    for body in (now, replayed):
        body.pop("etag")
    assert now == replayed
    return now


@pytest.mark.parametrize("name", ["ninety-nine", "five-crowns", "sixty-nine"])
def test_writes_by_another_process_are_read_from_the_database(client, api, monkeypatch, name):
    """Another process's write leaves this process's copy at an older ETag: the next write here
    must read the state the database holds, not build on its copy."""
    skip = random.Random(7)
    kept = store.states.put

    def sometimes_elsewhere(game_id, tag, state):  # a third of the writes happen "in another process"
        if skip.random() < 0.35:
            return
        kept(game_id, tag, state)

    monkeypatch.setattr(store.states, "put", sometimes_elsewhere)
    game = play(api, name, seed=3, max_moves=120, undo_rate=0.1)
    _snapshot_is_the_replay(client, game)


def test_a_refused_move_leaves_the_copy_and_the_row_as_they_were(client, api):
    game = api.create("ninety-nine", PLAYERS)
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    before = api.state(game)
    api.refused(game, {"type": "play", "player": "Ann", "card": "6H"}, "N99-2")  # Bob's turn
    assert api.state(game) == before
    api.move(game, {"type": "play", "player": "Bob", "card": "6H"})
    assert _snapshot_is_the_replay(client, game)["total"] == 11


def test_prefer_return_minimal_leaves_out_the_finished_rounds(client, api):
    game = play(api, "nines", seed=5, max_moves=40, undo_rate=0)
    full = api.state(game)
    assert full["rounds"], "the game has finished rounds to leave out"
    headers = {"Authorization": f"Bearer {game['token']}", "Prefer": "respond-async, return=minimal",
               "Idempotency-Key": "adjust-1"}
    move = {"type": "adjust", "player": "Ann", "points": 1, "reason": "a miscount"}
    url = f"/api/v1/games/{game['id']}/moves"
    answer = client.post(url, json=move, headers=headers)
    assert answer.status_code == 201, answer.get_json()
    assert answer.headers["Preference-Applied"] == "return=minimal"
    after = api.state(game)
    assert "rounds" not in answer.get_json()
    assert answer.get_json() == {key: value for key, value in after.items() if key != "rounds"}
    # without the preference, the same answer in full (the retry replays the first write)
    replay = client.post(url, json=move, headers={k: v for k, v in headers.items() if k != "Prefer"})
    assert replay.headers["Idempotent-Replayed"] == "true" and "Preference-Applied" not in replay.headers
    assert replay.get_json() == after
    undone = client.post(f"/api/v1/games/{game['id']}/undo",
                         headers={"Authorization": f"Bearer {game['token']}", "Prefer": "return=minimal"})
    assert undone.status_code == 200 and "rounds" not in undone.get_json()


def _statements_of(app, write, monkeypatch):
    """The SQL statements ``write()`` sends, through Core or on the driver's connection
    (``DriverStatement``), in order (BEGIN and COMMIT are the driver's, not counted)."""
    sent = []
    with app.app_context():
        engine = db.engine

    def record(conn, cursor, statement, parameters, context, executemany):
        sent.append(" ".join(statement.split()))

    run = DriverStatement.run

    def run_recorded(self, connection, values):
        sent.append(" ".join(self.compiled(connection.dialect).sql.split()))
        return run(self, connection, values)

    with monkeypatch.context() as patched:
        patched.setattr(DriverStatement, "run", run_recorded)
        event.listen(engine, "before_cursor_execute", record)
        try:
            write()
        finally:
            event.remove(engine, "before_cursor_execute", record)
    return sent


@pytest.mark.parametrize("keyed", [False, True])
def test_a_move_writes_in_one_statement_on_postgresql_and_one_per_row_on_sqlite(app, client, api, keyed,
                                                                                 monkeypatch):
    """A move is the lock, then its writes. On PostgreSQL the lock is SELECT ... FOR UPDATE (it
    writes nothing), and the log row, the game row, the Idempotency-Key's record and the NOTIFY are
    one statement (a data-modifying WITH): one round trip where they were up to four. On SQLite,
    which has neither, the lock is a no-op UPDATE and each row its own statement. Each part lands."""
    game = api.create("ninety-nine", PLAYERS)
    first = {"type": "play", "player": "Ann", "card": "5H"}
    api.move(game, first)  # this process now keeps the state: the next write reads none
    headers = {"Idempotency-Key": "press-1"} if keyed else {}
    move = {"type": "play", "player": "Bob", "card": "6H"}
    sent = _statements_of(app, lambda: api.move(game, move, headers=headers), monkeypatch)
    with app.app_context():
        dialect = db.engine.dialect.name
    if dialect == "postgresql":  # the row lock, no write
        assert sent[0].startswith("SELECT games.id") and sent[0].endswith("FOR UPDATE"), sent[0]
    else:  # the database's write lock
        assert sent[0].startswith("UPDATE games SET version=games.version"), sent[0]
    if keyed:
        assert sent[1].startswith("SELECT idempotency_records")  # a replay?
    writes = sent[2 if keyed else 1:]
    if dialect == "postgresql":
        assert len(writes) == 1, writes
        assert writes[0].startswith("WITH moved AS (INSERT INTO moves") and "pg_notify" in writes[0]
        assert ("INSERT INTO idempotency_records" in writes[0]) is keyed
    else:
        expected = ["INSERT INTO moves", "UPDATE games SET state="] + (["INSERT INTO idempotency_records"] if keyed else [])
        assert [w[:len(e)] for w, e in zip(writes, expected)] == expected and len(writes) == len(expected), writes
    # what each part wrote: the log, the row and, for a keyed move, the answer a retry gets back
    assert [entry["move"] for entry in api.log(game)["moves"]] == [first, move]
    assert api.state(game)["version"] == 2 and api.state(game)["total"] == 11
    if keyed:
        again = client.post(f"/api/v1/games/{game['id']}/moves", json=move,
                            headers={"Authorization": f"Bearer {game['token']}", **headers})
        assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
        assert api.state(game)["version"] == 2


def test_a_failed_driver_statement_is_raised_as_core_raises_it(app, api):
    """A statement run on the driver's connection fails as a Core statement would: wrapped as
    SQLAlchemy's error (here a second record for one Idempotency-Key), so the service's handlers
    (a 503 for a database failure, the group's retry) see it as any other; the transaction rolls
    back as before."""
    game = api.create("ninety-nine", PLAYERS)
    values = {"of_game": game["id"], "now": datetime.now(timezone.utc), "key": "k", "request_hash": "h",
              "status_code": 201, "response": {"id": game["id"]}}
    with app.app_context():
        connection = db.session.connection()
        store._WRITES["record"].run(connection, values)
        with pytest.raises(IntegrityError) as raised:
            store._WRITES["record"].run(connection, values)
        assert "uq_idempotency_game_key" in str(raised.value) or "UNIQUE" in str(raised.value)
        db.session.rollback()
        assert db.session.scalar(select(func.count()).select_from(IdempotencyRecord)
                                 .where(IdempotencyRecord.game_id == game["id"])) == 0
