"""The table's own moves over HTTP (T-1, T-2): a correction changes the totals and the log keeps
both entries, undo takes it back like any move, an adjustment counts in each game, and every
refusal is a problem+json 422 naming its ruling with the game unchanged."""
from __future__ import annotations

import re

import pytest

P3 = ["Ann", "Bob", "Cid"]


def fc_round(went_out, **points):
    return {"type": "round_result", "went_out": went_out, "hands": {p: {"points": n} for p, n in points.items()}}


def fc_fix(number, went_out, reason="Bob's points were Cid's", **points):
    return {**fc_round(went_out, **points), "type": "correct_round", "round": number, "reason": reason}


def adjust(player, points, reason="a penalty", **more):
    return {"type": "adjust", "player": player, "points": points, "reason": reason, **more}


def test_a_five_crowns_correction_changes_the_totals_and_the_log_keeps_both_entries(api):
    game = api.create("five-crowns", P3)
    api.move(game, fc_round("Ann", Bob=10, Cid=20))
    before = api.move(game, fc_round("Bob", Ann=5, Cid=7))
    assert before["standings"] == {"Ann": 5, "Bob": 10, "Cid": 27}
    assert before["allowed"]["correct_round"] == {"players": None, "choices": {"round": [1, 2]}}

    fixed = api.move(game, fc_fix(1, "Ann", Bob=3, Cid=20))
    assert fixed["standings"] == {"Ann": 5, "Bob": 3, "Cid": 27} and fixed["version"] == 3
    first = fixed["rounds"][0]
    assert first["scores"]["Bob"] == 3 and fixed["rounds"][1]["totals"]["Bob"] == 3
    [correction] = first["corrections"]
    assert correction["reason"] == "Bob's points were Cid's" and correction["replaced"]["scores"]["Bob"] == 10
    assert correction["changes"] == {"Bob": {"from": 10, "to": 3}}
    assert [event["rule"] for event in fixed["events"]] == ["T-1"]

    log = api.log(game)["moves"]
    assert [entry["move"]["type"] for entry in log] == ["round_result", "round_result", "correct_round"]
    assert log[0]["move"]["hands"]["Bob"] == {"points": 10} and not log[0]["voided"]
    assert log[2]["move"]["reason"] == "Bob's points were Cid's"

    # undo takes the correction back like any move; the log marks it void and keeps it
    undone = api.undo(game)
    assert undone["standings"] == before["standings"] and "corrections" not in undone["rounds"][0]
    assert [entry["voided"] for entry in api.log(game)["moves"]] == [False, False, True]


def test_a_nines_correction_over_http(api):
    grids = {"Ann": ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"],
             "Bob": ["KH", "KD", "KC", "QH", "QD", "QC", "2H", "2D", "3H"],
             "Cid": ["AH", "AD", "AC", "4H", "4D", "4C", "5H", "5D", "JK"]}
    game = api.create("nines", P3, {"target": 500})
    assert api.move(game, {"type": "hand_result", "grids": grids})["standings"] == {"Ann": 45, "Bob": 7, "Cid": 7}
    low = ["KS", "KS", "KD", "QS", "QS", "QC", "2S", "2C", "3S"]
    fixed = api.move(game, {"type": "correct_round", "round": 1, "reason": "Ann's grid was misread",
                            "grids": {**grids, "Ann": low}})
    assert fixed["standings"] == {"Ann": 7, "Bob": 7, "Cid": 7}
    assert fixed["rounds"][0]["corrections"][0]["replaced"]["grids"]["Ann"] == grids["Ann"]
    assert [m["move"]["type"] for m in api.log(game)["moves"]] == ["hand_result", "correct_round"]
    # the hand in progress cannot be corrected; missing grids are refused as a hand result is
    api.refused(game, {"type": "correct_round", "round": 2, "reason": "x", "grids": grids}, "T-1")
    api.refused(game, {"type": "correct_round", "round": 1, "reason": "x", "grids": {"Ann": low}}, "N9-2")


def test_refusals_name_their_ruling_and_change_nothing(api, client):
    game = api.create("five-crowns", P3)
    api.move(game, fc_round("Ann", Bob=10, Cid=20))
    before = api.state(game)
    for move, rule in ((fc_fix(4, "Ann", Bob=1, Cid=1), "T-1"),                    # not played yet
                       (fc_fix(2, "Ann", Bob=1, Cid=1), "T-1"),                    # in progress
                       (fc_fix(1, "Ann", reason="", Bob=1, Cid=1), "T-1"),         # no reason
                       ({**fc_fix(1, "Ann", Bob=1, Cid=1), "round": "1"}, "T-1"),  # mistyped
                       (fc_fix(1, "Ann", Bob=-1, Cid=1), "T-1"),                   # negative points
                       (adjust("Zed", 3), "T-2"),                                  # not a player
                       (adjust("Bob", 0), "T-2"),
                       (adjust("Bob", 5000), "T-2"),
                       ({"type": "adjust", "player": "Bob", "points": 2}, "T-2")):
        response = client.post(f"/api/v1/games/{game['id']}/moves", json=move,
                               headers={"Authorization": f"Bearer {game['token']}"})
        body = response.get_json()
        assert response.status_code == 422 and response.content_type == "application/problem+json", body
        assert body["rule"] == rule and body["detail"], (move, body)
    assert api.state(game) == before and len(api.log(game)["moves"]) == 1
    xix = api.create("xix", ["Ann", "Bob"])  # no exchange has ended: none to correct (T-1)
    api.refused(xix, {"type": "correct_round", "round": 1, "reason": "typo", "strikes": {"Ann": 3, "Bob": 0}}, "T-1")


