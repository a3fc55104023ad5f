"""Ninety-nine through the pages, in headless Chromium: start, share, play, refuse, undo, follow."""
from __future__ import annotations

import re

import pytest
import requests
from playwright.sync_api import expect

from web_helpers import join, make_link, open_link

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


def play(page, rank: str, suit: str, value: str | None = None):
    page.locator("#play-form .ranks label.chip", has_text=re.compile(rf"^{re.escape(rank)}$")).click()
    page.locator(f"#play-form input[name=suit][value='{suit}'] + span").click()
    if value is not None:
        name = "value10" if rank == "10" else "valueA"
        page.locator(f"#play-form input[name={name}][value='{value}'] + span").click()
    page.get_by_role("button", name=re.compile("Play the card")).click()
    page.wait_for_load_state()


def test_start_play_refuse_undo_and_look_back(phone):
    page = phone.page
    phone.goto("/")
    page.get_by_role("link", name=re.compile("Ninety-nine")).click()
    page.get_by_label(re.compile("Players, one name per line")).fill("Ann\nBob\nCid")
    assert page.get_by_label(re.compile("^Tokens")).get_attribute("placeholder") == "9"
    page.get_by_role("button", name="Start the game").click()
    # the share page: a follower link with its QR code and, for the table, the table link
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

    # a 10 played without saying +10 or -10: the engine refuses it, with its ruling
    page.locator("#play-form .ranks label.chip", has_text=re.compile(r"^10$")).click()
    assert page.locator("fieldset[data-rank='10']").is_visible()
    assert not page.locator("fieldset[data-rank='A']").is_visible()
    page.locator("#play-form input[name=suit][value='D'] + span").click()
    page.get_by_role("button", name=re.compile("Play the card")).click()
    refused = page.locator("#refused")
    assert "N99-3" in refused.inner_text()
    assert "declared" in refused.inner_text()
    assert page.locator("#total").inner_text() == "17"

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
    page.locator("#play-form input[name=rank][value='6']").check()
    page.locator("#play-form input[name=suit][value='C']").check()
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("p")
    expect(page.locator("#total")).to_have_text("11")
    # typing in a text box never triggers a shortcut
    page.locator("details.advanced summary").click()
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
    page.locator("details.minor summary").click()
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
    # without the script both value groups show; the engine still decides
    assert page.locator("fieldset[data-rank='A']").is_visible()
    play(page, "A", "H", "11")
    assert page.locator("#total").inner_text() == "11"
    play(page, "Q", "H")
    assert page.locator("#total").inner_text() == "21"
