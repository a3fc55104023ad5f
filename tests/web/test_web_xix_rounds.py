"""XIX recorded by exchanges on the phone page (T-4, issue 33: "a tap per player"): the exchange form
is the page's move form, prefilled so that an exchange takes at most players + 2 = 4 taps; a refused
entry comes back as typed with its ruling; an exchange entered whole is corrected on its own page
(T-1). First through the test client, then a whole game in headless Chromium."""
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from web_helpers import refused, table_phone

ANN, BOB = "Ann", "Bob"
PLAYERS = [ANN, BOB]


def hidden_fields(html: str, form_id: str) -> dict:
    form = html[html.index(f'id="{form_id}"'):]
    form = form[:form.index("</form>")]
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))


def checked(html: str, form_id: str) -> dict:
    """The radio chips checked in a form: {name: value}."""
    form = html[html.index(f'id="{form_id}"'):]
    form = form[:form.index("</form>")]
    return dict(re.findall(r'<input type="radio" name="([^"]+)" value="([^"]*)"\s*checked', form))


def page(table, game) -> str:
    response = table.get(f"/g/{game['id']}")
    assert response.status_code == 200
    return response.get_data(as_text=True)


# ------------------------------------------------------------------ through the test client

def test_t4_by_exchanges_the_exchange_form_is_the_only_move_form_prefilled_with_no_strikes(api, table_client):
    game = api.create("xix", PLAYERS, {"record": "rounds"})
    table = table_client(game)
    html = page(table, game)
    moves = html[html.index('id="moves"'):]
    assert moves.index('id="exchange-result-form"') < moves.index('id="more"')
    for other in ("play-form", "decide-form", "draft-form", "trade-form"):
        assert f'id="{other}"' not in html
    assert checked(html, "exchange-result-form") == {"strikes-0": "0", "strikes-1": "0", "abandoned": ""}
    assert "Exchange 1, led by Ann" in html
    # the strike row and the hands are the table's alone: nothing of them is drawn
    assert 'class="row plain strike-row"' not in html and "Open hands" not in html


def test_t4_an_exchange_from_the_form_is_scored_and_a_refused_one_comes_back_as_typed(api, table_client):
    game = api.create("xix", PLAYERS, {"record": "rounds"})
    table = table_client(game)
    data = hidden_fields(page(table, game), "exchange-result-form")
    assert data["type"] == "exchange_result"
    # three taps: Ann 1, Bob 2, and the submit: who abandoned is missing (X19-3)
    response = table.post(f"/g/{game['id']}/move", data={**data, "strikes-0": "1", "strikes-1": "2",
                                                         "abandoned": ""})
    assert response.status_code == 302 and api.state(game)["version"] == 0
    html = page(table, game)
    assert "Ruling X19-3" in html[html.index('id="refused"'):] and "say who" in html
    assert checked(html, "exchange-result-form") == {"strikes-0": "1", "strikes-1": "2", "abandoned": ""}
    data = hidden_fields(html, "exchange-result-form")
    response = table.post(f"/g/{game['id']}/move", data={**data, "strikes-0": "1", "strikes-1": "2",
                                                         "abandoned": ANN})
    assert response.status_code == 302
    body = api.state(game)
    assert body["points"] == {ANN: 0, BOB: 3} and body["to_play"] == BOB and body["exchange"] == 2
    assert body["rounds"][0]["abandoned"] == ANN
    # strikes left as they were prefilled count 0; a third strike says who abandoned
    data = hidden_fields(page(table, game), "exchange-result-form")
    table.post(f"/g/{game['id']}/move", data={**data, "strikes-1": "3"})
    assert api.state(game)["points"] == {ANN: 3, BOB: 3}


def test_t4_version_2_asks_no_abandon(api, table_client):
    game = api.create("xix", PLAYERS, {"record": "rounds", "rules": "2.0"})
    table = table_client(game)
    html = page(table, game)
    assert 'name="abandoned"' not in html and 'href="/rules/xix#X19-8"' in html
    data = hidden_fields(html, "exchange-result-form")
    table.post(f"/g/{game['id']}/move", data={**data, "strikes-0": "2", "strikes-1": "3"})
    assert api.state(game)["points"] == {ANN: 8, BOB: 0}


def test_t4_recording_moves_the_exchange_form_waits_under_its_summary_before_the_first_card(api, table_client):
    game = api.create("xix", PLAYERS)
    table = table_client(game)
    html = page(table, game)
    assert html.index('id="play-form"') < html.index('id="exchange-result-form"')
    assert "Only keeping score? Enter the exchange whole" in html
    api.move(game, {"type": "play", "player": ANN, "card": 10, "from": "closed"})
    assert 'id="exchange-result-form"' not in page(table, game)


