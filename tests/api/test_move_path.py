"""The move's write path (issue 17): a write builds on the state this process kept at the game's
ETag (store.states) or, when another process has written since, on the state the database holds;
``Prefer: return=minimal`` leaves the finished rounds out of a write's answer."""
from __future__ import annotations

import json
import random
import threading

import pytest
from play_helpers import GAMES, play
from sqlalchemy import event, select, text
from sqlalchemy.exc import DBAPIError

from referee import jsonio, store
from referee.models import Game, IdempotencyRecord, db
from referee.rules import get_engine

PLAYERS = ["Ann", "Bob", "Cid"]


def _another_phone(app, url: str, auth: dict, move: dict, answers: list) -> None:
    """Another phone's move, posted from a thread of its own as another request would be; its answer
    is added to ``answers``."""
    thread = threading.Thread(target=lambda: answers.append(app.test_client().post(url, json=move, headers=auth)))
    thread.start()
    thread.join()


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


def _statements_of(app, write):
    """The SQL statements ``write()`` sends, in order (BEGIN and COMMIT are the driver's, not counted)."""
    sent = []
    with app.app_context():
        engine = db.engine

    def record(conn, cursor, statement, parameters, context, executemany):
        sent.append(" ".join(statement.split()))

    event.listen(engine, "before_cursor_execute", record)
    try:
        write()
    finally:
        event.remove(engine, "before_cursor_execute", record)
    return sent


@pytest.mark.parametrize("keyed", [False, True])
def test_a_move_writes_in_one_statement_on_postgresql_and_one_per_row_on_sqlite(app, client, api, keyed):
    """On PostgreSQL a move on a game whose row this process kept from its last write on it reads
    nothing: it is judged on that row and saved in one statement (a data-modifying WITH), the game
    row only if it is still as kept (version, revision, token) and the key has no record, and the
    log row, the key's record and the NOTIFY only if the game row was saved. It runs in autocommit:
    one round trip, where BEGIN, a lock, the save and COMMIT were four. On SQLite, which has no WITH
    that writes, the move is judged on the kept row before the writer lock, and under it each row is
    its own statement: the game row first, with the same guards, then the log row and the record.
    Each part lands."""
    game = api.create("ninety-nine", PLAYERS)
    first = {"type": "play", "player": "Ann", "card": "5H"}
    api.move(game, first)  # this process now keeps the state: the next write reads none
    headers = {"Idempotency-Key": "press-1"} if keyed else {}
    move = {"type": "play", "player": "Bob", "card": "6H"}
    sent = _statements_of(app, lambda: api.move(game, move, headers=headers))
    with app.app_context():
        dialect = db.engine.dialect.name
    if dialect == "postgresql":
        assert len(sent) == 1, sent
        save = sent[0]
        assert save.startswith("WITH saved AS (UPDATE games SET state=") and "games.revision = " in save, save
        assert "games.token_hash = " in save and ("NOT (EXISTS (SELECT" in save) is keyed, save
        assert "INSERT INTO moves" in save and save.endswith("FROM saved") and "pg_notify" in save, save
        assert ("INSERT INTO idempotency_records" in save) is keyed
    else:
        # the transaction begun explicitly (where pysqlite began it itself), so that another
        # process's lock is waited for in turns (store._begin_write)
        save = sent[1]
        assert save.startswith("UPDATE games SET state=") and "games.revision = " in save, save
        assert "games.token_hash = " in save and ("NOT (EXISTS (SELECT" in save) is keyed, save
        expected = (["BEGIN IMMEDIATE", "UPDATE games SET state=", "INSERT INTO moves"]
                    + (["INSERT INTO idempotency_records"] if keyed else []))
        assert [w[:len(e)] for w, e in zip(sent, expected)] == expected and len(sent) == len(expected), sent
    # what each part wrote: the log, the row and, for a keyed move, the answer a retry gets back
    assert [entry["move"] for entry in api.log(game)["moves"]] == [first, move]
    assert api.state(game)["version"] == 2 and api.state(game)["total"] == 11
    if keyed:
        again = client.post(f"/api/v1/games/{game['id']}/moves", json=move,
                            headers={"Authorization": f"Bearer {game['token']}", **headers})
        assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
        assert api.state(game)["version"] == 2


