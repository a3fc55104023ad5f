"""Ninety-nine through the pages, in headless Chromium: start, share, play a card with one tap,
refuse, undo, follow; and a table that enters each round whole (T-4)."""
from __future__ import annotations

import re

import pytest
import requests
from playwright.sync_api import expect

from web_helpers import join, make_link, open_link, refused, submit

pytestmark = pytest.mark.browser


def game_id_from(url: str) -> str:
    return re.search(r"/g/([^/#?]+)", url).group(1)


def create_via_api(base: str, game: str, players: list[str], options=None) -> dict:
    body = {"game": game, "players": players}
    if options:
        body["options"] = options
    response = requests.post(f"{base}/api/v1/games", json=body, timeout=5)
    assert response.status_code == 201, response.text
    return response.json()


def api_move(base: str, game: dict, move: dict) -> dict:
    response = requests.post(f"{base}/api/v1/games/{game['id']}/moves", json=move, timeout=5,
                             headers={"Authorization": f"Bearer {game['token']}"})
    assert response.status_code == 201, response.text
    return response.json()


RANKS = {"A": "Ace", "J": "Jack", "Q": "Queen", "K": "King"}
SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def card_key(page, rank: str, suit: str, value: str | None = None):
    """The card grid's key for a card (and, for a 10 or an A, its declared value), by its name."""
    name = f"Play {RANKS.get(rank, rank)} of {SUITS[suit]}"
    if value is not None:
        name += " as " + value.replace("-", "−")
    return page.get_by_role("button", name=name, exact=True)


def play(page, rank: str, suit: str, value: str | None = None):
    """One tap: the card's key submits the play for the player to play (N99-3: a 10 or an A has
    a key for each value)."""
    card_key(page, rank, suit, value).click()
    page.wait_for_load_state()


def test_start_play_refuse_undo_and_look_back(phone):
    page = phone.page
    phone.goto("/")
    page.get_by_role("link", name=re.compile("Ninety-nine")).click()
    page.get_by_label(re.compile("Players, one name per line")).fill("Ann\nBob\nCid")
    assert page.get_by_label(re.compile("^Tokens")).get_attribute("placeholder") == "9"
    page.get_by_role("button", name="Start the game").click()
    # the game page first; Share at the top: a follower link with its QR code and, for the table, the table link
    page.get_by_role("link", name="Share", exact=True).click()
    assert page.locator(".qr svg").count() >= 1
    follow = page.locator("#follow-link").get_attribute("href")
    assert "/join" not in follow and "#" not in follow
    page.get_by_role("link", name="Go to the game").click()
    assert page.locator("#total").inner_text() == "0"
    assert page.locator(".facts .turn").inner_text() == "Ann"

    play(page, "7", "H")
    assert page.locator("#total").inner_text() == "7"
    assert page.locator(".facts .turn").inner_text() == "Bob"
    play(page, "K", "S")
    assert page.locator("#total").inner_text() == "17"

    # a card whose every copy is on the pile: its key is off (the pad offers what can still be
    # played); typed as JSON anyway, the engine refuses it, with its ruling
    assert card_key(page, "7", "H").is_disabled()
    page.locator("#more > summary").click()
    page.locator("#more textarea[name=json]").fill('{"type": "play", "card": "7H"}')
    page.get_by_role("button", name="Send the move").click()
    refused = page.locator("#refused")
    assert "N99-8" in refused.inner_text()
    assert "already on the pile" in refused.inner_text()
    assert page.locator("#total").inner_text() == "17"

    # a 10 has a key for each value: still one tap
    assert card_key(page, "10", "D", "+10").is_visible() and card_key(page, "10", "D", "-10").is_visible()
    play(page, "10", "D", "-10")
    assert page.locator("#total").inner_text() == "7"
    phone.screenshot("ninety-nine-game")

    # undo, with a confirmation page
    page.get_by_role("link", name=re.compile("Undo the last move")).click()
    assert "plays 10♦ as -10" in page.locator("main").inner_text()
    page.get_by_role("button", name="Yes, undo it").click()
    assert page.locator("#total").inner_text() == "17"

    # the log, with the undone move struck through, and the table after move 1
    page.get_by_role("link", name="Log").click()
    assert page.locator("li.voided del").count() == 1
    page.get_by_role("link", name=re.compile(r"^1\. Ann plays 7♥")).click()
    assert page.locator("#total").inner_text() == "7"
    assert page.locator("#play-form").count() == 0


