"""A follower's read in front of Flask (referee.api.followers): a 304, or the view already encoded at
the game's tag, answered without Flask, with the same status, body and headers as the Flask view;
anything else handed to Flask; logged and counted like every request."""
from __future__ import annotations

import json
import os
import time

import pytest
from sqlalchemy import text

from referee import events, store
from referee.api.followers import Followers
from referee.events import Change, TagBook, hub
from referee.models import db

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL")
PLAYERS = ["Ann", "Bob"]


def _same(a, b) -> None:
    assert a.status_code == b.status_code and a.get_data() == b.get_data()
    drop = {"X-Request-Id"}
    assert {k: v for k, v in a.headers.items() if k not in drop} == {k: v for k, v in b.headers.items() if k not in drop}


def test_a_follower_is_answered_before_flask_as_flask_would(client, api, flask_only, view_calls):
    game = api.create("ninety-nine", PLAYERS)
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    url = f"/api/v1/games/{game['id']}"
    first = client.get(url)  # Flask encodes the view and keeps it
    assert view_calls[-1] == url
    calls = len(view_calls)
    again = client.get(url)
    unchanged = client.get(url, headers={"If-None-Match": first.headers["ETag"]})
    assert len(view_calls) == calls  # neither reached Flask
    assert again.get_data() == first.get_data() and unchanged.status_code == 304
    _same(again, flask_only.get(url))
    _same(unchanged, flask_only.get(url, headers={"If-None-Match": first.headers["ETag"]}))
    assert unchanged.get_data() == b"" and "Vary" not in unchanged.headers and "Content-Type" not in unchanged.headers


def test_a_write_is_seen_at_once(client, api, view_calls):
    game = api.create("ninety-nine", PLAYERS)
    url = f"/api/v1/games/{game['id']}"
    tag = client.get(url).headers["ETag"]
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    after = client.get(url, headers={"If-None-Match": tag})
    assert after.status_code == 200 and after.get_json()["version"] == 1 and after.headers["ETag"] == '"1"'


@pytest.mark.parametrize("ask", ["?at=0", "?lang=de", "/moves", "x/"])
def test_other_requests_go_to_flask(client, api, view_calls, ask):
    game = api.create("ninety-nine", PLAYERS)
    client.get(f"/api/v1/games/{game['id']}")
    calls = len(view_calls)
    client.get(f"/api/v1/games/{game['id']}{ask}")
    client.head(f"/api/v1/games/{game['id']}")
    assert len(view_calls) == calls + 2


def test_an_unknown_game_or_a_failing_database_is_flasks_to_answer(client, api, monkeypatch):
    assert client.get("/api/v1/games/nope").status_code == 404
    assert client.get("/api/v1/games/" + "x" * 40).status_code == 404
    game = api.create("ninety-nine", PLAYERS)
    url = f"/api/v1/games/{game['id']}"
    client.get(url)

    def fails(engine, game_id):
        raise OSError("the database went away")

    monkeypatch.setattr(store, "read_head", fails)
    assert client.get(url).status_code == 200  # Flask read it on its own connection


def test_logged_and_counted_like_any_request(client, api, capsys):
    game = api.create("ninety-nine", PLAYERS)
    url = f"/api/v1/games/{game['id']}"
    tag = client.get(url).headers["ETag"]
    capsys.readouterr()
    answer = client.get(url, headers={"If-None-Match": tag, "X-Request-Id": "phone-7"})
    line = [json.loads(out) for out in capsys.readouterr().out.splitlines() if out.startswith("{")][-1]
    assert answer.headers["X-Request-Id"] == "phone-7"
    assert {k: line[k] for k in ("logger", "request_id", "method", "route", "status")} == {
        "logger": "referee.access", "request_id": "phone-7", "method": "GET", "route": "/api/v1/games/<game_id>",
        "status": 304}
    assert game["id"] not in json.dumps(line)
    metrics = client.get("/metrics").get_data(as_text=True)
    assert 'referee_requests_total{method="GET",route="/api/v1/games/<game_id>",status="304"}' in metrics


# ---------------------------------------------------------------- the tag book (PostgreSQL's path)

