"""A move in front of Flask (referee.api.movers, issue 17): a plain move is applied and answered
without Flask, with the status, body and headers the Flask view gives; a refusal or failure in the
store is answered by Flask's own handlers without judging the move again; anything else is handed
to Flask untouched; logged and counted like every request."""
from __future__ import annotations

import json

import pytest

from referee import store
from referee.api import limits, movers

PLAYERS = ["Ann", "Bob", "Cid"]
PLAYS = [{"type": "play", "player": "Ann", "card": "5H"}, {"type": "play", "player": "Bob", "card": "6H"}]


def _auth(game, **headers) -> dict:
    return {"Authorization": f"Bearer {game['token']}", **headers}


def _answers_alike(ours, flasks, ours_game, flasks_game) -> None:
    """The same status, headers (but the request id) and body, the game's id aside."""
    assert ours.status_code == flasks.status_code
    drop = {"X-Request-Id"}
    assert ({k: v for k, v in ours.headers.items() if k not in drop}
            == {k: v for k, v in flasks.headers.items() if k not in drop})
    assert ours.get_data(as_text=True).replace(ours_game["id"], "<id>") == \
        flasks.get_data(as_text=True).replace(flasks_game["id"], "<id>")


@pytest.mark.parametrize("headers", [{}, {"Prefer": "return=minimal"}, {"If-Match": '"0"'},
                                     {"Idempotency-Key": "k-1"}, {"X-Request-Id": "phone-7"}])
def test_a_plain_move_is_answered_before_flask_as_flask_would(client, api, flask_only, view_calls, headers):
    ours_game, flasks_game = api.create("ninety-nine", PLAYERS), api.create("ninety-nine", PLAYERS)
    calls = len(view_calls)
    ours = client.post(f"/api/v1/games/{ours_game['id']}/moves", json=PLAYS[0], headers=_auth(ours_game, **headers))
    assert len(view_calls) == calls, "the move reached Flask"
    flasks = flask_only.post(f"/api/v1/games/{flasks_game['id']}/moves", json=PLAYS[0],
                             headers=_auth(flasks_game, **headers))
    assert len(view_calls) == calls + 1
    assert ours.status_code == 201
    _answers_alike(ours, flasks, ours_game, flasks_game)
    if "X-Request-Id" in headers:
        assert ours.headers["X-Request-Id"] == "phone-7"
    assert api.state(ours_game)["version"] == 1


def test_a_replay_is_answered_before_flask_as_the_first_answer(client, api, view_calls, applied):
    game = api.create("ninety-nine", PLAYERS)
    url, headers = f"/api/v1/games/{game['id']}/moves", _auth(game, **{"Idempotency-Key": "same"})
    first = client.post(url, json=PLAYS[0], headers=headers)
    calls = len(view_calls)
    again = client.post(url, json=PLAYS[0], headers=headers)
    assert len(view_calls) == calls
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json() and api.state(game)["version"] == 1


@pytest.mark.parametrize("case", ["out of turn", "stale version", "wrong token", "no token", "no such game",
                                  "malformed move", "reused key"])
def test_a_refusal_is_answered_by_flask_without_judging_again(client, api, flask_only, applied, case):
    ours_game, flasks_game = api.create("ninety-nine", PLAYERS), api.create("ninety-nine", PLAYERS)
    for game in (ours_game, flasks_game):
        api.move(game, PLAYS[0], headers={"Idempotency-Key": "used"})
    move, headers, game_id = PLAYS[0], {"Accept-Language": "de"}, None  # Ann again: Bob's turn (N99-2)
    if case == "stale version":
        move, headers["If-Match"] = PLAYS[1], '"0"'
    elif case == "wrong token":
        move, headers["Authorization"] = PLAYS[1], "Bearer not-the-token"
    elif case == "no token":
        move, headers["Authorization"] = PLAYS[1], ""
    elif case == "no such game":
        move, game_id = PLAYS[1], "NoSuchGame"
    elif case == "malformed move":
        move = {"type": "play", "player": "Bob", "card": "11Z"}
    elif case == "reused key":
        move, headers["Idempotency-Key"] = PLAYS[1], "used"

    def post(http, game):
        return http.post(f"/api/v1/games/{game_id or game['id']}/moves", json=move, headers={**_auth(game), **headers})

    before = len(applied)
    ours = post(client, ours_game)
    assert len(applied) == before + 1, "judged once"
    flasks = post(flask_only, flasks_game)
    assert ours.status_code in (401, 403, 404, 412, 422) and ours.mimetype == "application/problem+json"
    assert ours.headers["Content-Language"] == "de"
    _answers_alike(ours, flasks, ours_game, flasks_game)
    assert api.state(ours_game)["version"] == 1


def test_a_failing_database_is_answered_by_flask_and_nothing_is_tried_twice(client, api, applied, monkeypatch):
    from sqlalchemy.exc import OperationalError

    game = api.create("ninety-nine", PLAYERS)

    def unavailable(write, move):
        applied.append(move)
        raise OperationalError("UPDATE games", {}, Exception("the database went away"))

    monkeypatch.setattr(store, "apply_move", unavailable)
    answer = client.post(f"/api/v1/games/{game['id']}/moves", json=PLAYS[0], headers=_auth(game))
    assert answer.status_code == 503 and answer.mimetype == "application/problem+json"
    assert len(applied) == 1
    monkeypatch.undo()
    assert api.state(game)["version"] == 0


