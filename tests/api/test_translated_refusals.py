"""Issue 15, "Languages": a refusal's ``detail`` is in the request's language (``?lang=``, the
``lang`` cookie, then ``Accept-Language``) and ``Content-Language`` says which; its status,
``type``, ``title`` and ``rule`` are the same in every language, and it changes nothing. The
JSON state stays English: it is a contract."""
from __future__ import annotations

import html as htmllib
import re

import pytest

DE = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}

# One refused move per game: (game, move, status, rule, English detail, German detail).
REFUSALS = [
    ("ninety-nine", {"type": "play", "player": "Ann", "card": "10H", "value": 5}, "N99-3",
     "10H must be declared as 10 or -10.", "10H muss als 10 oder -10 angesagt werden."),
    ("nines", {"type": "turn", "player": "Ann", "source": "stock", "card": "5H", "position": 0}, "N9-2",
     "Hand 1 has not been dealt yet: Bob records the deal.",
     "Durchgang 1 ist noch nicht gegeben: Bob trägt das Geben ein."),
    ("five-crowns", {"type": "draw", "player": "Ann", "source": "stock"}, "G-2",
     "Round 1 has not been dealt yet: record the first face-up discard with a deal move.",
     "Runde 1 ist noch nicht gegeben: die erste offene Ablagekarte mit einem Zug 'deal' eintragen."),
    ("xix", {"type": "play", "player": "Bob", "card": 5, "from": "closed"}, "X19-2",
     "It is not Bob's turn: Ann is to lead (the taker of the last trick leads the next).",
     "Bob ist nicht am Zug: Ann spielt aus (wer den letzten Stich genommen hat, spielt den nächsten aus)."),
    ("sixty-nine", {"type": "play", "player": "Ann", "set": 1, "cards": ["5B"]}, "G-2",
     "No round is in progress: Bob deals next.", "Keine Runde läuft: Bob gibt als Nächstes."),
]


def _post_move(client, game, move, headers=None, query=""):
    return client.post(f"/api/v1/games/{game['id']}/moves{query}", json=move,
                       headers={"Authorization": f"Bearer {game['token']}", **(headers or {})})


