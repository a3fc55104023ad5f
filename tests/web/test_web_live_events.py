"""Pages follow a game by its event stream (issue 15): two followers see a move within a second;
without EventSource the page falls back to polling with If-None-Match."""
from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from test_web_ninety_nine import api_move, create_via_api

pytestmark = pytest.mark.browser


@pytest.mark.serial  # the move is timed
def test_two_followers_see_a_move_within_a_second(phones, live_server):
    game = create_via_api(live_server, "ninety-nine", ["Ann", "Bob", "Cid"])
    pages = []
    for _ in range(2):
        follower = phones()
        follower.goto(f"/g/{game['id']}")
        expect(follower.page.locator("#game")).to_have_attribute("data-live", "stream", timeout=5000)
        pages.append(follower.page)
    started = time.monotonic()
    api_move(live_server, game, {"type": "play", "player": "Ann", "card": "8C"})
    for page in pages:
        expect(page.locator("#total")).to_have_text("8", timeout=1000)
    assert time.monotonic() - started < 1.5
    api_move(live_server, game, {"type": "play", "player": "Bob", "card": "9D"})  # 9 adds nothing
    expect(pages[1].locator("#live .events")).to_contain_text("Bob", timeout=1000)


def test_without_event_source_the_page_polls(phones, live_server):
    game = create_via_api(live_server, "ninety-nine", ["Ann", "Bob", "Cid"])
    follower = phones()
    follower.page.add_init_script("delete window.EventSource")
    follower.goto(f"/g/{game['id']}")
    expect(follower.page.locator("#game")).to_have_attribute("data-live", "poll")
    api_move(live_server, game, {"type": "play", "player": "Ann", "card": "7C"})
    expect(follower.page.locator("#total")).to_have_text("7", timeout=3000)
