"""69 recorded by rounds on the phone (T-4, issue 33): the round form comes first, a points-only
round takes players + 2 taps, a round with captured sets is typed with the card pad and scored by
the referee (S69-11), a refused round comes back as typed with its ruling, a round is corrected
from its filled form (T-1), and a whole game is played so to its end (S69-12)."""
from __future__ import annotations

import re

import pytest
import requests
from playwright.sync_api import expect

from web_helpers import assert_fits_360, refused, submit, table_phone

pytestmark = pytest.mark.browser

PLAYERS = ["Ann", "Bob", "Cy"]


def state(base: str, game: dict) -> dict:
    return requests.get(f"{base}/api/v1/games/{game['id']}", timeout=5).json()


def points_round(page, emptied: str, points: list[int]) -> int:
    """A points-only round, as a table enters it; returns the taps it took (a choice, a field
    filled, the submit)."""
    form = page.locator("#round-result-form")
    taps = 0
    form.locator(f"input[name=emptied][value='{emptied}'] + span").click()
    taps += 1
    for i, n in enumerate(points):
        if n:  # blank counts 0: a player who scored nothing costs no tap
            form.locator(f"input[name='points-{i}']").fill(str(n))
            taps += 1
    submit(page, "round-result-form")
    return taps + 1


def test_a_whole_69_game_recorded_by_rounds_through_the_page(phone, live_server):
    game, page = table_phone(phone, live_server, "sixty-nine", PLAYERS, {"record": "rounds"})
    # the round form is the page's first form; no deal, and the switch waits under "More"
    expect(page.locator("#round-result-form")).to_be_visible()
    assert page.locator("#deal-form").count() == 0 and page.locator("#play-form").count() == 0
    assert page.locator("#moves form").first.get_attribute("id") == "round-result-form"
    expect(page.locator("#switch-record-form")).to_be_hidden()

    # round 1, points only: players + 2 taps at most
    taps = points_round(page, "Ann", [20, 5, 3])
    assert taps <= len(PLAYERS) + 2
    body = state(live_server, game)
    assert body["standings"] == {"Ann": 20, "Bob": 5, "Cy": 3} and body["dealer"] == "Bob"   # left of Ann (S69-12)
    expect(page.locator("table.sheet tbody tr")).to_have_count(1)
    page.locator("#more > summary").click()
    expect(page.locator("#switch-record-form")).to_be_visible()

    # round 2: Cy's captured sets typed with the card pad; a set of two is refused (S69-4) and kept
    form = page.locator("#round-result-form")
    form.locator("input[name=emptied][value='Cy'] + span").click()
    form.locator("input[name='points-0']").fill("10")
    form.locator("summary", has_text="Cy's cards").click()
    box = form.locator("[data-padded]", has=page.locator("textarea[name='captured-2']"))
    box.locator("[data-pad] > summary").click()
    for name in ("Add 5 of A", "Add 5 of B", "Add 5 of C"):
        box.get_by_role("button", name=name, exact=True).click()
    box.get_by_role("button", name="New line").click()
    for name in ("Add Wild", "Add Lock"):
        box.get_by_role("button", name=name, exact=True).click()
    expect(box.locator("textarea")).to_have_value("5A 5B 5C\nWILD LOCK")
    submit(page, "round-result-form")
    refused(page, "S69-4")
    form = page.locator("#round-result-form")
    expect(form.locator("textarea[name='captured-2']")).to_have_value("5A 5B 5C\nWILD LOCK")
    expect(form.locator("input[name='points-0']")).to_have_value("10")
    expect(form.locator("input[name=emptied][value='Cy']")).to_be_checked()
    assert state(live_server, game)["version"] == 1
    form.locator("textarea[name='captured-2']").fill("5A 5B 5C\nWILD LOCK SCRAMBLE")
    submit(page, "round-result-form")
    expect(page.locator("#refused")).to_have_count(0)
    body = state(live_server, game)
    assert body["rounds"][1]["scores"] == {"Ann": 10, "Bob": 0, "Cy": 6 + 3}   # S69-11: a Wild-Lock-Scramble set
    assert body["standings"] == {"Ann": 30, "Bob": 5, "Cy": 12} and body["dealer"] == "Ann"
    breakdown = page.locator("details.breakdown", has_text="Round 2 breakdown")
    breakdown.locator("summary").click()
    expect(breakdown).to_contain_text("holds a Wild, a Lock and a Scramble")

    # correct round 2 (T-1): its form comes filled as it was entered
    page.get_by_role("link", name=re.compile(r"Correct this round \(2\)")).click()
    correct = page.locator("#correct-form")
    expect(correct.locator("textarea[name='captured-2']")).to_have_value("5A 5B 5C\nWILD LOCK SCRAMBLE")
    expect(correct.locator("input[name='points-0']")).to_have_value("10")
    expect(correct.locator("input[name=emptied][value='Cy']")).to_be_checked()
    correct.get_by_label("Why: what was entered wrong").fill("Ann counted 14")
    correct.locator("input[name='points-0']").fill("14")
    correct.get_by_role("button", name="Correct the round").click()
    expect(page.locator("table.sheet tbody tr").nth(1)).to_contain_text("corrected")
    assert state(live_server, game)["standings"] == {"Ann": 34, "Bob": 5, "Cy": 12}

    # rounds 3 and 4, points only: Ann and Bob both pass 69, ranked by points (S69-12)
    assert points_round(page, "Bob", [20, 30, 0]) <= len(PLAYERS) + 2
    assert points_round(page, "Ann", [20, 40, 0]) <= len(PLAYERS) + 2
    final = state(live_server, game)
    assert final["status"] == "finished" and final["winners"] == ["Bob", "Ann"]
    assert final["standings"] == {"Ann": 74, "Bob": 75, "Cy": 12}
    assert [r["recorded"] for r in final["rounds"]] == ["rounds"] * 4
    expect(page.locator(".winners")).to_contain_text("Bob, Ann")
    assert page.locator("#round-result-form").count() == 0
    phone.screenshot("sixty-nine-by-rounds")
    assert_fits_360(page)