def test_a_retry_that_the_kept_row_would_accept_again_is_replayed(app, client, api, monkeypatch):
    """A retried adjustment is as legal the second time: judged on the row this process kept, it
    would be applied twice. Its save finds the key's record and writes nothing (on PostgreSQL the
    guard in the one statement); the write then reads the row and the retry gets the first answer."""
    game = api.create("nines", PLAYERS)
    url, move = f"/api/v1/games/{game['id']}/moves", {"type": "adjust", "player": "Ann", "points": 2, "reason": "x"}
    headers = {"Authorization": f"Bearer {game['token']}", "Idempotency-Key": "adjust-twice"}
    first = client.post(url, json=move, headers=headers)
    assert first.status_code == 201, first.get_json()
    sent = _statements_of(app, lambda: client.post(url, json=move, headers=headers))
    again = client.post(url, json=move, headers=headers)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    assert [entry["move"] for entry in api.log(game)["moves"]] == [move]
    assert api.state(game)["version"] == 1
    with app.app_context():
        if db.engine.dialect.name == "postgresql":
            assert sent[0].startswith("WITH saved AS") and "NOT (EXISTS (SELECT" in sent[0], sent
            assert "AS key_recorded" in sent[1], sent
        else:  # the save as kept finds the record; the locked path then finds it too, and replays
            assert sent[0] == "BEGIN IMMEDIATE", sent  # (store._begin_write)
            assert sent[1].startswith("UPDATE games SET state=") and "NOT (EXISTS (SELECT" in sent[1], sent
            assert sent[2].startswith("UPDATE games SET version=games.version"), sent  # the lock
            assert sent[3].startswith("SELECT idempotency_records"), sent
            assert len(sent) == 4, sent


def test_a_token_rotated_since_the_row_was_kept_opens_nothing(client, api):
    """This process kept the row with the game's token as it was; a rotation since (here or in
    another process) does not change the row's revision. The old token, accepted by the kept row,
    is refused (403) and writes nothing; the new one, which the kept row does not know, writes."""
    game = api.create("ninety-nine", PLAYERS)
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})  # kept, with the token as it was
    rotated = client.post(f"/api/v1/games/{game['id']}/token", headers={"Authorization": f"Bearer {game['token']}"})
    assert rotated.status_code == 200
    before = api.state(game)
    refused = api.move(game, {"type": "play", "player": "Bob", "card": "6H"}, expect=403)
    assert refused["status"] == 403 and api.state(game) == before and len(api.log(game)["moves"]) == 1
    api.move(dict(game, token=rotated.get_json()["token"]), {"type": "play", "player": "Bob", "card": "6H"})
    assert api.state(game)["version"] == 2 and api.state(game)["total"] == 11


def _stale_copy(monkeypatch) -> None:
    """Every write from now on happens "in another process": this process keeps what it had."""
    monkeypatch.setattr(store.states, "put", lambda *args: None)


def test_a_move_refused_on_the_row_as_kept_is_judged_on_the_row_as_it_is(client, api, monkeypatch):
    """This process kept the game at Ann's move; Bob's came through another process since. Cid's
    move, refused on the row as kept (Bob's turn there: N99-2), is judged again on the row as it
    is, where it is Cid's turn: it lands. So does an If-Match that names the row as it is."""
    game = api.create("ninety-nine", PLAYERS)
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    with monkeypatch.context() as elsewhere:
        _stale_copy(elsewhere)
        api.move(game, {"type": "play", "player": "Bob", "card": "6H"})
    api.move(game, {"type": "play", "player": "Cid", "card": "7H"})
    assert api.state(game)["total"] == 18 and api.state(game)["version"] == 3
    with monkeypatch.context() as elsewhere:
        _stale_copy(elsewhere)
        api.move(game, {"type": "play", "player": "Ann", "card": "8H"})
    answer = client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "play", "player": "Bob", "card": "9H"},
                         headers={"Authorization": f"Bearer {game['token']}", "If-Match": '"4"'})
    assert answer.status_code == 201, answer.get_json()
    assert [entry["move"]["card"] for entry in api.log(game)["moves"]] == ["5H", "6H", "7H", "8H", "9H"]