@pytest.mark.parametrize("name, move, rule, english, german", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_a_refusal_in_german_keeps_its_status_rule_and_the_state(client, api, name, move, rule, english, german):
    game = api.create(name, ["Ann", "Bob"])
    before = api.state(game)
    response = _post_move(client, game, move, DE)
    body = response.get_json()
    assert response.status_code == 422 and response.mimetype == "application/problem+json"
    assert body["detail"] == german and body["rule"] == rule
    assert response.headers["Content-Language"] == "de" and "Accept-Language" in response.headers["Vary"]

    english_response = _post_move(client, game, move)
    assert english_response.headers["Content-Language"] == "en"
    assert english_response.get_json() == {**body, "detail": english}  # type, title, status, rule, legal alike
    assert api.state(game) == before  # nothing applied, in either language


def test_lang_in_the_query_wins_then_the_cookie_then_accept_language(client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    move = {"type": "play", "player": "Ann", "card": "AS", "value": 5}
    unknown = _post_move(client, game, move, {"Accept-Language": "fr, tlh"})  # no catalogue: English
    assert unknown.get_json()["detail"] == "AS must be declared as 1 or 11."
    assert unknown.headers["Content-Language"] == "en"
    assert _post_move(client, game, move, DE, "?lang=en").get_json()["detail"] == "AS must be declared as 1 or 11."
    answer = _post_move(client, game, move, {"Accept-Language": "en"}, "?lang=de")
    assert answer.get_json()["detail"] == "AS muss als 1 oder 11 angesagt werden."
    assert answer.headers["Content-Language"] == "de"
    remembered = _post_move(client, game, move, {"Accept-Language": "en"})  # the lang cookie ?lang= set
    assert remembered.get_json()["detail"] == "AS muss als 1 oder 11 angesagt werden."


def test_option_refusals_translate_around_the_ruling(client):
    body = {"game": "nines", "players": ["Ann", "Bob"], "options": {"target": 0}}
    german = client.post("/api/v1/games", json=body, headers=DE).get_json()
    english = client.post("/api/v1/games", json=body).get_json()
    assert english["detail"] == "Option 'target' must be from 1 to 100000 (N9-7)."
    assert german["detail"] == "Die Option 'target' muss zwischen 1 und 100000 liegen (N9-7)."
    assert german["rule"] == english["rule"] == "N9-7"


def test_store_validation_and_routing_refusals_speak_german_too(client, api):
    missing = client.post("/api/v1/games", json={"game": "nines"}, headers=DE)
    assert missing.status_code == 422 and missing.get_json()["detail"] == "players: Für das Pflichtfeld fehlen Daten."
    assert missing.get_json()["errors"] == {"json": {"players": ["Missing data for required field."]}}
    unknown = client.post("/api/v1/games", json={"game": "chess", "players": ["Ann"]}, headers=DE).get_json()
    assert unknown["detail"].startswith("game: Unbekanntes Spiel. Bekannt: ninety-nine")
    not_found = client.get("/api/v1/games/nope", headers=DE)
    assert not_found.status_code == 404 and not_found.get_json()["detail"] == "Kein Spiel hat die Kennung 'nope'."
    assert client.get("/api/v1/no-such-thing", headers=DE).get_json()["detail"].startswith(
        "Die angefragte URL wurde auf dem Server nicht gefunden.")
    game = api.create("ninety-nine", ["Ann", "Bob"])
    wrong = client.post(f"/api/v1/games/{game['id']}/undo", headers={"Authorization": "Bearer nope", **DE})
    assert wrong.status_code == 403 and wrong.get_json()["detail"] == "Dieses Token öffnet dieses Spiel nicht."


def test_the_json_state_and_verdicts_stay_english(client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    moved = client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "play", "player": "Ann", "card": "5S"},
                        headers={"Authorization": f"Bearer {game['token']}", **DE}).get_json()
    assert moved["events"][0]["text"] == "Ann plays 5S: 0 -> 5"
    assert client.get(f"/api/v1/games/{game['id']}", headers=DE).get_json()["events"] == moved["events"]
    verdict = client.post("/api/v1/judge/ninety-nine/play", json={"total": 60, "card": "2S"}, headers=DE).get_json()
    assert verdict["explanation"] == "2S halves: 60 -> 30. Going down never costs a token."
    rules = client.get("/api/v1/rules/ninety-nine", headers=DE).get_json()
    assert rules["moves"]["play"]["label"] == "Play a card"


def test_group_and_import_refusals_speak_german_with_their_params(client):
    """The group's and the import's refusals are marked too: the names and the engine's own refusal
    of the move at fault come through in the translated sentence; nothing changes."""
    group = client.post("/api/v1/groups", json={"name": "Freitagsrunde"}).get_json()
    auth = {"Authorization": f"Bearer {group['token']}"}
    made = client.post("/api/v1/games", json={"game": "ninety-nine", "players": ["Ann", "Bob"], "group": group["id"]},
                       headers=auth)
    assert made.status_code == 201
    rename = f"/api/v1/groups/{group['id']}/renames"
    german = client.post(rename, json={"from": "Bob", "to": "Ann"}, headers={**auth, **DE})
    assert german.status_code == 409 and german.headers["Content-Language"] == "de"
    assert german.get_json()["detail"] == ("'Ann' ist ein anderer Spieler dieser Gruppe. Sind beide eine Person, "
                                           "\"merge\": true senden, um 'Bob' mit 'Ann' zusammenzuführen.")
    english = client.post(rename, json={"from": "Bob", "to": "Ann"}, headers=auth)
    assert english.get_json() == {**german.get_json(), "detail": "'Ann' is another player of this group. If they are "
                                  "one person, send \"merge\": true to merge 'Bob' into 'Ann'."}
    described = client.get(f"/api/v1/groups/{group['id']}").get_json()
    assert described["players"] == ["Ann", "Bob"] and described["renames"] == []

    record = {"format": "referee-game", "format_version": 1, "game": "ninety-nine", "players": ["Ann", "Bob"],
              "options": {}, "group": group["id"], "moves": [{"seq": 1, "version": 1, "voided": False,
                                        "payload": {"type": "play", "player": "Ann", "card": "10H", "value": 5}}]}
    german = client.post("/api/v1/games/import", json=record, headers={**auth, **DE})
    body = german.get_json()
    assert german.status_code == 422 and german.headers["Content-Language"] == "de"
    assert body["detail"] == "Zug 1 (seq 1) wird abgelehnt: 10H muss als 10 oder -10 angesagt werden."
    assert body["rule"] == "N99-3" and body["seq"] == 1 and body["index"] == 0
    english = client.post("/api/v1/games/import", json=record, headers=auth).get_json()
    assert english == {**body, "detail": "Move 1 (seq 1) is refused: 10H must be declared as 10 or -10."}
    assert client.get(f"/api/v1/groups/{group['id']}").get_json()["games"] == 1  # nothing imported into it


@pytest.mark.parametrize("game, verdict, form, german", [
    ("five-crowns", "meld", {"wild": "5", "cards": "7H 5S 9H"}, "5S als 8"),
    ("nines", "grid", {"grid": "5H 5S 5D 2H 3H 4H KH QH JK"}, "Reihe 1"),
    ("sixty-nine", "set", {"cards": "6A 9B WILD"}, "Farbe A"),
])
def test_a_verdicts_sentence_reads_in_the_pages_language(client, game, verdict, form, german):
    """The verdict's sentence (issue 33) reads in German on a German Check page, every part of it:
    the pieces joined into it (a wild card's stand-in, a set's row, a card's reading) included. (The
    API's JSON stays English, as every state does.)"""
    page = client.get(f"/check/{game}", headers=DE).get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    answer = client.post(f"/check/{game}/{verdict}", data={"csrf_token": token, **form}, headers=DE)
    said = re.search(r'<p class="says" id="says">(.*?)</p>', htmllib.unescape(answer.get_data(as_text=True)),
                     re.DOTALL).group(1)
    assert german in said, said
    for word in ("standing in", "row 1", "in suit", " is ", "scores"):
        assert word not in said, said