@pytest.mark.parametrize("case", ["query string", "text body", "charset", "empty", "too large", "not json",
                                  "key twice", "bad idempotency key", "other path", "impossible id", "undo"])
def test_other_requests_go_to_flask(app, client, api, flask_only, view_calls, case):
    ours_game, flasks_game = api.create("ninety-nine", PLAYERS), api.create("ninety-nine", PLAYERS)
    path, body, headers, id_suffix = "/moves", json.dumps(PLAYS[0]), {}, ""
    content_type = "application/json"
    if case == "query string":
        path += "?lang=de"
    elif case == "text body":
        content_type = "text/plain"
    elif case == "charset":  # JSON with a charset parameter: still a plain move
        content_type = "application/json; charset=utf-8"
    elif case == "empty":
        body = ""
    elif case == "too large":
        body = json.dumps({**PLAYS[0], "note": "x" * app.config["MAX_CONTENT_LENGTH"]})
    elif case == "not json":
        body = "{'type': 'play'"
    elif case == "key twice":
        body = '{"type": "play", "type": "undo", "player": "Ann", "card": "5H"}'
    elif case == "bad idempotency key":
        headers["Idempotency-Key"] = "\u00e9" * 3
    elif case == "other path":
        path = "/moves/"
    elif case == "impossible id":  # no game can have it (store._possible_id): Flask's 404
        id_suffix = "~"
    elif case == "undo":
        path = "/undo"

    def post(http, game):
        return http.post(f"/api/v1/games/{game['id']}{id_suffix}{path}", data=body, headers={**_auth(game), **headers},
                         content_type=content_type)

    calls = len(view_calls)
    ours = post(client, ours_game)
    assert len(view_calls) == calls + (0 if case == "charset" else 1)
    _answers_alike(ours, post(flask_only, flasks_game), ours_game, flasks_game)
    assert ours.status_code != 500


def test_an_operators_limit_on_every_request_sends_moves_through_flask(client, api, view_calls, monkeypatch):
    game = api.create("ninety-nine", PLAYERS)
    monkeypatch.setattr(limits.limiter, "enabled", True)
    monkeypatch.setattr(limits.limiter, "limits_beyond_views", lambda: True)
    calls = len(view_calls)
    api.move(game, PLAYS[0])
    assert len(view_calls) == calls + 1


def test_pretty_printed_answers_send_moves_through_flask(app, client, api, view_calls, monkeypatch):
    game = api.create("ninety-nine", PLAYERS)
    monkeypatch.setattr(app.json, "compact", False)
    calls = len(view_calls)
    answer = client.post(f"/api/v1/games/{game['id']}/moves", json=PLAYS[0], headers=_auth(game))
    assert answer.status_code == 201 and b"\n  " in answer.get_data()  # indented, by Flask's provider
    assert len(view_calls) == calls + 1


def test_logged_and_counted_like_any_request(client, api, capsys):
    from prometheus_client import REGISTRY

    def count(status):
        return REGISTRY.get_sample_value("referee_requests_total", {"route": movers.ROUTE, "method": "POST",
                                                                   "status": status}) or 0

    game = api.create("ninety-nine", PLAYERS)
    created, refused = count("201"), count("422")
    capsys.readouterr()
    client.post(f"/api/v1/games/{game['id']}/moves", json=PLAYS[0], headers=_auth(game, **{"X-Request-Id": "p-1"}))
    client.post(f"/api/v1/games/{game['id']}/moves", json=PLAYS[0], headers=_auth(game, **{"X-Request-Id": "p-2"}))
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    access = [(line["request_id"], line["route"], line["status"]) for line in lines if line["logger"] == "referee.access"]
    assert access == [("p-1", movers.ROUTE, 201), ("p-2", movers.ROUTE, 422)]
    assert (count("201"), count("422")) == (created + 1, refused + 1)


def test_the_hooks_this_layer_stands_in_for(app):
    """The layer skips Flask's request hooks for a move that lands: a new hook must be weighed here
    (does a plain move need it?) before it is added to this list. Flask-Limiter's own hooks (when it
    is enabled) are skipped only while no limit covers every request, as its check itself skips."""
    def names(funcs):
        return sorted(f"{f.__module__}.{f.__qualname__}" for f in funcs.get(None, [])
                      if not f.__module__.startswith("flask_limiter"))

    assert names(app.before_request_funcs) == [
        "referee.api._json_body",  # the same reader, parse_json
        "referee.api.records._import_body_limit",  # the import's endpoint only
        "referee.logs.init_app.<locals>._start",  # the request id and the clock
    ]
    assert names(app.after_request_funcs) == [
        "referee.api.limits._remember_own_retry_after",  # for the hook below only
        "referee.api.limits._retry_after_only_when_refused",  # puts back or removes a header only
        "referee.i18n._remember_language",  # ?lang= only (no query string here), Vary for text/html only
        "referee.logs.init_app.<locals>._log",  # logs.answered, the same line
    ]
    assert not app.teardown_request_funcs.get(None) and not app.url_value_preprocessors.get(None)
