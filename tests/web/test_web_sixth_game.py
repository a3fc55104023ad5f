"""The sixth game of the tests (``tests/contract/high_card.py``) in Chromium: registered from the
test alone, it gets a start page, a form for each move it allows (offering only the players who
may still show a card), a log that reads its moves aloud, and a score sheet."""
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
    register(high_card)
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
