"""Group commit on a SQLite file (store._grouped): the writes a process has queued while another
writer held the file lock commit together behind one fsync. Each is checked and refused on its own
(a savepoint each), each answer comes only after the commit, and a failed commit acknowledges none.

The test holds the writers' file lock itself, lets three writes queue behind it, then lets go."""
from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import time

import pytest
from sqlalchemy import event
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from referee import metrics, store
from referee.models import db
from referee.rules import ninety_nine

pytestmark = pytest.mark.skipif((os.environ.get("TEST_DATABASE_URL") or "").startswith("postgresql"),
                                reason="group commit is SQLite's (PostgreSQL commits each write alone)")

PLAYERS = ["Ann", "Bob", "Cid"]


@pytest.fixture
def groups(monkeypatch):
    """The sizes of the groups committed during the test."""
    sizes = []
    monkeypatch.setattr(metrics.COMMIT_GROUPS, "observe", sizes.append)
    return sizes


def grouped(app, writes: list[tuple[dict, dict, dict]]) -> list:
    """Post ``(game, move, headers)`` each from its own thread while the file lock is held here, and
    let go once all of them wait in the process's queue. Returns the answers in order."""
    with app.app_context():
        path = store._sqlite_file()
    held = os.open(path + "-writers.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)
    answers = [None] * len(writes)

    def post(i: int) -> None:
        game, move, headers = writes[i]
        answers[i] = app.test_client().post(f"/api/v1/games/{game['id']}/moves", json=move, headers={
            "Authorization": f"Bearer {game['token']}", **headers})

    threads = [threading.Thread(target=post, args=(i,)) for i in range(len(writes))]
    try:
        for queued, thread in enumerate(threads, 1):  # one at a time: the queue keeps this order
            thread.start()
            deadline = time.monotonic() + 10
            while len(store._pending) < queued:
                assert time.monotonic() < deadline, "the write never queued"
                time.sleep(0.001)
    finally:
        os.close(held)  # lets the lock go
    for thread in threads:
        thread.join(timeout=20)
    return answers


def play(player: str, card: str) -> dict:
    return {"type": "play", "player": player, "card": card}


def kept_games(api, n: int, groups: list) -> list[dict]:
    """``n`` games with Ann's first card played: this process keeps their rows, so the next move on
    each is judged on its kept row before it queues, and under the lock only saved
    (``store._judged_first``). Their groups are not counted."""
    games = [api.create("ninety-nine", PLAYERS) for _ in range(n)]
    for game in games:
        api.move(game, play("Ann", "5H"))
    groups.clear()
    return games


def test_three_writes_one_commit_and_the_refused_one_changes_nothing(app, api, groups):
    a, b, c = (api.create("ninety-nine", PLAYERS) for _ in range(3))
    answers = grouped(app, [(a, play("Ann", "5H"), {}), (b, play("Bob", "5H"), {}), (c, play("Ann", "7S"), {})])
    assert [r.status_code for r in answers] == [201, 422, 201]
    assert answers[1].get_json()["rule"] == "N99-2"  # Bob out of turn
    assert groups == [2]  # the two accepted writes, committed together
    assert api.state(a)["version"] == 1 and api.state(c)["version"] == 1
    assert api.state(b)["version"] == 0 and api.log(b)["moves"] == []


def test_writes_on_one_game_in_one_group_see_each_other(app, api, groups):
    game = api.create("ninety-nine", PLAYERS)
    answers = grouped(app, [(game, play("Ann", "5H"), {"If-Match": '"0"'}),
                            (game, play("Bob", "6H"), {"If-Match": '"0"'}),
                            (game, play("Bob", "6H"), {})])
    assert [r.status_code for r in answers] == [201, 412, 201]
    assert groups == [2]
    state, log = api.state(game), api.log(game)
    assert state["version"] == 2 and [m["version"] for m in log["moves"]] == [1, 2]
    replayed = ninety_nine.new_game(PLAYERS, state["options"])
    for entry in log["moves"]:
        replayed = ninety_nine.GAME.apply(replayed, entry["move"])
    assert ninety_nine.public_view(replayed)["total"] == state["total"] == 11


def test_a_replay_in_the_same_group_is_answered_from_the_first(app, api, groups):
    game = api.create("ninety-nine", PLAYERS)
    key = {"Idempotency-Key": "one-press"}
    answers = grouped(app, [(game, play("Ann", "5H"), key), (game, play("Ann", "5H"), key)])
    assert [r.status_code for r in answers] == [201, 201]
    assert "Idempotent-Replayed" not in answers[0].headers and answers[1].headers["Idempotent-Replayed"] == "true"
    assert answers[0].get_json() == answers[1].get_json() and api.state(game)["version"] == 1


def test_a_failed_commit_acknowledges_none_of_the_group(app, api, groups, monkeypatch):
    a, b = (api.create("ninety-nine", PLAYERS) for _ in range(2))
    real = Session.commit

    def fails(session):
        if session.in_nested_transaction() or not store._PROCESS_WRITERS.locked():
            return real(session)
        raise OperationalError("COMMIT", {}, sqlite3.OperationalError("disk I/O error"))

    monkeypatch.setattr(Session, "commit", fails)
    answers = grouped(app, [(a, play("Ann", "5H"), {}), (b, play("Ann", "6H"), {})])
    monkeypatch.undo()
    assert [r.status_code for r in answers] == [503, 503]
    assert all(r.mimetype == "application/problem+json" for r in answers)
    assert api.state(a)["version"] == 0 and api.state(b)["version"] == 0 and groups == []


@pytest.mark.parametrize("kept", [False, True], ids=["locked", "kept"])
def test_a_database_error_in_one_write_fails_the_writes_before_it_and_retries_those_after(app, api, groups,
                                                                                          monkeypatch, kept):
    """On rows this process kept (``kept``) the error comes in a save as kept, in a plain
    savepoint; else in a write on the row as locked, in the session's."""
    a, b, c = kept_games(api, 3, groups) if kept else [api.create("ninety-nine", PLAYERS) for _ in range(3)]
    move, before = (play("Bob", "6H"), 1) if kept else (play("Ann", "5H"), 0)
    real = store.LockedGame.save

    def save(game):
        if game.id == b["id"]:
            raise OperationalError("UPDATE games", {}, sqlite3.OperationalError("disk I/O error"))
        return real(game)

    monkeypatch.setattr(store.LockedGame, "save", save)
    answers = grouped(app, [(a, move, {}), (b, move, {}), (c, move, {})])
    assert [r.status_code for r in answers] == [503, 503, 201]  # c in a group of its own, after
    assert groups == [1]
    assert [api.state(game)["version"] for game in (a, b, c)] == [before, before, before + 1]


def test_two_moves_judged_on_one_kept_row_in_one_group_the_second_is_judged_again(app, api, groups):
    """Both of Bob's cards were legal on the row as kept (Ann had played); the first saves, so the
    second finds the row changed, writes nothing, and is judged on the row as locked, where Bob has
    played (N99-2)."""
    game, = kept_games(api, 1, groups)
    answers = grouped(app, [(game, play("Bob", "6H"), {}), (game, play("Bob", "7H"), {})])
    assert [r.status_code for r in answers] == [201, 422]
    assert answers[1].get_json()["rule"] == "N99-2"
    assert groups == [1]
    assert [m["move"]["card"] for m in api.log(game)["moves"]] == ["5H", "6H"] and api.state(game)["total"] == 11


def test_a_save_as_kept_refused_after_its_row_was_written_is_rolled_back_alone(app, api, groups, monkeypatch):
    """A save as kept writes the game row, then the rest; one that fails after its row was written
    (here its log row, refused) is rolled back alone, by its plain SAVEPOINT: the game is as it
    was, and the other writes of its group commit."""
    a, b, c = kept_games(api, 3, groups)

    def refuse_b_log_row(conn, cursor, statement, parameters, context, executemany):
        if statement.startswith("INSERT INTO moves") and b["id"] in parameters:
            raise store.StoreError(409, "Refused late", "a refusal after the game row was written", "refused-late")

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", refuse_b_log_row)
    try:
        answers = grouped(app, [(a, play("Bob", "6H"), {}), (b, play("Bob", "6H"), {}), (c, play("Bob", "6H"), {})])
    finally:
        event.remove(engine, "before_cursor_execute", refuse_b_log_row)
    assert [r.status_code for r in answers] == [201, 409, 201]
    assert groups == [2]
    assert api.state(b)["version"] == 1 and len(api.log(b)["moves"]) == 1
    assert api.state(a)["version"] == 2 and api.state(c)["version"] == 2
    assert api.move(b, play("Bob", "6H"))["version"] == 2  # and the game takes the move once it can