def test_round_breakdown_chart_and_winner(phone, live_server):
    game = create_via_api(live_server, "ninety-nine", ["Ann", "Bob"], {"tokens": 4})
    round_one = [("Ann", "KS"), ("Bob", "KH"), ("Ann", "KD"), ("Bob", "KC"), ("Ann", "QS"), ("Bob", "QH"),
                 ("Ann", "QD"), ("Bob", "QC"), ("Ann", "JS"), ("Ann", "5S")]
    for player, card in round_one:
        api_move(live_server, game, {"type": "play", "player": player, "card": card})
    join(phone, game)
    page = phone.page
    play(page, "4", "S")  # Bob: 95 -> 99 wins the round, Ann loses two tokens
    expect(page.locator("#announcer")).to_contain_text("wins the round")
    sheet = page.locator("table.sheet")
    expect(sheet).to_contain_text("-3")
    breakdown = page.locator("details.breakdown").first
    expect(breakdown).to_contain_text("N99-5")
    for player, card in [("Bob", "KS"), ("Ann", "KH"), ("Bob", "KD")]:
        api_move(live_server, game, {"type": "play", "player": player, "card": card})
    page.reload()
    play(page, "K", "C")  # Ann passes 33 with her last token: out, Bob wins
    expect(page.locator(".winners")).to_contain_text("Bob")
    assert page.locator("svg.chart path.line").count() == 2
    assert page.locator("table.sheet tbody tr").count() == 2
    assert page.locator("#play-form").count() == 0
    phone.screenshot("ninety-nine-finished")


def test_follower_sees_moves_without_reload(phones, live_server):
    game = create_via_api(live_server, "ninety-nine", ["Ann", "Bob", "Cid"])
    follower = phones()
    follower.goto(f"/g/{game['id']}")
    page = follower.page
    page.evaluate("window.__same_page = true")
    assert page.locator("#play-form").count() == 0
    api_move(live_server, game, {"type": "play", "player": "Ann", "card": "8C"})
    expect(page.locator("#total")).to_have_text("8", timeout=2500)
    assert page.evaluate("window.__same_page") is True
    expect(page.locator("#announcer")).to_contain_text("Total 8", timeout=2000)


def test_table_link_sets_cookie_and_followers_cannot_post(phones, live_server):
    game = create_via_api(live_server, "ninety-nine", ["Ann", "Bob"])
    table = phones()
    link = make_link(live_server, game)
    secret = link["code"].split(".")[1]
    open_link(table, link["url"], game["id"])
    assert table.page.url == f"{live_server}/g/{game['id']}"
    assert game["token"] not in table.page.content() and secret not in table.page.content()
    cookie = [c for c in table.context.cookies() if c["name"] == "session"][0]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert not cookie["secure"]  # plain http: a Secure cookie would never come back
    assert table.page.locator("#play-form").count() == 1

    follower = phones()
    follower.goto(f"/g/{game['id']}/share")
    assert follower.page.locator("#table-link").count() == 0
    html = follower.page.content()
    assert game["token"] not in html and secret not in html
    follower.goto(f"/g/{game['id']}")
    assert follower.page.locator("#play-form").count() == 0
    assert game["token"] not in follower.page.content()
    # a post from the follower's phone is refused, even with a valid form key
    csrf = table.page.locator("#play-form input[name=csrf_token]").get_attribute("value")
    refused = follower.page.request.post(f"{live_server}/g/{game['id']}/move", form={
        "csrf_token": csrf, "type": "play", "rank": "5", "suit": "S", "player": "Ann"})
    assert refused.status in (400, 403)


def test_keyboard_shortcuts(phone, live_server):
    game = create_via_api(live_server, "ninety-nine", ["Ann", "Bob", "Cid"])
    api_move(live_server, game, {"type": "play", "player": "Ann", "card": "5S"})
    join(phone, game)
    page = phone.page
    announcer = page.locator("#announcer")
    page.keyboard.press("c")
    expect(announcer).to_have_text(re.compile(r"^Total 5, clockwise\. Bob to play"))
    page.keyboard.press("s")
    expect(announcer).to_have_text(re.compile(r"^Tokens: Ann 9, Bob 9, Cid 9"))
    assert announcer.get_attribute("aria-live") == "polite"
    key = card_key(page, "6", "C")
    key.focus()
    page.keyboard.press("Enter")   # a key of the grid is a button: the keyboard plays it too
    expect(page.locator("#total")).to_have_text("11")
    # typing in a text box never triggers a shortcut
    page.locator("#more > summary").click()
    page.locator("textarea[name=json]").fill("")
    page.locator("textarea[name=json]").press("p")
    assert page.locator("#total").inner_text() == "11"