def test_t1_an_exchange_entered_whole_is_corrected_on_its_page_filled_as_entered(api, table_client):
    game = api.create("xix", PLAYERS, {"record": "rounds"})
    api.move(game, {"type": "exchange_result", "strikes": {ANN: 1, BOB: 2}, "abandoned": ANN})
    table = table_client(game)
    html = page(table, game)
    assert f'href="/g/{game["id"]}/correct/1"' in html
    form = table.get(f"/g/{game['id']}/correct/1").get_data(as_text=True)
    assert checked(form, "correct-form") == {"strikes-0": "1", "strikes-1": "2", "abandoned": ANN}
    data = hidden_fields(form, "correct-form")
    refusal = table.post(f"/g/{game['id']}/correct/1", data={**data, "reason": "Bob abandoned", "strikes-0": "1",
                                                             "strikes-1": "0", "abandoned": BOB})
    assert refusal.status_code == 422 and "Ruling X19-3" in refusal.get_data(as_text=True)
    assert checked(refusal.get_data(as_text=True), "correct-form")["abandoned"] == BOB
    done = table.post(f"/g/{game['id']}/correct/1", data={**data, "reason": "Bob abandoned", "strikes-0": "1",
                                                          "strikes-1": "2", "abandoned": BOB})
    assert done.status_code == 302
    body = api.state(game)
    assert body["points"] == {ANN: 3, BOB: 0} and body["to_play"] == ANN           # Ann leads now (X19-2)
    assert body["rounds"][0]["corrections"][0]["reason"] == "Bob abandoned"


def test_t4_after_a_whole_exchange_recording_moves_the_page_says_the_hands_are_not_known(api, table_client):
    game = api.create("xix", PLAYERS)
    api.move(game, {"type": "exchange_result", "strikes": {ANN: 1, BOB: 0}, "abandoned": ANN})
    html = page(table_client(game), game)
    assert 'id="hands-unknown"' in html and 'id="play-form"' in html
    row = re.search(r'<ol class="row plain strike-row" data-seat="0">(.*?)</ol>', html, re.S).group(1)
    assert re.findall(r'<span class="cardface">([^<]+)</span>', row) == ["?"] * 5


# ------------------------------------------------------------------ in Chromium

def taps_for(page, form, ann: int, bob: int, abandoned: str | None) -> int:
    """Enter an exchange as a person would, counting the taps: a chip for each strike count that is
    not the prefilled 0, one for who abandoned when it is not a third strike, and the submit."""
    taps = 0
    for seat, count in enumerate((ann, bob)):
        if count:
            form.locator(f'input[name="strikes-{seat}"][value="{count}"]').check()
            taps += 1
    if abandoned:
        form.locator(f'input[name="abandoned"][value="{abandoned}"]').check()
        taps += 1
    form.get_by_role("button", name="Score the exchange").click()
    page.wait_for_load_state()
    return taps + 1


@pytest.mark.browser
def test_t4_a_whole_game_by_exchanges_through_the_page(phone):
    _, page = table_phone(phone, phone.base, "xix", PLAYERS, {"record": "rounds"})
    form = page.locator("#exchange-result-form")
    expect(form).to_be_visible()
    # the move form comes first on the page's moves, the way it records low, under "More"
    assert page.locator("#moves form").first.get_attribute("id") == "exchange-result-form"
    expect(page.locator("#switch-record-form")).to_be_hidden()
    # a refused entry: everything typed stays, with the ruling
    assert taps_for(page, form, 1, 2, None) == 3
    refused(page, "X19-3")
    expect(form.locator('input[name="strikes-0"][value="1"]')).to_be_checked()
    expect(form.locator('input[name="strikes-1"][value="2"]')).to_be_checked()
    plan = [(1, 2, ANN, {ANN: 0, BOB: 3}),          # Bob wins 3; Ann abandoned
            (3, 2, None, {ANN: 0, BOB: 11}),        # Ann's third strike: Bob wins 8
            (2, 3, None, {ANN: 8, BOB: 11})]        # Bob's third strike: 19 awarded, the fewer points win
    for ann, bob, abandoned, points in plan:
        taps = taps_for(page, form, ann, bob, abandoned)
        assert taps <= len(PLAYERS) + 2
        for name, total in points.items():
            expect(page.locator("#live table.standings tr", has_text=name).locator("td").last).to_have_text(str(total))
    expect(page.locator(".winners")).to_contain_text(ANN)
    expect(page.locator("#exchange-result-form")).to_have_count(0)
    expect(page.locator("#scores table.sheet tbody tr")).to_have_count(3)


def test_the_card_chips_offer_only_cards_the_player_may_hold(client, api, table_client):
    """Issue 33: the page offers only cards that can still be there (X19-7): not a card played in the
    exchange, nor one in the other player's open hand or face up in the strike row."""
    game = api.create("xix", ["Ann", "Bob"])
    api.move(game, {"type": "play", "player": "Ann", "card": 7, "from": "closed"})
    html = table_client(game).get(f"/g/{game['id']}").get_data(as_text=True)
    form = re.search(r'<form [^>]*id="play-form".*?</form>', html, re.DOTALL).group(0)
    offered = {int(v) for v in re.findall(r'name="card" value="(\d+)"', form)}
    assert 7 not in offered and offered == set(range(1, 19)) - {7}