def _change(game_id: str, revision: int, version: int | None = None) -> Change:
    return Change(game_id, revision, revision if version is None else version, "move")


def test_the_tag_book_is_trusted_only_while_its_listener_hears():
    book = TagBook()
    book.heard(_change("g", 3))
    assert book.tag("g") is None  # not listening: nothing heard counts
    book.listening()
    book.heard(_change("g", 3))
    assert book.tag("g") == "3" and book.hears()
    book._heard_at -= TagBook.STALE_SECONDS + 1  # no heartbeat for a while: the connection may be dead
    assert book.tag("g") is None and not book.hears()
    book.listening()
    assert book.tag("g") == "3"
    book.lost()
    assert book.tag("g") is None
    book.listening()
    assert book.tag("g") is None  # a lost connection forgot everything


def test_the_higher_revision_wins_and_a_read_that_raced_a_loss_teaches_nothing():
    book = TagBook()
    book.listening()
    epoch = book.epoch
    book.heard(_change("g", 5))
    book.learn("g", 4, 4, epoch)  # a read that began before the write's NOTIFY arrived
    assert book.tag("g") == "5"
    book.heard(_change("g", 6, 4))  # an undo: a lower version, a higher revision
    assert book.tag("g") == "4-6"
    book.learn("h", 2, 2, epoch)
    assert book.tag("h") == "2"
    epoch = book.epoch
    book.lost()
    book.listening()
    book.learn("k", 1, 1, epoch)  # began before the loss: whatever it read may be old
    assert book.tag("k") is None
    book.learn("k", 1, 1, book.epoch)
    assert book.tag("k") == "1"


def test_the_tag_book_reads_again_after_a_while_and_stays_small(monkeypatch):
    book = TagBook()
    book.listening()
    book.heard(_change("g", 1))
    monkeypatch.setattr(TagBook, "KEEP_SECONDS", -1.0)  # what a change that sent no NOTIFY could hide
    assert book.tag("g") is None
    monkeypatch.setattr(TagBook, "KEEP_SECONDS", 10.0)
    monkeypatch.setattr(TagBook, "SIZE", 3)
    book = TagBook()
    book.listening()
    for n in range(1, 4):
        book.heard(_change(f"g{n}", n))
    epoch = book.epoch
    book.learn("g4", 4, 4, epoch)  # the book is full: it is pruned, and this read is not kept
    assert book.epoch == epoch + 1 and book.tag("g4") is None and len(book._known) < 3
    book.heard(_change("g5", 5))  # what the listener hears always counts
    assert book.tag("g5") == "5"


def test_a_game_kept_too_long_is_read_again_by_one_reader_while_the_others_are_answered_as_heard(monkeypatch):
    book = TagBook()
    book.listening()
    book.heard(_change("g", 3))
    monkeypatch.setattr(TagBook, "KEEP_SECONDS", -1.0)  # every entry is due for a read
    assert book.tag("g") is None  # this reader reads the database
    assert book.tag("g") == "3" and book.tag("g") == "3"  # the others meanwhile: as heard
    book.learn("g", 3, 3, book.epoch)  # what the read found
    assert "g" not in book._rereading
    assert book.tag("g") is None and book.tag("g") == "3"  # due again (KEEP_SECONDS): one reader again
    book._rereading["g"] -= TagBook.STALE_SECONDS + 1  # that read never reported back
    assert book.tag("g") is None and book.tag("g") == "3"  # the next reader takes the turn
    # what the read of a game kept too long finds is the database's word, even an older revision
    # (a restore, which sent no NOTIFY); a read that raced a fresher NOTIFY still teaches nothing
    book.learn("g", 2, 2, book.epoch)
    monkeypatch.setattr(TagBook, "KEEP_SECONDS", 10.0)
    assert book.tag("g") == "2"
    book.heard(_change("g", 4))
    book.learn("g", 3, 3, book.epoch)
    assert book.tag("g") == "4"
    book.lost()
    assert book._rereading == {} and book._known == {}


on_postgresql = pytest.mark.skipif(not (TEST_DATABASE_URL or "").startswith("postgresql"),
                                   reason="the tag book serves PostgreSQL (TEST_DATABASE_URL)")