def test_a_finished_game_changes_its_result_only_when_the_table_says_so(api):
    game = api.create("five-crowns", P3)
    for _ in range(11):
        done = api.move(game, fc_round("Ann", Bob=10, Cid=20))
    assert done["status"] == "finished" and done["winners"] == ["Ann"]
    assert set(done["allowed"]) == {"adjust", "correct_round"}
    body = api.refused(game, fc_fix(1, "Bob", Ann=200, Cid=20), "T-1")
    assert body["legal"] == {"change_result": [True]}
    api.refused(game, adjust("Ann", 150), "T-2")
    kept = api.move(game, adjust("Ann", 5, "slow play"))
    assert kept["winners"] == ["Ann"] and kept["standings"]["Ann"] == 5
    assert kept["adjustments"] == [{"player": "Ann", "points": 5, "reason": "slow play", "round": 11, "total": 5}]
    changed = api.move(game, {**fc_fix(1, "Bob", Ann=200, Cid=20), "change_result": True})
    assert changed["status"] == "finished" and changed["winners"] == ["Bob"]
    assert changed["standings"] == {"Ann": 205, "Bob": 100, "Cid": 220}


@pytest.mark.parametrize("name,players,points,total", [
    ("ninety-nine", P3, -2, 7),         # tokens
    ("five-crowns", P3, 12, 12),        # penalty points
    ("nines", P3, -4, -4),              # penalty points
    ("sixty-nine", P3, 5, 5),           # points toward the target
    ("xix", ["Ann", "Bob"], 3, 3),      # points toward the target
])
def test_an_adjustment_counts_in_each_game(api, name, players, points, total):
    game = api.create(name, players)
    body = api.move(game, adjust("Bob", points, "the table decided"))
    assert body["standings"]["Bob"] == total and body["status"] == "in_progress"
    assert body["adjustments"][0]["reason"] == "the table decided" and body["events"][0]["rule"] == "T-2"
    assert "adjust" in body["allowed"]
    rules = api.client.get(f"/api/v1/rules/{name}").get_json()
    assert rules["moves"]["adjust"]["rules"] == ["T-2"] and "T-2" in rules["rulings"]
    assert all("adjust" in kinds for kinds in rules["phases"].values())


def test_a_69_adjustment_is_judged_between_rounds_at_once_and_in_a_round_at_its_end(api):
    """T-2: before the first deal (between rounds) an adjustment that reaches the target ends the
    game at once, and undo takes it back; during a round it counts, and the round goes on (S69-12
    judges at the round's end)."""
    game = api.create("sixty-nine", P3, {"target": 20})
    deal = {"type": "deal", "dealer": "Cid", "flip": "5A"}
    over = api.move(game, adjust("Ann", 25, "the table's prize"))
    assert over["status"] == "finished" and over["winners"] == ["Ann"] and over["outcome"]["rule"] == "S69-12"
    assert set(over["allowed"]) == {"adjust"}
    api.refused(game, deal, "S69-12")
    back = api.undo(game)
    assert back["status"] == "in_progress" and back["standings"]["Ann"] == 0 and back["adjustments"] == []
    api.move(game, deal)
    during = api.move(game, adjust("Ann", 25, "the table's prize"))
    assert during["status"] == "in_progress" and during["standings"]["Ann"] == 25 and "play" in during["allowed"]


def test_the_phone_page_offers_an_adjustment_from_its_declaration(table_client, api):
    game = api.create("xix", ["Ann", "Bob"])
    table = table_client(game)
    html = table.get(f"/g/{game['id']}").get_data(as_text=True)
    form = html[html.index('id="adjust-form"'):]  # its own form (templates/_adjust.html), every game
    form = form[:form.index("</form>")]
    data = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
    assert data["type"] == "adjust" and 'name="reason"' in form
    assert 'name="change_result"' not in form  # offered once the game is over: during play nothing is settled
    response = table.post(f"/g/{game['id']}/move", data={**data, "player": "Bob", "points": "4",
                                                         "reason": "a forgotten raise"})
    assert response.status_code == 302
    body = api.state(game)
    assert body["standings"] == {"Ann": 0, "Bob": 4} and body["adjustments"][0]["reason"] == "a forgotten raise"


def test_the_five_crowns_round_form_asks_who_went_out_and_refuses_points_for_them(table_client, api):
    """Issue 33: "who went out" starts empty and is required; points or cards typed for the player
    who went out are refused with a message, not dropped, and nothing is recorded."""
    game = api.create("five-crowns", ["Ann", "Bob", "Cid"])
    table = table_client(game)
    html = table.get(f"/g/{game['id']}").get_data(as_text=True)
    form = html[html.index('id="round-result-form"'):]
    form = form[:form.index("</form>")]
    select = form[form.index('<select name="went_out"'):]
    select = select[:select.index("</select>")]
    assert " required" in select.split(">")[0] and '<option value="" selected disabled>' in select
    data = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
    refused = table.post(f"/g/{game['id']}/move", data={**data, "went_out": "Ann", "points-0": "12",
                                                        "points-1": "8", "points-2": "5"})
    assert refused.status_code == 302
    page = table.get(f"/g/{game['id']}").get_data(as_text=True)
    assert "Ann went out: their hand scores 0" in page
    assert api.state(game)["version"] == 0
    recorded = table.post(f"/g/{game['id']}/move", data={**data, "went_out": "Ann", "points-1": "8",
                                                         "points-2": "5"})
    assert recorded.status_code == 302 and api.state(game)["standings"] == {"Ann": 0, "Bob": 8, "Cid": 5}
