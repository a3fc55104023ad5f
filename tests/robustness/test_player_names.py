"""Names that deceive (issues 16 and 35): normalised to NFC, refused when blank after trimming or
when nothing of them shows (Hangul fillers, the Braille blank, combining marks alone), when they
hold control, invisible or bidi-override characters, or when they read like another player's (UTS
#39 skeletons: other scripts, full width, invisible code points)."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from referee.models import Game, db


@pytest.mark.parametrize("name", ["Ann\u202e", "A\u200bnn", "Ann\x07", "B\u2028ob", "Cid\ufeff", "   ", "\u3000"])
def test_hidden_characters_and_blank_names_are_refused(api, name):
    body = api.create("ninety-nine", ["Zed", name], expect=422)
    assert body["detail"]


@pytest.mark.parametrize("pair", [["Ann", "\u0410nn"], ["Bob", "B\u043eb"], ["paul", "\u0440aul"], ["ANN", "ann"]])
def test_names_that_read_alike_are_refused(api, pair):
    body = api.create("ninety-nine", pair, expect=422)
    assert "alike" in body["detail"] or "distinct" in body["detail"]


def test_names_are_stored_in_nfc_and_a_decomposed_twin_is_the_same_name(api):
    composed, decomposed = "Zo\u00eb", "Zoe\u0308"
    game = api.create("ninety-nine", [decomposed, "Ann"])
    assert game["players"] == [composed, "Ann"]
    api.move(game, {"type": "play", "player": composed, "card": "5H"})
    api.create("ninety-nine", [composed, decomposed], expect=422)
    assert api.create("ninety-nine", ["Ann", "Анна", "Zoë", "José"])["players"][1] == "Анна"  # other scripts are fine


# ---------------------------------------------------------------- issue 35: names that look blank or the same

def _games(app) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(Game))


BLANK_LOOKING = {
    "hangul filler": "\u3164", "halfwidth hangul filler": "\uffa0", "choseong filler": "\u115f",
    "jungseong filler": "\u1160", "braille blank": "\u2800", "two fillers and a space": "\u3164 \u3164",
    "braille blanks around a space": "\u2800 \u2800", "combining acute alone": "\u0301",
    "combining marks only": "\u0301\u0308\u0323", "an enclosing circle alone": "\u20dd",
    "combining grapheme joiner": "\u034f", "variation selector": "\ufe0f", "filler and a mark": "\u3164\u0301",
}


@pytest.mark.parametrize("name", BLANK_LOOKING.values(), ids=BLANK_LOOKING.keys())
def test_names_that_show_nothing_are_refused_as_blank_and_nothing_is_created(app, api, name):
    body = api.create("ninety-nine", ["Zed", name], expect=422)
    assert body["status"] == 422 and "blank" in body["detail"], body
    assert _games(app) == 0


LOOK_ALIKE = {
    "variation selector 16": ["Bob", "Bob\ufe0f"], "combining grapheme joiner": ["Bob", "Bob\u034f"],
    "hangul filler inside": ["Ann", "A\u3164nn"], "fullwidth A": ["Ann", "\uff21nn"],
    "all fullwidth": ["ann", "\uff41\uff4e\uff4e"],
    "fullwidth I, lower case": ["\uff29an", "ian"], "cyrillic capitals": ["HANS", "\u041d\u0410NS"],
    "greek capitals": ["ROBERT", "R\u039f\u0392ERT"], "digit one for l": ["Bil", "Bi1"],
    "mathematical bold": ["Ann", "\U0001d400nn"], "emoji with and without VS16": ["Ann \u2764", "Ann \u2764\ufe0f"],
}


@pytest.mark.parametrize("pair", LOOK_ALIKE.values(), ids=LOOK_ALIKE.keys())
def test_names_that_differ_only_in_invisible_width_or_script_are_refused_and_nothing_is_created(app, api, pair):
    body = api.create("ninety-nine", pair, expect=422)
    assert body["status"] == 422 and "alike" in body["detail"], body
    assert _games(app) == 0


def test_names_from_many_scripts_with_marks_and_emoji_are_accepted(api):
    names = ["José", "Zoë", "Zoe\u0308y", "李雷", "Ольга", "محمد", "Ann 🎲", "Ann ❤️", "Đặng Thị", "Ελένη", "अनीता",
             "こころ", "김민준", "Yəhya", "O'Neil", "שָׁלוֹם"]  # 16, the most Ninety-nine seats
    game = api.create("ninety-nine", names)
    assert game["players"][:3] == ["José", "Zoë", "Zoëy"] and game["players"][3:] == names[3:]


@pytest.mark.parametrize("pair", [["AL", "AI"], ["I", "L"], ["Ann", "Anna"], ["Kim", "Kin"], ["Olga", "Ольга"],
                                  ["Bob", "Rob"], ["Ann 🎲", "Ann 🎯"], ["Lee", "Lea"]])
def test_names_that_read_differently_are_accepted(api, pair):
    assert api.create("ninety-nine", pair)["players"] == pair


def test_a_group_rename_to_a_blank_or_look_alike_name_is_refused(app, client):
    made = client.post("/api/v1/groups", json={"name": "Friday"}).get_json()
    auth = {"Authorization": f"Bearer {made['token']}"}
    body = {"game": "ninety-nine", "players": ["Bob", "Cid"], "group": made["id"], "options": {}}
    assert client.post("/api/v1/games", json=body, headers=auth).status_code == 201
    path = f"/api/v1/groups/{made['id']}/renames"
    for new, word in [("\u3164", "blank"), ("\u2800", "blank"), ("\u0301", "blank"), ("Bob\ufe0f", "reads like"),
                      ("\uff22ob", "reads like")]:
        response = client.post(path, json={"from": "Cid", "to": new}, headers=auth)
        assert response.status_code == 422 and word in response.get_json()["detail"], (new, response.get_json())
    body["players"] = ["Bob\u034f", "Dee"]  # a new game of the group whose name reads like one of its players
    assert client.post("/api/v1/games", json=body, headers=auth).status_code == 422
    assert client.get(f"/api/v1/groups/{made['id']}").get_json()["renames"] == [] and _games(app) == 1


def test_an_import_with_a_blank_or_look_alike_name_is_refused(app, client, api):
    game = api.create("ninety-nine", ["Zed", "Amy"])
    record = client.get(f"/api/v1/games/{game['id']}/export",
                        headers={"Authorization": f"Bearer {game['token']}"}).get_json()
    for players, word in ((["Zed", "\u3164"], "blank"), (["Zed", "Zed\ufe0f"], "alike")):
        response = client.post("/api/v1/games/import", json={**record, "players": players})
        assert response.status_code == 422 and word in response.get_json()["detail"], response.get_json()
    assert _games(app) == 1