def test_phone_layout_at_360px(phones, live_server):
    game = create_via_api(live_server, "ninety-nine", ["Annabelle Longname", "Bob", "Cid", "Dee", "Eve"])
    api_move(live_server, game, {"type": "play", "player": "Annabelle Longname", "card": "KS"})
    phone = phones({"width": 360, "height": 740})
    page = phone.page
    for path in ["/", "/new/ninety-nine", f"/g/{game['id']}/share", f"/g/{game['id']}/log",
                 f"/g/{game['id']}/join", None]:
        if path is None:
            join(phone, game)  # the table's own page, then its share page with links and phones
            for own in (f"/g/{game['id']}/share", f"/g/{game['id']}"):
                phone.goto(own)
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= 360, (own, width)
            continue
        phone.goto(path)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, (path, width)
    for summary in page.locator("details.minor > summary").all():   # what is folded too
        summary.click()
    small = page.evaluate("""() => {
        const targets = document.querySelectorAll(
            'button, a.button, .chip span, select, input[type=text], textarea, summary, header a, .log a');
        const bad = [];
        for (const el of targets) {
            const r = el.getBoundingClientRect();
            if (r.width === 0 && r.height === 0) continue;  // not shown
            if (r.height < 44 || r.width < 44) bad.push(el.outerHTML.slice(0, 80) + ' ' + r.width + 'x' + r.height);
        }
        return bad;
    }""")
    assert small == []
    phone.screenshot("ninety-nine-360")


def test_forms_work_with_scripts_off(phones, live_server):
    game = create_via_api(live_server, "ninety-nine", ["Ann", "Bob"])
    phone = phones(scripts=False)
    join(phone, game)
    page = phone.page
    # without the script every key is a plain submit button, the values of an A on keys of their own
    assert card_key(page, "A", "H", "1").is_visible() and card_key(page, "A", "H", "11").is_visible()
    play(page, "A", "H", "11")
    assert page.locator("#total").inner_text() == "11"
    play(page, "Q", "H")
    assert page.locator("#total").inner_text() == "21"


def test_every_card_is_one_tap_a_whole_round_long_n99_3(phone, live_server):
    game = create_via_api(live_server, "ninety-nine", ["Ann", "Bob"])
    join(phone, game)
    page = phone.page
    assert card_key(page, "7", "H").get_attribute("value") == "7H"
    assert card_key(page, "10", "S", "-10").get_attribute("value") == "10S:-10"
    round_one = [("K", "S", None), ("K", "H", None), ("K", "D", None), ("K", "C", None),   # 40: Bob passed 33
                 ("Q", "S", None), ("Q", "H", None), ("Q", "D", None), ("Q", "C", None),   # 80: Ann passed 66
                 ("10", "S", "+10"), ("A", "H", "11")]                                     # 90, Bob 101: over 99
    whole = page.locator("details.minor", has_text="Only keeping score?")
    expect(whole).to_have_count(1)   # before the round's first card, the round may be entered whole (T-4)
    taps = 0
    for rank, suit, value in round_one:
        play(page, rank, suit, value)   # the only tap: no player, no rank then suit, no value, no Play
        taps += 1
        expect(page.locator("#refused")).to_have_count(0)
        expect(whole).to_have_count(0 if taps < len(round_one) else 1)   # never inside a round
    state = requests.get(f"{live_server}/api/v1/games/{game['id']}", timeout=5).json()
    assert state["round"] == 2 and state["rounds"][0]["scores"] == {"Ann": -1, "Bob": -3}
    assert taps == len(round_one)   # one tap a card: the average is 1, under issue 33's 1.2
    expect(page.locator("#total")).to_have_text("0")
    expect(page.locator(".facts .turn")).to_have_text("Bob")   # round 2 starts one seat left (N99-2)


