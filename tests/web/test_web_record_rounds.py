"""T-4 on the phone, Five Crowns and Nines: a table that records by rounds sees the round form
first, enters a points-only round in at most players + 2 taps, plays a whole game so, switches
between rounds, and a refused round comes back as it was typed (issue 33)."""
from __future__ import annotations

import pytest
import requests
from playwright.sync_api import expect

from web_helpers import refused, submit, table_phone

pytestmark = pytest.mark.browser

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]


def state(base: str, game: dict) -> dict:
    return requests.get(f"{base}/api/v1/games/{game['id']}", timeout=5).json()


def test_five_crowns_whole_game_by_rounds_then_a_switch_to_moves(phone, live_server):
    game, page = table_phone(phone, live_server, "five-crowns", PLAYERS, {"record": "rounds"})
    expect(page.locator("#round-result-form")).to_be_visible()
    assert page.locator("#deal-form").count() == 0
    for number in range(1, 12):
        page.locator("#round-result-form select[name=went_out]").select_option("Ann")   # tap 1
        for i in (1, 2, 3):                                                               # taps 2-4
            page.locator(f"#round-result-form input[name=points-{i}]").fill(str(number + i))
        submit(page, "round-result-form")                                                 # tap 5 of 6
        if number == 1:  # between rounds the table may switch, under "More"
            page.locator("#more > summary").click()
            expect(page.locator("#switch-record-form")).to_be_visible()
    final = state(live_server, game)
    assert final["status"] == "finished" and final["winners"] == ["Ann"]
    assert final["standings"] == {"Ann": 0, "Bob": 77, "Cy": 88, "Dee": 99}


def test_five_crowns_a_refused_round_keeps_what_was_typed_and_a_switch_brings_the_deal(phone, live_server):
    game, page = table_phone(phone, live_server, "five-crowns", PLAYERS, {"record": "rounds"})
    page.locator("#round-result-form select[name=went_out]").select_option("Ann")
    page.locator("#round-result-form input[name=points-1]").fill("12")
    page.locator("#round-result-form input[name=cards-2]").fill("3H 3H 3H")  # FC-1: two of each card
    page.locator("#round-result-form input[name=points-3]").fill("4")
    submit(page, "round-result-form")
    refused(page, "FC-1")
    expect(page.locator("#round-result-form input[name=points-1]")).to_have_value("12")
    expect(page.locator("#round-result-form input[name=cards-2]")).to_have_value("3H 3H 3H")
    expect(page.locator("#round-result-form select[name=went_out]")).to_have_value("Ann")
    page.locator("#round-result-form input[name=cards-2]").fill("4S 9D KC")
    submit(page, "round-result-form")
    assert state(live_server, game)["round"] == 2
    page.locator("#more > summary").click()
    submit(page, "switch-record-form")
    expect(page.locator("#deal-form")).to_be_visible()
    assert state(live_server, game)["record"] == "moves"


def test_nines_points_only_hands_to_the_target_and_a_refused_hand_kept(phone, live_server):
    game, page = table_phone(phone, live_server, "nines", PLAYERS, {"record": "rounds", "target": 90})
    expect(page.locator("#hand-points-form")).to_be_visible()
    for i in range(4):
        page.locator(f"#hand-points-form input[name=points-{i}]").fill(str(91 if i == 2 else 5))
    submit(page, "hand-points-form")                                      # 4 fields + submit: 5 taps
    refused(page, "N9-6")
    expect(page.locator("#hand-points-form input[name=points-2]")).to_have_value("91")
    expect(page.locator("#hand-points-form input[name=points-0]")).to_have_value("5")
    for hand in range(3):
        for i in range(4):
            page.locator(f"#hand-points-form input[name=points-{i}]").fill(str(10 * i + hand))
        submit(page, "hand-points-form")
    final = state(live_server, game)
    assert final["status"] == "finished" and final["winners"] == ["Ann"]
    assert final["standings"] == {"Ann": 3, "Bob": 33, "Cy": 63, "Dee": 93}
