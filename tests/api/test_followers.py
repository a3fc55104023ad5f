"""A follower's read in front of Flask (referee.api.followers): a 304, or the view already encoded at
the game's tag, answered without Flask, with the same status, body and headers as the Flask view;
anything else handed to Flask; logged and counted like every request."""
from __future__ import annotations

import json

import pytest
from flask import request, request_started
from werkzeug.test import Client

from referee import store
from referee.api.followers import Followers

PLAYERS = ["Ann", "Bob"]


@pytest.fixture
def flask_only(app):
    """A client of the app without the followers' layer: what Flask itself answers."""
    assert isinstance(app.wsgi_app, Followers)
    return Client(app.wsgi_app.wsgi_app)


@pytest.fixture
def view_calls(app):
    """The requests that reached Flask (its ``request_started`` signal), by path."""
    calls = []

    def started(sender, **extra):
        calls.append(request.path)

    request_started.connect(started, app)
    yield calls
    request_started.disconnect(started, app)


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

    monkeypatch.setattr(store, "read_tag", fails)
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