def test_a_move_overtaken_after_it_was_judged_on_the_kept_row_is_judged_again(app, api, monkeypatch):
    """Two phones press at once. This move is judged on the row this process kept (on SQLite before
    it queues for the writer lock, on PostgreSQL before its one statement), and the other phone's
    move is saved in between. This save finds the row changed and writes nothing; the move is
    judged again on the row as it now is (as locked on SQLite, as read on PostgreSQL): Bob has
    played, so his second card is refused (N99-2). The log holds each move once."""
    game = api.create("ninety-nine", PLAYERS)
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})  # this process keeps the row
    url, auth = f"/api/v1/games/{game['id']}/moves", {"Authorization": f"Bearer {game['token']}"}
    judged, other = store._judged, []

    def overtaken(kept_or_not, request, *args, **kwargs):
        result = judged(kept_or_not, request, *args, **kwargs)
        if kept_or_not.kept and not other:
            other.append("pressing")  # the other phone's own judging passes through here too
            _another_phone(app, url, auth, {"type": "play", "player": "Bob", "card": "6H"}, other)
        return result

    monkeypatch.setattr(store, "_judged", overtaken)
    answer = app.test_client().post(url, json={"type": "play", "player": "Bob", "card": "7H"}, headers=auth)
    assert other[1].status_code == 201, other[1].get_json()
    assert answer.status_code == 422 and answer.get_json()["rule"] == "N99-2", answer.get_json()
    assert [entry["move"]["card"] for entry in api.log(game)["moves"]] == ["5H", "6H"]
    assert api.state(game)["version"] == 2 and api.state(game)["total"] == 11


def test_on_sqlite_a_move_on_the_kept_row_is_judged_before_the_writer_lock(app, api, monkeypatch):
    """The writer lock serializes the writes of every process; judging a move under it left the
    cores idle (bench/README.md, ninth pass). A move on the row this process kept is judged, its
    state encoded, with the lock free; under it only its save runs."""
    with app.app_context():
        if store._sqlite_file() is None:
            pytest.skip("the writer lock is a SQLite file's")
    game = api.create("ninety-nine", PLAYERS)
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    seen, judged, written = [], store._judged, store.LockedGame.written

    def judged_seen(game_row, *args, **kwargs):
        seen.append(("judged", game_row.kept, store._PROCESS_WRITERS.locked()))
        return judged(game_row, *args, **kwargs)

    def written_seen(game_row):
        seen.append(("encoded", game_row.kept, store._PROCESS_WRITERS.locked()))
        return written(game_row)

    monkeypatch.setattr(store, "_judged", judged_seen)
    monkeypatch.setattr(store.LockedGame, "written", written_seen)
    api.move(game, {"type": "play", "player": "Bob", "card": "6H"})
    assert seen[:2] == [("judged", True, False), ("encoded", True, False)], seen
    assert api.state(game)["version"] == 2 and api.state(game)["total"] == 11


def test_asking_whether_the_session_holds_changes_makes_no_session(app, api, monkeypatch):
    """A write asks whether its request's session holds changes of its own (which it must then
    commit with them); a request that made no session holds none, and asking makes none. On
    PostgreSQL a move on a kept row then makes no session at all; on SQLite only the writer that
    commits its group uses one."""
    with app.app_context():
        assert store._session_pending() is False and not db.session.registry.has()
        db.session.add(IdempotencyRecord(game_id="x", key="k", request_hash="h", status_code=201, response={}))
        assert store._session_pending() is True
        db.session.rollback()
        dialect = db.engine.dialect.name
    game = api.create("ninety-nine", PLAYERS)
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    made, make = [], db.session.registry.createfunc
    monkeypatch.setattr(db.session.registry, "createfunc", lambda: made.append(1) or make())
    api.move(game, {"type": "play", "player": "Bob", "card": "6H"})
    assert len(made) == (0 if dialect == "postgresql" else 1), made
    assert api.state(game)["version"] == 2


def _on_postgresql(app) -> None:
    with app.app_context():
        if db.engine.dialect.name != "postgresql":
            pytest.skip("unlocked writes are PostgreSQL's (on SQLite a write holds the database's write lock)")


