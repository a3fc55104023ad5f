"""The games of the tests in Chromium. The sixth (``tests/contract/high_card.py``), registered from
the test alone, gets a start page, a form for each move it allows (offering only the players who
may still show a card), a log that reads its moves aloud, and a score sheet. The seventh, Hearts
(``tests/contract/hearts.py``, registered for the whole run), is played the same way: a hand
entered whole, a trick, a refusal, from forms built from its declarations alone."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from referee.rules import ENGINES, register
from web_helpers import assert_fits_360

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "contract"))
import high_card  # noqa: E402

pytestmark = pytest.mark.browser


@pytest.fixture
def sixth_game():
    register(high_card.GAME)
    yield high_card
    ENGINES.pop(high_card.NAME, None)


def show(page, player: str, card: str):
    form = page.locator("form[data-move=show]")
    form.locator("select[name=player]").select_option(player)
    form.locator("input[name=card]").fill(card)
    form.get_by_role("button", name="Show a card").click()
    page.wait_for_load_state()


def test_a_game_registered_by_a_test_is_played_on_the_phone(sixth_game, phone, live_server):
    page = phone.page
    phone.goto("/")
    page.get_by_role("link", name="High card").click()
    page.locator("textarea[name=players]").fill("Ann\nBob")
    page.locator("input[name=target]").fill("2")
    page.get_by_role("button", name="Start the game").click()  # lands on the game
    expect(page.locator("form[data-move=show] select[name=player] option")).to_have_count(2)

    show(page, "Ann", "KS")
    expect(page.locator("#live .events")).to_contain_text("Ann shows KS")
    options = page.locator("form[data-move=show] select[name=player] option")
    expect(options).to_have_count(1)  # only Bob may still show a card in this trick
    expect(options).to_have_text("Bob")
    show(page, "Bob", "ZZ")
    expect(page.locator("#refused")).to_be_visible()
    show(page, "Bob", "2H")
    expect(page.locator("table.sheet tbody tr")).to_have_count(1)
    show(page, "Bob", "AH")
    show(page, "Ann", "3D")
    show(page, "Ann", "AS")
    show(page, "Bob", "4C")
    expect(page.locator(".winners")).to_contain_text("Ann")
    expect(page.locator("form[data-move=show]")).to_have_count(0)
    assert_fits_360(page)

    page.get_by_role("link", name="Log").click()
    expect(page.locator("main")).to_contain_text("Ann shows K♠")
    phone.screenshot("sixth-game")


def test_hearts_is_played_on_the_phone_from_its_declarations(phone, live_server):
    page = phone.page
    phone.goto("/")
    page.get_by_role("link", name="Hearts").click()
    page.locator("textarea[name=players]").fill("Ann\nBob\nCid\nDee")
    page.get_by_role("button", name="Start the game").click()  # lands on the game

    hand = page.locator("form[data-move=hand_result]")
    hand.locator("textarea[name=points]").fill('{"Ann": 26, "Bob": 0, "Cid": 0, "Dee": 0}')
    hand.get_by_role("button", name="Hand result").click()
    page.wait_for_load_state()
    expect(page.locator("#live .events")).to_contain_text("Ann shot the moon.")  # HE-6
    expect(page.locator("table.sheet tbody tr")).to_have_count(1)

    trick = page.locator("form[data-move=trick]")
    trick.locator("select[name=leader]").select_option("Bob")
    trick.locator("input[name=cards]").fill("2C 9C KC 5C")
    trick.get_by_role("button", name="Record a trick").click()
    page.wait_for_load_state()
    expect(page.locator("#live .events")).to_contain_text("Dee takes the trick with KC: 0 points.")  # HE-4
    leaders = page.locator("form[data-move=trick] select[name=leader] option")
    expect(leaders).to_have_count(1)  # the winner leads the next trick (HE-3)
    expect(leaders).to_have_text("Dee")
    expect(page.locator("form[data-move=hand_result]")).to_have_count(0)  # a hand begun trick by trick (T-4)

    trick.locator("input[name=cards]").fill("AH AH QS 3H")
    trick.get_by_role("button", name="Record a trick").click()
    page.wait_for_load_state()
    expect(page.locator("#refused")).to_contain_text("HE-1")
    assert_fits_360(page)
    phone.screenshot("seventh-game")