@pytest.fixture
def listening(app):
    """This process's listener, hearing."""
    with app.app_context():
        hub.watch(db.engine)
    deadline = time.monotonic() + 15
    while not hub.tags.hears():
        assert time.monotonic() < deadline, "the listener did not start"
        time.sleep(0.02)
    return hub.tags


def _until(check, seconds=5.0):
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(0.01)


@on_postgresql
def test_on_postgresql_a_follower_is_answered_from_what_the_listener_heard(client, api, listening, reads,
                                                                           monkeypatch, view_calls):
    game = api.create("ninety-nine", PLAYERS)
    url = f"/api/v1/games/{game['id']}"
    tag = client.get(url).headers["ETag"]  # read once, and learned
    assert reads == [game["id"]]
    for _ in range(3):
        assert client.get(url, headers={"If-None-Match": tag}).status_code == 304
    assert client.get(url).headers["ETag"] == tag
    assert reads == [game["id"]]  # no query since
    # a move as another process makes it: this process hears of it only through its listener
    monkeypatch.setattr(events, "committed", lambda change: None)
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    moved = _until(lambda: (r := client.get(url, headers={"If-None-Match": tag})).status_code == 200 and r)
    assert moved and moved.headers["ETag"] == '"1"' and moved.get_json()["version"] == 1
    assert reads == [game["id"]]
    calls = len(view_calls)
    assert client.get(url, headers={"If-None-Match": '"1"'}).status_code == 304 and len(view_calls) == calls


@on_postgresql
def test_a_change_that_sent_no_notify_is_read_again_after_a_while(app, client, api, listening, monkeypatch):
    game = api.create("ninety-nine", PLAYERS)
    url = f"/api/v1/games/{game['id']}"
    tag = client.get(url).headers["ETag"]
    with app.app_context():  # a hand edit: no NOTIFY
        db.session.execute(text("UPDATE games SET revision = revision + 1 WHERE id = :id"), {"id": game["id"]})
        db.session.commit()
    assert client.get(url, headers={"If-None-Match": tag}).status_code == 304  # as heard
    monkeypatch.setattr(TagBook, "KEEP_SECONDS", 0.2)
    time.sleep(0.3)
    again = client.get(url, headers={"If-None-Match": tag})
    assert again.status_code == 200 and again.headers["ETag"] == '"0-1"'


@on_postgresql
def test_a_lost_listener_forgets_and_the_database_answers(app, client, api, listening, reads):
    game = api.create("ninety-nine", PLAYERS)
    url = f"/api/v1/games/{game['id']}"
    tag = client.get(url).headers["ETag"]
    assert listening.tag(game["id"]) == tag.strip('"')
    epoch = listening.epoch
    with app.app_context():
        db.session.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                "WHERE application_name = 'referee-events' AND datname = current_database()"))
        db.session.commit()
    assert _until(lambda: listening.epoch != epoch)
    assert listening.tag(game["id"]) is None
    assert client.get(url, headers={"If-None-Match": tag}).status_code == 304
    assert reads == [game["id"], game["id"]]  # read from the database again
    assert _until(listening.hears, 15)  # and it listens again


@on_postgresql
def test_an_app_on_another_database_never_answers_from_the_book(app, api, client, listening, reads, monkeypatch):
    """The listener hears one database, the first its process asked for: a follower of an app on
    another database (as a test makes one) is answered from that database, never from the book."""
    from sqlalchemy import create_engine

    game = api.create("ninety-nine", PLAYERS)
    url = f"/api/v1/games/{game['id']}"
    client.get(url)
    assert listening.tag(game["id"]) == "0"
    with app.app_context():
        assert hub.watch(db.engine)
        elsewhere = create_engine(db.engine.url.set(database="postgres"))
    assert not hub.watch(elsewhere)
    monkeypatch.setattr(store, "read_head", lambda engine, game_id: reads.append(game_id) or (7, 7))
    assert Followers(None, elsewhere)._tag(game["id"]) == "7"  # read there, not the book's "0"
    assert reads == [game["id"], game["id"]] and listening.tag(game["id"]) == "0"