def _between_read_and_save(monkeypatch, meddle, times: int = 1) -> list:
    """Run ``meddle(game_id)`` after a write has read its game row and before it saves, the first
    ``times`` times: another write that comes in between."""
    checked_write, meddled = store._checked_write, []

    def overtaken(game, request, *args, **kwargs):
        if len(meddled) < times:
            meddled.append(game.version)
            assert game.state  # the write has read its game, the state too (else it reads the new one)
            meddle(game.id)
        return checked_write(game, request, *args, **kwargs)

    monkeypatch.setattr(store, "_checked_write", overtaken)
    return meddled


def _pooled_in_autocommit(app) -> list[bool]:
    """Whether each connection in the pool (checked out all at once) is in autocommit."""
    with app.app_context():
        held = [db.engine.connect() for _ in range(db.engine.pool.checkedin())]
        try:
            return [connection.connection.driver_connection.autocommit for connection in held]
        finally:
            for connection in held:
                connection.close()


def test_an_unlocked_write_gives_its_connection_back_out_of_autocommit(app, api, monkeypatch):
    """An unlocked write switches its pooled connection to autocommit on the driver (not through
    Core's isolation_level, whose reset at checkin cost more) and back: after a move, a refused move
    and a write that failed in the database, no pooled connection is left in autocommit, and a
    session's write on one is still undone by its rollback."""
    _on_postgresql(app)
    game = api.create("ninety-nine", PLAYERS)
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    api.move(game, {"type": "play", "player": "Ann", "card": "6H"}, expect=422)
    with monkeypatch.context() as failing:
        failing.setattr(store.LockedGame, "save", lambda self: self.connection.execute(text("SELECT 1 / 0")))
        with app.app_context(), pytest.raises(DBAPIError):
            store.apply_move(store.WriteRequest(game["id"], game["token"]),
                             {"type": "play", "player": "Bob", "card": "6H"})
    pooled = _pooled_in_autocommit(app)
    assert pooled and not any(pooled), pooled
    with app.app_context():
        db.session.execute(text("UPDATE games SET status = 'meddled' WHERE id = :id"), {"id": game["id"]})
        db.session.rollback()
        assert db.session.get(Game, game["id"]).status == "in_progress"
        db.session.rollback()
    assert api.state(game)["version"] == 1


def test_a_connection_that_cannot_leave_autocommit_is_not_pooled_again():
    """A statement cut off midway (a timeout) leaves the driver's connection busy: it cannot be
    switched back, so it is invalidated (closed, never handed to another request in autocommit),
    and what cut the statement off is what the caller hears."""

    class Busy:
        def __init__(self):
            self.switched = []

        @property
        def autocommit(self):
            return self.switched[-1]

        @autocommit.setter
        def autocommit(self, value):
            if self.switched and not value:
                raise RuntimeError("can't change 'autocommit' now: connection in transaction status ACTIVE")
            self.switched.append(value)

    class Pooled:
        is_valid = True

        def __init__(self):
            self.driver_connection = Busy()

        def invalidate(self):
            self.is_valid = False

    pooled = Pooled()
    with pytest.raises(TimeoutError):
        with store.autocommitting(pooled):
            assert pooled.driver_connection.autocommit is True
            raise TimeoutError("statement cut off")
    assert pooled.is_valid is False


def test_a_move_overtaken_between_its_read_and_its_save_is_judged_on_the_new_row(app, api, monkeypatch):
    """Two phones press at once (PostgreSQL, no lock): the other's move is saved between this one's
    read and its save. This save finds the row changed and writes nothing; the move is read again
    and judged on the game as it now is: Bob has played, so his second card is refused (N99-2).
    The log holds each move once."""
    _on_postgresql(app)
    game = api.create("ninety-nine", PLAYERS)
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    url, auth = f"/api/v1/games/{game['id']}/moves", {"Authorization": f"Bearer {game['token']}"}
    other = []

    def other_phone(game_id):
        _another_phone(app, url, auth, {"type": "play", "player": "Bob", "card": "6H"}, other)

    meddled = _between_read_and_save(monkeypatch, other_phone)
    answer = app.test_client().post(url, json={"type": "play", "player": "Bob", "card": "7H"}, headers=auth)
    assert meddled == [1] and other[0].status_code == 201
    assert answer.status_code == 422 and answer.get_json()["rule"] == "N99-2", answer.get_json()
    assert [entry["move"]["card"] for entry in api.log(game)["moves"]] == ["5H", "6H"]
    assert api.state(game)["version"] == 2 and api.state(game)["total"] == 11


