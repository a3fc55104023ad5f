"""The pages in German, in headless Chromium at 390x844: a phone whose browser asks for German plays
a short Ninety-nine round on German pages; its switch to English is remembered on the next page."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# The round of test_web_ninety_nine's breakdown test, every card entered on the page: 95 after ten
# cards, and Bob's 4 makes 99, which wins the round (N99-5).
ROUND = [("K", "S"), ("K", "H"), ("K", "D"), ("K", "C"), ("Q", "S"), ("Q", "H"), ("Q", "D"), ("Q", "C"),
         ("J", "S"), ("5", "S"), ("4", "S")]


def play(page, rank: str, suit: str):
    page.locator(f"#play-form button[name=card][value='{rank}{suit}']").click()  # one tap a card
    page.wait_for_load_state()


def test_a_german_phone_plays_a_round_in_german_and_switches_to_english(phones):
    phone = phones(locale="de-DE")
    page = phone.page
    phone.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.get_by_role("heading", level=1)).to_have_text("Punkte schreiben am Spieltisch")
    page.get_by_role("link", name=re.compile("Ninety-nine")).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Neues Spiel: Ninety-nine")
    page.get_by_label(re.compile("Spieler, ein Name pro Zeile")).fill("Ann\nBob")
    page.get_by_role("button", name="Spiel starten").click()
    expect(page.locator("main")).to_contain_text("Spiel gestartet. Teile es oben über „Teilen“.")  # on the game

    expect(page.get_by_role("heading", name="Zug eingeben")).to_be_visible()
    expect(page.get_by_role("heading", name="Marken")).to_be_visible()
    for n, (rank, suit) in enumerate(ROUND):
        play(page, rank, suit)
        if n == 0:
            assert page.locator("#total").inner_text() == "10"
            expect(page.locator(".facts .turn")).to_have_text("Bob")  # "Am Zug", found by its label
    expect(page.get_by_role("heading", name="Punkteblock")).to_be_visible()
    expect(page.locator("details.breakdown summary").first).to_have_text("Runde 1 im Einzelnen")
    expect(page.locator("table.sheet thead th").first).to_have_text("Runde")
    expect(page.locator(".pile")).to_contain_text("im Uhrzeigersinn")
    expect(page.locator("#announcer")).not_to_be_empty()
    body = page.locator("main").inner_text()
    for english in ["Enter a move", "Score sheet", "Tokens", "Play the card", "Undo the last move", "Direction"]:
        assert english not in body, english
    phone.screenshot("language-de")

    # the switch, beside the colours: English, on this page and on the next one (the phone remembers)
    switch = page.get_by_label("Sprache")
    expect(switch).to_be_visible()
    expect(page.locator(".lang-go")).to_be_hidden()  # with scripts on, choosing reloads at once
    switch.select_option("en")
    page.wait_for_url(re.compile(r"\?lang=en$"))
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", name="Enter a move")).to_be_visible()
    page.get_by_role("link", name="Log").click()
    page.wait_for_url(re.compile(r"/log$"))
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", level=1)).to_have_text("Move log")
    expect(page.get_by_label("Language")).to_have_value("en")


def test_the_switch_works_without_scripts(phones):
    phone = phones(scripts=False, locale="de-DE")
    page = phone.page
    phone.goto("/check")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    page.get_by_label("Sprache").select_option("en")
    page.get_by_role("button", name="Wechseln").click()
    page.wait_for_url(re.compile(r"/check\?lang=en$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Check a dispute")
    phone.goto("/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Keep score at the table")
