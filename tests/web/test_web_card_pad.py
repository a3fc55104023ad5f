"""The card pad under multi-card fields (69, Five Crowns): keys for the game's real cards type
their codes into the text field, 69's single cards toggle, public cards are not offered, and
with scripts off the pad stays hidden and the plain field still enters the move."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from referee.web.games import ui_for
from web_helpers import submit, table_phone

SUITS = "ABCDEF"


def deal_69(page, flip="3A"):
    page.locator("#deal-form select[name=flip]").select_option(flip)
    submit(page, "deal-form")
    expect(page.locator(".sets")).to_contain_text(flip)


def key(scope, name: str):
    return scope.get_by_role("button", name=name, exact=True)


# ---------------------------------------------------------------- what the pad offers (no browser)

def test_sixty_nine_pad_leaves_out_public_cards():
    ui = ui_for("sixty-nine")
    view = {"table": [{"id": 1, "cards": ["3A", "WILD"]}],
            "captured": {"Ann": [{"id": 2, "cards": ["4B", "5C", "WILD", "WILD"]}], "Bob": []}}
    rows = ui.card_pad(view)
    assert [r["mark"] for r in rows] == list(SUITS) + [""]
    offered = {k["code"]: k for r in rows for k in r["keys"]}
    assert len(offered) == 63
    assert not offered["3A"]["offered"] and not offered["4B"]["offered"] and not offered["5C"]["offered"]
    assert offered["6B"]["offered"] and offered["6B"]["single"]
    assert not offered["WILD"]["offered"]  # all three Wilds are public
    assert offered["LOCK"]["offered"] and not offered["LOCK"]["single"]
    # a Scramble's new arrangement may use the table's cards, never the captured ones
    again = {k["code"]: k for r in ui.card_pad(view, keep_table=True) for k in r["keys"]}
    assert again["3A"]["offered"] and not again["4B"]["offered"]


def test_five_crowns_pad_rows():
    rows = ui_for("five-crowns").card_pad({})
    assert [r["label"] for r in rows] == ["Stars", "Hearts", "Clubs", "Spades", "Diamonds", "Jokers"]
    assert [k["text"] for k in rows[1]["keys"]] == ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    assert rows[1]["keys"][8]["name"] == "Jack of hearts"
    assert not any(k["single"] for r in rows for k in r["keys"])  # two decks: every key adds a copy


# ---------------------------------------------------------------- in the browser

@pytest.mark.browser
def test_sixty_nine_play_from_the_pad(phone, live_server):
    _, page = table_phone(phone, live_server, "sixty-nine", ["Ann", "Bob", "Cid"])
    deal_69(page, "3A")
    form = page.locator("#play-form")
    pad = form.locator("[data-pad]")
    expect(pad).to_be_visible()
    form.locator("input[name=set] + span").first.click()
    key(form, "Add 4 of B").click()
    key(form, "Add 5 of C").click()
    field = form.locator("input[name=cards]")
    expect(field).to_have_value("4B 5C")
    expect(key(form, "Add 4 of B")).to_have_attribute("aria-pressed", "true")
    expect(key(form, "Add 6 of C")).to_have_attribute("aria-pressed", "false")
    phone.screenshot("card-pad-sixty-nine")
    submit(page, "play-form")
    expect(page.locator("#refused")).to_have_count(0)
    expect(page.locator(".sets")).to_contain_text("4B")
    expect(page.locator(".sets")).to_contain_text("5C")
    # the played cards are on the table now: no longer offered on the next form's pad
    expect(page.locator("#moves button[data-code='4B']")).to_have_count(0)
    expect(page.locator("#moves button[data-code='6D']").first).to_be_attached()


@pytest.mark.browser
def test_sixty_nine_pad_toggles_single_cards(phone, live_server):
    _, page = table_phone(phone, live_server, "sixty-nine", ["Ann", "Bob", "Cid"])
    deal_69(page, "3A")
    form = page.locator("#play-form")
    field = form.locator("input[name=cards]")
    six_b = key(form, "Add 6 of B")
    six_b.click()
    expect(field).to_have_value("6B")
    expect(six_b).to_have_attribute("aria-pressed", "true")
    six_b.click()  # tapped twice: out again
    expect(field).to_have_value("")
    expect(six_b).to_have_attribute("aria-pressed", "false")
    key(form, "Add 6 of B").click()
    key(form, "Add 7 of C").click()
    key(form, "Add 6 of B").click()
    expect(field).to_have_value("7C")
    # specials exist three times: they add, never toggle
    key(form, "Add Wild").click()
    key(form, "Add Wild").click()
    expect(field).to_have_value("7C WILD WILD")
    expect(key(form, "Add Wild")).not_to_have_attribute("aria-pressed", re.compile("."))
    form.get_by_role("button", name="Remove last").click()
    expect(field).to_have_value("7C WILD")
    # typing keeps the keys in step
    field.fill("7c 2d")
    expect(key(form, "Add 2 of D")).to_have_attribute("aria-pressed", "true")
    expect(key(form, "Add 7 of C")).to_have_attribute("aria-pressed", "true")
    form.get_by_role("button", name="Clear").click()
    expect(field).to_have_value("")
    expect(form.locator("[aria-pressed=true]")).to_have_count(0)


@pytest.mark.browser
def test_sixty_nine_scramble_from_the_pads(phone, live_server):
    _, page = table_phone(phone, live_server, "sixty-nine", ["Ann", "Bob", "Cid"])
    deal_69(page, "SCRAMBLE")  # the dealer may scramble at once
    form = page.locator("#scramble-form")
    hand = form.locator("[data-padded]", has=page.locator("input[name=from_hand]"))
    lines = form.locator("[data-padded]", has=page.locator("textarea[name=arrangement]"))
    key(hand, "Add 4 of B").click()
    key(hand, "Add 5 of C").click()
    expect(hand.locator("input")).to_have_value("4B 5C")
    lines.locator("[data-pad] > summary").click()
    for name in ("Add Scramble", "Add 4 of B", "Add 5 of C"):
        key(lines, name).click()
    expect(lines.locator("textarea")).to_have_value("SCRAMBLE 4B 5C")
    expect(key(lines, "Add 4 of B")).to_have_attribute("aria-pressed", "true")
    submit(page, "scramble-form")
    expect(page.locator("#refused")).to_have_count(0)
    expect(page.locator(".sets")).to_contain_text("5C")


@pytest.mark.browser
def test_sixty_nine_pad_leaves_out_table_cards(phone, live_server):
    _, page = table_phone(phone, live_server, "sixty-nine", ["Ann", "Bob", "Cid"])
    deal_69(page, "3A")
    form = page.locator("#play-form")
    expect(form.locator("button[data-code='3A']")).to_have_count(0)
    expect(key(form, "Add 3 of A")).to_have_count(0)
    expect(form.locator(".pad-row[aria-label='Suit A'] .pad-gap")).to_have_text("3")
    expect(form.locator("button[data-code]")).to_have_count(62)  # 60 numbers + 3 specials - 3A
    expect(key(form, "Add 3 of B")).to_be_visible()


SIZES = "els => els.map(e => [e.getBoundingClientRect().width, e.getBoundingClientRect().height])"


@pytest.mark.browser
def test_sixty_nine_pad_fits_360(phones):
    phone = phones(viewport={"width": 360, "height": 740})
    _, page = table_phone(phone, phone.base, "sixty-nine", ["Ann", "Bob", "Cid"])
    deal_69(page, "3A")
    pad = page.locator("#play-form [data-pad]")
    expect(pad).to_have_attribute("open", "")
    expect(pad).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    sizes = page.eval_on_selector_all("#play-form [data-pad] button", SIZES)
    assert len(sizes) == 62 + 2 and min(min(w, h) for w, h in sizes) >= 44  # tap targets, both ways
    for row in range(6):  # each suit on two lines: 0-4 and 5-9
        tops = page.eval_on_selector_all(f"#play-form .pad-row[aria-label='Suit {SUITS[row]}'] button",
                                         "els => new Set(els.map(e => Math.round(e.getBoundingClientRect().top))).size")
        assert tops == 2


@pytest.mark.browser
def test_five_crowns_pad_with_duplicates(phone, live_server):
    _, page = table_phone(phone, live_server, "five-crowns", ["Ann", "Bob", "Cid"])
    page.locator("#deal-form select[name=discard]").select_option("7H")
    submit(page, "deal-form")
    page.locator("summary", has_text="round result").click()
    form = page.locator("#round-result-form")
    form.locator("select[name=went_out]").select_option("Ann")
    form.locator("input[name='points-1']").fill("25")
    box = form.locator("[data-padded]", has=page.locator("input[name='cards-2']"))
    box.locator("[data-pad] > summary").click()
    key(box, "Add 8 of hearts").click()
    key(box, "Add 8 of hearts").click()  # two decks: the same card twice
    key(box, "Add King of stars").click()
    expect(box.locator("input[name='cards-2']")).to_have_value("8H 8H K*")
    box.get_by_role("button", name="Remove last").click()
    key(box, "Add Joker").click()
    expect(box.locator("input[name='cards-2']")).to_have_value("8H 8H JK")  # round 1: three cards
    expect(key(box, "Add 8 of hearts")).not_to_have_attribute("aria-pressed", re.compile("."))
    heights = box.locator("[data-pad] button").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().height)")
    assert min(heights) >= 44
    phone.screenshot("card-pad-five-crowns")
    page.set_viewport_size({"width": 360, "height": 740})  # eleven ranks on two lines still fit
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    sizes = box.locator("[data-pad] button").evaluate_all(SIZES)
    assert min(min(w, h) for w, h in sizes) >= 44
    assert box.locator("[data-pad] button").evaluate_all("els => els.every(e => e.scrollWidth <= e.clientWidth)")
    page.set_viewport_size({"width": 390, "height": 844})
    submit(page, "round-result-form")
    expect(page.locator("#refused")).to_have_count(0)
    expect(page.locator("table.sheet tbody tr")).to_have_count(1)
    expect(page.locator("table.sheet")).to_contain_text("25")


@pytest.mark.browser
def test_five_crowns_pad_fills_meld_lines(phone, live_server):
    _, page = table_phone(phone, live_server, "five-crowns", ["Ann", "Bob", "Cid"])
    page.locator("#deal-form select[name=discard]").select_option("7H")
    submit(page, "deal-form")
    page.locator("#draw-form input[name=source][value=stock] + span").click()
    submit(page, "draw-form")
    page.locator("summary", has_text="goes out").click()
    form = page.locator("#go-out-form")
    # the cards alone are the first choice (FC-6 finds the melds); the melds are one tap further
    expect(form.locator("input[name=cards]")).to_be_visible()
    form.locator("summary", has_text="say the melds yourself").click()
    form = form.locator("details", has=page.locator("textarea[name=melds]"))
    form.locator("[data-pad] > summary").click()
    melds = form.locator("textarea[name=melds]")
    for name in ("Add 7 of hearts", "Add 7 of spades", "Add 7 of diamonds"):
        key(form, name).click()
    form.get_by_role("button", name="New line").click()
    for name in ("Add 8 of clubs", "Add 9 of clubs", "Add 10 of clubs", "Add 10 of clubs"):
        key(form, name).click()
    form.get_by_role("button", name="Remove last").click()
    expect(melds).to_have_value("7H 7S 7D\n8C 9C 10C")
    # put the caret on the first line: the keys now add to that line
    melds.click()
    melds.press("Control+Home")
    melds.press("End")
    key(form, "Add Joker").click()
    expect(melds).to_have_value("7H 7S 7D JK\n8C 9C 10C")


@pytest.mark.browser
def test_card_pad_without_scripts(phones):
    phone = phones(scripts=False)
    _, page = table_phone(phone, phone.base, "sixty-nine", ["Ann", "Bob", "Cid"])
    deal_69(page, "3A")
    form = page.locator("#play-form")
    expect(form.locator("[data-pad]")).to_be_hidden()
    expect(form.locator("[data-pad]")).to_have_attribute("hidden", "")
    expect(form.locator("button[data-code='4B']")).to_be_hidden()
    form.locator("input[name=set] + span").first.click()
    form.locator("input[name=cards]").fill("4B 5C")
    submit(page, "play-form")
    expect(page.locator("#refused")).to_have_count(0)
    expect(page.locator(".sets")).to_contain_text("5C")
    phone.screenshot("card-pad-no-scripts")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


@pytest.mark.browser
def test_nines_grid_pad_fills_the_chosen_cell_then_the_next(phone, live_server):
    _, page = table_phone(phone, live_server, "nines", ["Ann", "Bob"])
    form = page.locator("#deal-form")
    form.locator("select[name=discard]").select_option("5H")
    pad = form.locator("[data-pad-grid]")
    expect(pad).to_be_visible()
    pad.locator("summary").click()
    form.locator("input[name='g-0-3']").click()  # Ann's middle row
    for name in ("Add Ace of spades", "Add 2 of spades", "Add 3 of spades"):
        key(pad, name).click()
    assert [form.locator(f"input[name='g-0-{pos}']").input_value() for pos in (3, 4, 5)] == ["AS", "2S", "3S"]
    form.locator("input[name='g-1-0']").click()
    key(pad, "Add King of hearts").click()
    key(pad, "Add King of hearts").click()  # several decks: the same card again
    pad.get_by_role("button", name="Clear cell").click()  # the cell the next key would fill
    expect(form.locator("input[name='g-1-1']")).to_have_value("KH")
    form.locator("input[name='g-1-2']").click()
    key(pad, "Add Joker").click()
    expect(form.locator("input[name='g-1-2']")).to_have_value("JK")
    form.locator("input[name='g-1-1']").click()
    pad.get_by_role("button", name="Clear cell").click()
    key(pad, "Add Queen of clubs").click()
    key(pad, "Add 7 of diamonds").click()  # fills the next empty cell after 1: cell 3
    values = [form.locator(f"input[name='g-1-{pos}']").input_value() for pos in range(9)]
    assert values[:4] == ["KH", "QC", "JK", "7D"]
    form.locator("input[name='g-1-3']").click()
    pad.get_by_role("button", name="Clear cell").click()  # Bob turned up three cards, not four
    expect(form.locator("input[name='g-1-3']")).to_have_value("")
    page.set_viewport_size({"width": 360, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    sizes = pad.locator("button").evaluate_all(SIZES)
    assert min(min(w, h) for w, h in sizes) >= 44
    page.set_viewport_size({"width": 390, "height": 844})
    phone.screenshot("card-pad-nines")
    submit(page, "deal-form")
    expect(page.locator("#refused")).to_have_count(0)
    expect(page.locator(".grids")).to_contain_text("K")