def _bump(game_id):
    """Another write that changes the game row but not its moves (as a rematch's link does)."""
    with db.engine.begin() as connection:
        connection.execute(text("UPDATE games SET revision = revision + 1 WHERE id = :id"), {"id": game_id})


def test_a_move_whose_if_match_an_overtaking_write_made_stale_is_412(app, api, client, monkeypatch):
    """The If-Match named the row as this write first read it; the write that came in between made
    it stale, and the write read again says so (412, with the ETag as it now is)."""
    _on_postgresql(app)
    game = api.create("ninety-nine", PLAYERS)
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    _between_read_and_save(monkeypatch, _bump)
    answer = client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "play", "player": "Bob", "card": "6H"},
                         headers={"Authorization": f"Bearer {game['token']}", "If-Match": '"1"'})
    assert answer.status_code == 412 and answer.headers["ETag"] == '"1-2"', answer.get_json()
    assert len(api.log(game)["moves"]) == 1 and api.state(game)["version"] == 1


def test_a_move_on_a_game_that_keeps_changing_queues_for_the_lock(app, api, monkeypatch):
    """A write whose game row changes under it at each try (here the row's revision, as a rematch's
    link bumps it) gives up after ``UNLOCKED_TRIES`` tries (the first on the row as this process
    kept it, the others each reading it) and queues for the row lock: the move lands once, on the
    row as it then is."""
    _on_postgresql(app)
    game = api.create("ninety-nine", PLAYERS)
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})

    meddled = _between_read_and_save(monkeypatch, _bump, times=store.UNLOCKED_TRIES)
    move = {"type": "play", "player": "Bob", "card": "6H"}
    sent = _statements_of(app, lambda: api.move(game, move, headers={"Idempotency-Key": "busy-1"}))
    assert len(meddled) == store.UNLOCKED_TRIES
    reads = [s for s in sent if "AS key_recorded" in s]
    assert len(reads) == store.UNLOCKED_TRIES - 1 and any(s.endswith("FOR UPDATE") for s in sent), sent
    assert [entry["move"] for entry in api.log(game)["moves"]][-1] == move and len(api.log(game)["moves"]) == 2
    assert api.state(game)["etag"] == f"2-{2 + store.UNLOCKED_TRIES}"  # Ann's move, the bumps, this move
    again = api.client.post(f"/api/v1/games/{game['id']}/moves", json=move,
                            headers={"Authorization": f"Bearer {game['token']}", "Idempotency-Key": "busy-1"})
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"


def test_a_statement_that_a_connection_prepared_is_planned_once(app):
    """PostgreSQL: once psycopg has prepared a statement (its sixth run on a connection), each run
    takes the one generic plan; with PostgreSQL's default a move's statements were planned again
    at every run (custom plans), two fifths of the database's CPU under load."""
    _on_postgresql(app)
    with app.app_context(), db.engine.connect() as connection:
        driver = connection.connection.driver_connection
        for _ in range(8):
            driver.execute("SELECT version FROM games WHERE id = %s", ("no-such-game",)).fetchall()
        plans = driver.execute("SELECT generic_plans, custom_plans FROM pg_prepared_statements "
                               "WHERE statement = 'SELECT version FROM games WHERE id = $1'").fetchone()
        connection.rollback()
    assert plans is not None and plans[0] > 0 and plans[1] == 0, plans