def test_a_whole_game_entered_round_by_round_through_the_page_t4(phone, live_server):
    players = ["Ann", "Bob", "Cid", "Dee"]
    game = create_via_api(live_server, "ninety-nine", players, {"record": "rounds", "tokens": 3})
    join(phone, game)
    page = phone.page
    form = page.locator("#round-result-form")
    expect(form).to_be_visible()
    assert page.locator("#play-form").count() == 0 and page.locator("#total").count() == 0
    first = page.locator("#moves form").first
    assert first.get_attribute("id") == "round-result-form"   # the first thing to enter
    taps = []

    def enter(lost: dict, ended_by: str, ending: str | None):
        count = 0
        for name, tokens in lost.items():   # the others stay at their prefilled 0: no tap
            form.locator(f"input[name=lost-{players.index(name)}]").fill(str(tokens))
            count += 1
        form.locator(f"input[name=ended_by][value='{ended_by}'] + span").click()
        count += 1
        if ending:
            form.locator(f"input[name=ending][value='{ending}'] + span").click()
            count += 1
        submit(page, "round-result-form")
        taps.append(count + 1)

    assert [form.locator(f"input[name=lost-{i}]").input_value() for i in range(4)] == ["0"] * 4
    phone.screenshot("ninety-nine-round-form")
    # a refused round comes back as typed, and says why: Bob holds three tokens
    enter({"Bob": 4, "Cid": 1}, "Bob", "passed_99")
    refused(page, "N99-6")
    expect(form.locator("input[name=lost-1]")).to_have_value("4")
    expect(form.locator("input[name=lost-2]")).to_have_value("1")
    expect(form.locator("input[name=ended_by][value='Bob']")).to_be_checked()
    expect(form.locator("input[name=ending][value='passed_99']")).to_be_checked()
    form.locator("input[name=lost-1]").fill("2")
    submit(page, "round-result-form")                                   # round 1: Bob over 99, Cid passed 33
    state = requests.get(f"{live_server}/api/v1/games/{game['id']}", timeout=5).json()
    assert state["tokens"] == {"Ann": 3, "Bob": 1, "Cid": 2, "Dee": 3} and state["to_play"] == "Bob"

    # between rounds the table may switch, under More
    page.locator("#more > summary").click()
    expect(page.locator("#switch-record-form")).to_be_visible()

    # T-1: round 1 again, from its score sheet: Dee passed 33 too
    page.locator("details.breakdown > summary").first.click()
    page.get_by_role("link", name=re.compile("Correct this round")).click()
    correct = page.locator("#correct-form")
    assert [correct.locator(f"input[name=lost-{i}]").input_value() for i in range(4)] == ["0", "2", "1", "0"]
    expect(correct.locator("input[name=ended_by][value='Bob']")).to_be_checked()
    expect(correct.locator("input[name=ending][value='passed_99']")).to_be_checked()
    correct.locator("input[name=lost-3]").fill("1")
    correct.locator("input[name=reason]").fill("Dee passed 33 too")
    submit(page, "correct-form")
    expect(page.locator("#round-result-form")).to_be_visible()
    state = requests.get(f"{live_server}/api/v1/games/{game['id']}", timeout=5).json()
    assert state["tokens"] == {"Ann": 3, "Bob": 1, "Cid": 2, "Dee": 2}

    enter({"Cid": 2, "Dee": 1}, "Cid", "no_card")                      # round 2: Cid out (N99-7)
    assert form.locator("input[name=lost-2]").count() == 0             # only the players in the game
    expect(page.locator(".tokens li.turn .name")).to_have_text("Dee")   # round 3: Cid's seat skipped (N99-2)
    enter({"Bob": 1, "Dee": 1}, "Ann", "reached_99")                   # round 3: Ann wins the game
    expect(page.locator(".winners")).to_contain_text("Ann")
    assert page.locator("#round-result-form").count() == 0
    assert all(n <= len(players) + 2 for n in taps), taps              # issue 33: a tap per player
    state = requests.get(f"{live_server}/api/v1/games/{game['id']}", timeout=5).json()
    assert state["winners"] == ["Ann"] and [r["recorded"] for r in state["rounds"]] == ["rounds"] * 3
    phone.screenshot("ninety-nine-rounds")


def test_the_card_pad_offers_only_cards_that_can_still_be_played(client, api, table_client):
    """Issue 33: a pad offers only cards that can still be there. With one deck, a card on the pile
    since the last shuffle has no copy left (N99-8): its key is disabled, a 10's both keys too."""
    game = api.create("ninety-nine", ["Ann", "Bob"], {"decks": 1})
    api.move(game, {"type": "play", "player": "Ann", "card": "7H"})
    api.move(game, {"type": "play", "player": "Bob", "card": "10S", "value": 10})
    html = table_client(game).get(f"/g/{game['id']}").get_data(as_text=True)
    for code in ("7H", "10S:10", "10S:-10"):
        assert re.search(rf'<button [^>]*value="{re.escape(code)}"[^>]*disabled', html), code
    assert not re.search(r'<button [^>]*value="7S"[^>]*disabled', html)
    assert "7H" not in api.state(game)["allowed"]["play"]["choices"]["card"]
