"""One page per other game, in headless Chromium: the state renders, moves go in through the
forms, a refusal shows its ruling, undo works, and a round's breakdown shows on the sheet."""
from __future__ import annotations


import pytest
from playwright.sync_api import expect

from web_helpers import assert_fits_360, refused, submit, table_phone, undo

pytestmark = pytest.mark.browser


def fill_grid(form, index: int, cards: list[str | None]):
    for pos, card in enumerate(cards):
        if card:
            form.locator(f"input[name='g-{index}-{pos}']").fill(card)


def test_nines(phone, live_server):
    created, page = table_phone(phone, live_server, "nines", ["Ann", "Bob"])
    expect(page.locator(".grids .grid3")).to_have_count(2)
    deal = page.locator("#deal-form")
    deal.locator("select[name=discard]").select_option("5H")
    fill_grid(deal, 0, ["AS", "2S", "3S"])
    fill_grid(deal, 1, ["4S", "5S"])  # one card short
    submit(page, "deal-form")
    refused(page, "N9-2")
    deal = page.locator("#deal-form")
    deal.locator("select[name=discard]").select_option("5H")
    fill_grid(deal, 0, ["AS", "2S", "3S"])
    fill_grid(deal, 1, ["4S", "5S", "6S"])
    submit(page, "deal-form")
    expect(page.locator(".facts .turn")).to_have_text("Ann")
    turn = page.locator("#turn-form")
    turn.locator("input[name=source][value=stock] + span").click()
    turn.locator("select[name=card]").select_option("7H")
    turn.locator("input[name=position][value='4'] + span").click()
    turn.locator("select[name=replaced]").select_option("8C")
    submit(page, "turn-form")
    expect(page.locator(".grids .grid3").first).to_contain_text("7♥")
    expect(page.locator(".pile")).to_contain_text("8♣")
    undo(page)
    undo(page)
    page.locator("details.minor > summary").first.click()
    form = page.locator("#hand-result-form")
    fill_grid(form, 0, ["KS", "KH", "KD", "2C", "3C", "4C", "5C", "6C", "7C"])
    fill_grid(form, 1, ["AH", "AD", "AC", "JK", "9H", "9D", "QH", "QD", "QC"])
    submit(page, "hand-result-form")
    expect(page.locator("table.sheet tbody tr")).to_have_count(1)
    expect(page.locator("details.breakdown").first).to_contain_text("N9")
    assert page.locator("svg.chart").count() == 1
    phone.screenshot("nines")
    assert_fits_360(page)


def test_xix(phone, live_server):
    created, page = table_phone(phone, live_server, "xix", ["Ann", "Bob"])
    form = page.locator("#play-form")
    form.locator("input[name=card][value='5'] + span").click()
    submit(page, "play-form")
    expect(page.locator(".pile")).to_contain_text("5")
    form = page.locator("#play-form")
    # the 5 is on the table, and Bob's open hand is empty: neither is offered (X19-7)
    expect(form.locator("input[name=card][value='5']")).to_have_count(0)
    expect(form.locator("input[name=from][value='open']")).to_have_count(0)
    form.locator("input[name=card][value='14'] + span").click()
    submit(page, "play-form")
    # 5 + 14 = 19: the lower card takes the trick; Bob gets a strike and decides
    expect(page.locator("#decide-form")).to_contain_text("Bob received a strike")
    page.get_by_role("button", name="Raise").click()
    expect(page.locator(".facts")).to_contain_text("Stakes")
    undo(page)
    expect(page.locator("#decide-form")).to_be_visible()
    phone.screenshot("xix")
    assert_fits_360(page)


def test_sixty_nine(phone, live_server):
    created, page = table_phone(phone, live_server, "sixty-nine", ["Ann", "Bob", "Cid"])
    form = page.locator("#deal-form")
    form.locator("select[name=flip]").select_option("3A")
    submit(page, "deal-form")
    expect(page.locator(".sets")).to_contain_text("3A")
    form = page.locator("#play-form")
    form.locator("input[name=set] + span").first.click()
    form.locator("input[name=cards]").fill("5A")  # same suit, not a sequence: illegal set
    submit(page, "play-form")
    refused(page, "S69-2")
    form = page.locator("#play-form")
    form.locator("input[name=set] + span").first.click()
    form.locator("input[name=cards]").fill("4B")
    submit(page, "play-form")
    expect(page.locator(".sets")).to_contain_text("4B")
    undo(page)
    expect(page.locator(".sets")).not_to_contain_text("4B")
    form = page.locator("#play-form")
    form.locator("input[name=set] + span").first.click()
    form.locator("input[name=cards]").fill("4B 5C")           # completes the set: chances follow
    submit(page, "play-form")
    expect(page.locator("#chance-form")).to_be_visible()
    submit(page, "pass-chances-form")                          # one tap: nobody else adds (S69-4)
    expect(page.locator("#flip-form")).to_be_visible()
    phone.screenshot("sixty-nine")
    assert_fits_360(page)


def test_five_crowns(phone, live_server):
    created, page = table_phone(phone, live_server, "five-crowns", ["Ann", "Bob", "Cid"])
    expect(page.locator(".pile")).to_contain_text("3")
    form = page.locator("#deal-form")
    form.locator("select[name=discard]").select_option("7H")
    submit(page, "deal-form")
    form = page.locator("#draw-form")
    # only what ``allowed`` says is offered: Ann draws (the dealer's left), from either pile
    expect(form.locator("select[name=player] option")).to_have_text(["Ann"])
    expect(form.locator("input[name=source]")).to_have_count(2)
    form.locator("input[name=source][value=discard] + span").click()
    submit(page, "draw-form")
    expect(page.locator("#discard-form")).to_be_visible()
    page.locator("summary", has_text="goes out").click()
    form = page.locator("#go-out-form")
    form.locator("input[name=cards]").fill("6H 7H 8H")          # the cards alone: FC-6 finds the run
    form.locator("select[name=discard]").select_option("KS")
    submit(page, "go-out-form")
    expect(page.locator("#draw-form select[name=player] option")).to_have_text(["Bob"])  # Bob's final turn
    page.locator("#draw-form input[name=source][value=stock] + span").click()
    submit(page, "draw-form")
    form = page.locator("#final-turn-form")
    expect(form.locator("select[name=discard]")).to_have_value("")  # the referee picks the discard (FC-6)
    form.locator("input[name=cards]").fill("5S 5D 5C KH")          # every card in hand, the discard among them
    submit(page, "final-turn-form")
    expect(page.locator("#draw-form select[name=player] option")).to_have_text(["Cid"])  # Cid's final turn
    for _ in range(5):
        undo(page)
    page.locator("summary", has_text="round result").click()
    form = page.locator("#round-result-form")
    form.locator("select[name=went_out]").select_option("Ann")
    form.locator("input[name='points-1']").fill("25")
    form.locator("input[name='cards-2']").fill("3H 4H 5H")
    submit(page, "round-result-form")
    expect(page.locator("table.sheet tbody tr")).to_have_count(1)
    expect(page.locator("table.sheet")).to_contain_text("25")
    expect(page.locator(".facts")).to_contain_text("4")  # round 2: fours wild
    phone.screenshot("five-crowns")
    assert_fits_360(page)