class _StoredIsTheReplay:
    """The suite's Api, checking after every write that the state the database holds is the replay
    of the log encoded afresh: finished rounds encoded once per process (``jsonio.storable``) must
    never write an entry as it was before a correction replaced it."""

    def __init__(self, api, app):
        self.api, self.app = api, app

    def __getattr__(self, name):
        return getattr(self.api, name)

    def _check(self, game):
        with self.app.app_context():
            held = db.session.execute(text("SELECT state FROM games WHERE id = :id"), {"id": game["id"]}).scalar_one()
            row = db.session.get(Game, game["id"])
            engine = get_engine(row.game)
            replayed = engine.new_game(row.players, row.options)  # from scratch: checkpoints are written so too
            for logged in store.all_moves(row.id):
                if not logged.voided:
                    replayed = engine.apply(replayed, logged.payload)
            assert (json.loads(held) if isinstance(held, str) else held) == json.loads(jsonio.stored(replayed))
            db.session.remove()

    def move(self, game, move, **kwargs):
        answer = self.api.move(game, move, **kwargs)
        self._check(game)
        return answer

    def undo(self, game, **kwargs):
        answer = self.api.undo(game, **kwargs)
        self._check(game)
        return answer


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_stored_state_is_the_replay_encoded_afresh(app, api, name):
    """Whole games of every kind, with undos and the random players' adjustments, over several
    finished rounds: the state column after every write holds what encoding the replay gives."""
    play(_StoredIsTheReplay(api, app), name, seed=13, max_moves=150, undo_rate=0.1)


def test_a_corrected_round_is_stored_as_corrected(app, api):
    """A correction (T-1) replaces a finished round's entry: the state column holds the new one."""
    checked = _StoredIsTheReplay(api, app)
    game = checked.create("five-crowns", PLAYERS)
    for went_out, points in (("Ann", {"Bob": 10, "Cid": 20}), ("Bob", {"Ann": 5, "Cid": 7})):
        checked.move(game, {"type": "round_result", "went_out": went_out,
                            "hands": {p: {"points": n} for p, n in points.items()}})
    fixed = checked.move(game, {"type": "correct_round", "round": 1, "reason": "Bob's points were Cid's",
                                "went_out": "Ann", "hands": {"Bob": {"points": 3}, "Cid": {"points": 20}}})
    assert fixed["rounds"][0]["scores"]["Bob"] == 3
    checked.undo(game)


def test_the_next_position_in_the_log_is_read_from_the_last_entry_of_the_game(app, api):
    """A move's log row takes the next position after its game's last entry, read from one index,
    (game_id, seq), by its last entry for the game. As max(seq) + 1, planned on a young table's
    statistics, or with a second index on game_id alone (dropped by migration 0006), PostgreSQL
    walked every move of the game, so a move cost more the longer the game (bench/README.md,
    eleventh pass)."""
    from sqlalchemy import inspect

    game = api.create("ninety-nine", PLAYERS)
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    with app.app_context():
        indexes = {index["name"]: index["column_names"] for index in inspect(db.engine).get_indexes("moves")}
        assert not [name for name, columns in indexes.items() if columns == ["game_id"]], indexes
        next_seq = select(store._MOVE_VALUES["seq"]).params(of_game=game["id"])
        compiled = str(next_seq.compile(db.engine, compile_kwargs={"literal_binds": True}))
        assert db.session.scalar(text(compiled)) == 2
        if db.engine.dialect.name == "postgresql":
            plan = " ".join(row[0] for row in db.session.execute(text("EXPLAIN " + compiled)))
            assert "Index Only Scan Backward using uq_moves_game_seq" in plan and "Limit" in plan, plan
        else:
            plan = " ".join(row[-1] for row in db.session.execute(text("EXPLAIN QUERY PLAN " + compiled)))
            assert "COVERING INDEX" in plan and "TEMP B-TREE" not in plan, plan
        db.session.rollback()


def test_the_migration_to_one_moves_index_goes_down_and_up_again(tmp_path):
    from flask_migrate import downgrade, upgrade
    from sqlalchemy import inspect

    from referee import MIGRATIONS, create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'm.sqlite3'}", "AUTO_MIGRATE": True,
                      "TESTING": True, "SECRET_KEY": "x", "RATELIMIT_ENABLED": False})
    with app.app_context():
        def names():
            return {index["name"] for index in inspect(db.engine).get_indexes("moves")}

        assert "ix_moves_game_id" not in names() and "uq_moves_game_seq" in names() | {
            c["name"] for c in inspect(db.engine).get_unique_constraints("moves")}
        downgrade(directory=MIGRATIONS, revision="0005_groups")
        assert "ix_moves_game_id" in names()
        upgrade(directory=MIGRATIONS)
        assert "ix_moves_game_id" not in names()