def test_a_69_table_recording_moves_may_enter_a_round_whole_between_rounds(phone, live_server):
    game, page = table_phone(phone, live_server, "sixty-nine", PLAYERS)
    expect(page.locator("#deal-form")).to_be_visible()
    expect(page.locator("#round-result-form")).to_be_hidden()     # under its summary
    page.locator("summary", has_text="Enter the round whole").click()
    assert points_round(page, "Bob", [4, 0, 9]) <= len(PLAYERS) + 2
    body = state(live_server, game)
    assert body["record"] == "moves" and body["rounds"][0]["scores"] == {"Ann": 4, "Bob": 0, "Cy": 9}
    assert body["dealer"] == "Cy"
    # the switch to rounds, between rounds: the round form comes first
    page.locator("#more > summary").click()
    submit(page, "switch-record-form")
    expect(page.locator("#round-result-form")).to_be_visible()
    assert page.locator("#deal-form").count() == 0
    assert state(live_server, game)["record"] == "rounds"


def test_69_cards_read_with_their_letters_in_the_log_and_the_flip_select(client, api, table_client):
    """Issue 33: 69's suits are the letters A-F in the pad; the log and the selects printed 5C as 5♣
    and 6D as 6♦ (the standard suits' symbols). The flip select offers only cards not in sight."""
    game = api.create("sixty-nine", ["Ann", "Bob", "Cid"])
    api.move(game, {"type": "deal", "dealer": "Cid", "flip": "5C"})
    table = table_client(game)
    log = table.get(f"/g/{game['id']}/log").get_data(as_text=True)
    assert "5C" in log and "5♣" not in log
    page = table.get(f"/g/{game['id']}").get_data(as_text=True)
    assert "♣" not in page and "♦" not in page
