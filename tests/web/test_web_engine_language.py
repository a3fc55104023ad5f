"""Issue 15, "Languages": what the pages show from the engines (events, the log's words, score
breakdowns, move labels, option descriptions, refusals) is in the page's language. The engines'
texts are stored marked (``referee.models.StateJSON``), so a game read back from the database is
translated as well as a fresh one."""
from __future__ import annotations

import re

from referee.models import Game, db
from referee.texts import Text


def csrf(client, path: str) -> str:
    html = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


def test_stored_events_and_the_log_read_in_german(app, client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    api.move(game, {"type": "play", "player": "Ann", "card": "5S"})
    with app.app_context():  # the event went through the database as a marked text
        stored = db.session.get(Game, game["id"]).state["events"][0]["text"]
        assert isinstance(stored, Text) and stored.msgid == "{player} plays {card}: {before} -> {after}"
    german = client.get(f"/g/{game['id']}?lang=de").get_data(as_text=True)
    assert "Ann spielt 5S: 0 -&gt; 5" in german
    assert "Ann plays 5S" not in german
    log = client.get(f"/g/{game['id']}/log").get_data(as_text=True)  # the lang cookie remembers German
    assert "Ann spielt 5♠" in log
    english = client.get(f"/g/{game['id']}?lang=en").get_data(as_text=True)
    assert "Ann plays 5S: 0 -&gt; 5" in english


def test_score_breakdowns_and_move_forms_read_in_german(client, api):
    game = api.create("nines", ["Ann", "Bob"])
    grids = {"Ann": ["5H", "5S", "5D", "2C", "3C", "4C", "6C", "7C", "KS"],
             "Bob": ["AH", "2H", "3H", "4H", "6H", "7H", "8H", "9H", "10H"]}
    api.move(game, {"type": "hand_result", "grids": grids})
    html = client.get(f"/g/{game['id']}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Satz in Reihe 1 (Positionen 0, 1, 2): drei Karten vom Rang 5." in html
    assert "2C auf Position 3: 2." in html
    assert "Set in row 1" not in html


def test_a_refused_move_is_flashed_in_german(client):
    client.get("/?lang=de")
    token = csrf(client, "/new/ninety-nine")
    started = client.post("/new/ninety-nine", data={"csrf_token": token, "players": "Ann\nBob"})
    assert started.status_code == 302, started.get_data(as_text=True)
    game_id = re.fullmatch(r"/g/([^/]+)", started.headers["Location"]).group(1)
    token = csrf(client, f"/g/{game_id}")
    client.post(f"/g/{game_id}/move", data={"csrf_token": token, "type": "play", "player": "Bob", "rank": "5",
                                             "suit": "S"})
    html = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "Ann ist am Zug, nicht Bob." in html and "N99-2" in html


def test_the_start_page_shows_option_descriptions_and_refusals_in_german(client):
    html = client.get("/new/ninety-nine?lang=de").get_data(as_text=True)
    assert "Marken, mit denen jeder Spieler beginnt (N99-1)." in html
    token = csrf(client, "/new/ninety-nine")
    refused = client.post("/new/ninety-nine", data={"csrf_token": token, "players": "Ann\nAnn"})
    assert refused.status_code == 422
    assert "Spielernamen müssen verschieden sein." in refused.get_data(as_text=True)
