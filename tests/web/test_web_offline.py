"""The pages offline (issue 15, "Offline"): the web app manifest, the service worker that keeps the app
shell and the pages a phone opens, and the outbox that keeps the moves entered without a network and
sends them when it returns: once each (Idempotency-Key), on the table they were made on (If-Match),
refused rather than applied when the table moved on."""
from __future__ import annotations

import re
import struct
import time

import pytest
import requests
from playwright.sync_api import Error as PlaywrightError, expect

from web_helpers import table_phone

GAME = "ninety-nine"
PLAYERS = ["Ann", "Bob", "Cid"]
# What a browser logs by itself while the network is gone, or when a kept move is refused (the
# outbox reads the refusal): expected here, never from the pages' own code.
NETWORK_NOISE = re.compile(r"net::ERR_INTERNET_DISCONNECTED|the server responded with a status of 4(12|22) ")


# ---------------------------------------------------------------- without a browser

def test_service_worker_is_served_from_the_root(client):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.mimetype == "text/javascript"
    assert response.headers["Service-Worker-Allowed"] == "/"
    assert response.headers["Cache-Control"] == "no-cache"
    body = response.get_data(as_text=True)
    version = re.search(r'const VERSION = "([0-9a-f]{16})";', body)
    assert version, body[:500]
    for shell in ("/static/web/app.css", "/static/web/app.js", "/static/web/offline.js", "/static/web/icon-192.png",
                  "/manifest.webmanifest"):
        assert f'"{shell}"' in body
    assert 'const OFFLINE = "/offline";' in body
    assert client.get("/sw.js").get_data(as_text=True) == body  # one version per deploy
    offline = client.get("/offline")
    assert offline.status_code == 200 and "No network" in offline.get_data(as_text=True)


def test_manifest_is_served_as_a_manifest(client):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.mimetype == "application/manifest+json"
    assert response.get_json()["start_url"] == "/"


def test_the_outbox_gets_each_verdict_as_json(client, api, table_client):
    """The outbox posts the page's own move form asking for JSON: the new ETag when applied (once per
    key: a retry replays the answer), a 412 problem when the table moved on, a 422 naming the ruling
    (with its badge) when illegal; the form endpoint keeps its CSRF check and its pages."""
    game = api.create(GAME, PLAYERS)
    table = table_client(game)
    html = table.get(f"/g/{game['id']}").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    url, wants = f"/g/{game['id']}/move", {"Accept": "application/json"}
    move = {"csrf_token": token, "type": "play", "player": "Ann", "rank": "7", "suit": "H", "version": "0",
            "idempotency_key": "outbox-1"}

    applied = table.post(url, data=move, headers=wants)
    assert applied.status_code == 201 and applied.mimetype == "application/json"
    assert applied.get_json() == {"etag": "1", "version": 1, "replayed": False}
    again = table.post(url, data=move, headers=wants)  # the answer was lost: the same key, the same answer
    assert again.status_code == 201 and again.get_json() == {"etag": "1", "version": 1, "replayed": True}
    assert api.state(game)["version"] == 1

    stale = table.post(url, data={**move, "idempotency_key": "outbox-2", "player": "Bob", "rank": "K"}, headers=wants)
    assert stale.status_code == 412 and stale.mimetype == "application/problem+json"
    assert "Another phone entered a move first" in stale.get_json()["detail"]
    assert stale.headers["ETag"] == '"1"'

    illegal = table.post(url, data={**move, "idempotency_key": "outbox-3", "player": "Bob", "rank": "10",
                                    "suit": "D", "version": "1"}, headers=wants)
    assert illegal.status_code == 422 and illegal.mimetype == "application/problem+json"
    problem = illegal.get_json()
    assert problem["rule"] == "N99-3" and "declared" in problem["detail"]
    assert 'href="/rules/ninety-nine#N99-3"' in problem["badge"] and ">Ruling N99-3</a>" in problem["badge"]
    assert api.state(game)["version"] == 1

    expired = table.post(url, data={**move, "csrf_token": "nope", "idempotency_key": "outbox-4"}, headers=wants)
    assert expired.status_code == 400 and expired.mimetype == "application/problem+json"
    follower = client.post(url, data=move, headers=wants)  # no key to the table (and no CSRF session)
    assert follower.status_code in (400, 403) and follower.mimetype == "application/problem+json"
    page = table.post(url, data={**move, "idempotency_key": "outbox-5", "player": "Bob", "rank": "K", "version": "1"})
    assert page.status_code == 302  # a plain form post still gets the page
    assert api.state(game)["version"] == 2


def test_a_deploy_names_a_new_cache(tmp_path, monkeypatch):
    """The worker's cache is named after the web layer's files: any change to them is a new cache."""
    import shutil

    from referee.web import offline

    for folder in ("static", "templates"):
        shutil.copytree(offline.HERE / folder, tmp_path / folder)
    monkeypatch.setattr(offline, "HERE", tmp_path)
    before = offline.shell_version.__wrapped__()
    assert re.fullmatch(r"[0-9a-f]{16}", before) and offline.shell_version.__wrapped__() == before
    with open(tmp_path / "static" / "app.css", "a", encoding="utf-8") as css:
        css.write("/* the next deploy */\n")
    assert offline.shell_version.__wrapped__() != before


# ---------------------------------------------------------------- in Chromium

def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def wait_until(check, what: str, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.1)


def controlled(page):
    """The worker registers and controls the page. A page still loading while the worker started is
    not claimed by it (a client not yet ready): the next visit is, so it is reloaded once."""
    if not page.evaluate("async () => { await navigator.serviceWorker.ready; return !!navigator.serviceWorker.controller; }"):
        page.reload()
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL").endswith("/sw.js")


KEPT = """async (path) => {
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    if (await cache.match(location.origin + path, {ignoreVary: true})) return true;
  }
  return false;
}"""


def kept(page, path: str):
    wait_until(lambda: page.evaluate(KEPT, path), f"{path} kept by the service worker")


def offline_table(phone, live_server):
    """A table phone on a Ninety-nine game whose page the service worker controls and keeps."""
    game, page = table_phone(phone, live_server, GAME, PLAYERS)
    controlled(page)
    kept(page, f"/g/{game['id']}")
    return game, page


def outbox(page, game_id: str) -> list:
    return page.evaluate("(id) => RefereeOutbox.list(id)", game_id)


def settled(page, game_id: str) -> bool:
    """The outbox is empty (the page may be reloading: then not yet)."""
    try:
        return not outbox(page, game_id)
    except PlaywrightError:
        return False


def api_moves(base: str, game: dict) -> list:
    response = requests.get(f"{base}/api/v1/games/{game['id']}/moves", timeout=5)
    assert response.status_code == 200, response.text
    body = response.json()
    return body["moves"] if isinstance(body, dict) else body


def api_state(base: str, game: dict) -> dict:
    return requests.get(f"{base}/api/v1/games/{game['id']}", timeout=5).json()


def api_move(base: str, game: dict, move: dict) -> dict:
    response = requests.post(f"{base}/api/v1/games/{game['id']}/moves", json=move, timeout=5,
                             headers={"Authorization": f"Bearer {game['token']}"})
    assert response.status_code == 201, response.text
    return response.json()


def play(page, rank: str, suit: str):
    page.locator(f"#play-form button[name=card][value='{rank}{suit}']").click()  # one tap a card


def send_json(page, move: str):
    page.locator("details#more summary").click()
    page.locator("details#more textarea[name=json]").fill(move)
    page.get_by_role("button", name="Send the move").click()


def quiet(phone):
    """Drop what the browser logs by itself about the network being gone (the fixture then checks
    that nothing else was logged)."""
    phone.errors[:] = [e for e in phone.errors if not NETWORK_NOISE.search(e)]


def go_offline(phone, page) -> None:
    """The phone loses the network, and its page knows it (Chromium tells navigator.onLine a moment
    after the emulation starts; a form sent meanwhile would be posted, not kept)."""
    phone.context.set_offline(True)
    page.wait_for_function("() => navigator.onLine === false")


@pytest.mark.browser
def test_manifest_is_linked_and_installable(phone, live_server):
    page = phone.page
    phone.goto("/")
    href = page.locator("link[rel=manifest]").get_attribute("href")
    response = page.request.get(live_server + href)
    assert response.status == 200
    assert response.headers["content-type"].startswith("application/manifest+json")
    manifest = response.json()
    assert manifest["name"] and manifest["short_name"] == "Referee"
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    for colours in (manifest, manifest["user_preferences"]["color_scheme_dark"]):
        assert re.fullmatch(r"#[0-9a-f]{6}", colours["theme_color"])
        assert re.fullmatch(r"#[0-9a-f]{6}", colours["background_color"])
    assert manifest["theme_color"] != manifest["user_preferences"]["color_scheme_dark"]["theme_color"]
    sizes = {}
    for icon in manifest["icons"]:
        got = page.request.get(live_server + icon["src"])
        assert got.status == 200, icon
        assert got.headers["content-type"].startswith(icon["type"]), icon
        if icon["type"] == "image/png":
            width, height = png_size(got.body())
            assert icon["sizes"] == f"{width}x{height}", icon
            sizes.setdefault(icon.get("purpose", "any"), set()).add(width)
    assert {192, 512} <= sizes["any"]
    assert sizes["maskable"]
    themes = page.locator("meta[name=theme-color]")
    assert themes.count() == 2
    assert {themes.nth(i).get_attribute("media") for i in range(2)} == {
        "(prefers-color-scheme: light)", "(prefers-color-scheme: dark)"}
    assert page.locator("link[rel=icon]").get_attribute("href").endswith(".svg")
    assert page.request.get(live_server + page.locator("link[rel=apple-touch-icon]").get_attribute("href")).ok


@pytest.mark.browser
def test_the_open_game_and_the_home_page_load_without_a_network(phone, live_server):
    game, page = offline_table(phone, live_server)
    kept(page, "/")
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL") == f"{live_server}/sw.js"
    api_move(live_server, game, {"type": "play", "player": "Ann", "card": "8C"})
    expect(page.locator("#total")).to_have_text("8")  # the live update; the page is kept again
    wait_until(lambda: page.evaluate("""async (path) => {
        const cache = await caches.open((await caches.keys()).find((k) => k.startsWith("referee-v-")));
        const kept = await cache.match(location.origin + path, {ignoreVary: true});
        return kept ? (await kept.text()).includes('data-version="1"') : false;
    }""", f"/g/{game['id']}"), "the page kept as the table is now")

    phone.context.set_offline(True)
    page.reload()
    expect(page.locator("h1")).to_contain_text("Ninety-nine")
    expect(page.locator("#total")).to_have_text("8")
    expect(page.locator("#outbox-net")).to_be_visible()  # it says the network is gone
    assert page.evaluate("getComputedStyle(document.querySelector('.top')).display") == "flex"  # styles kept
    phone.goto("/")
    expect(page.get_by_role("link", name=re.compile("Ninety-nine: Ann, Bob, Cid"))).to_be_visible()
    phone.goto(f"/g/{game['id']}/share")  # never opened: the offline page says so
    expect(page.locator("h1")).to_have_text("No network")
    phone.context.set_offline(False)
    quiet(phone)


@pytest.mark.browser
def test_a_deploy_replaces_the_cache(phone, live_server, monkeypatch):
    from referee.web import offline

    game, page = offline_table(phone, live_server)
    caches = "async () => (await caches.keys()).filter((k) => k.startsWith('referee-v-'))"
    [old] = page.evaluate(caches)
    monkeypatch.setattr(offline, "shell_version", lambda: "0123456789abcdef")  # the next deploy
    page.evaluate("async () => { await (await navigator.serviceWorker.getRegistration()).update(); }")
    wait_until(lambda: page.evaluate(caches) == ["referee-v-0123456789abcdef"], "the old cache replaced")
    assert old != "referee-v-0123456789abcdef"
    kept(page, "/")  # the new cache keeps the shell and the home page again, and the open page
    kept(page, f"/g/{game['id']}")
    phone.context.set_offline(True)
    page.reload()
    expect(page.locator("#total")).to_have_text("0")
    phone.goto("/")
    expect(page.get_by_role("link", name=re.compile("Ninety-nine: Ann, Bob, Cid"))).to_be_visible()
    phone.context.set_offline(False)
    quiet(phone)


@pytest.mark.browser
def test_moves_entered_offline_wait_and_are_sent_once_in_order(phone, live_server):
    game, page = offline_table(phone, live_server)
    go_offline(phone, page)
    play(page, "7", "H")
    expect(page.locator("#outbox-status")).to_have_text("1 move waiting to be sent")
    expect(page.locator("#outbox-list li")).to_have_count(1)
    expect(page.locator("#outbox-list li").first).to_contain_text("Play 7 of hearts")
    # a second move, made on the table as it will be after the first (Bob plays next)
    send_json(page, '{"type": "play", "player": "Bob", "card": "KS"}')
    expect(page.locator("#outbox-status")).to_have_text("2 moves waiting to be sent")
    kept_moves = outbox(page, game["id"])
    assert [m["version"] for m in kept_moves][0] == "0" and kept_moves[1]["chained"]
    assert kept_moves[0]["key"] != kept_moves[1]["key"]
    # the outbox outlives the page. (Chromium's offline emulation reaches a new document's
    # navigator.onLine a moment late, and never the service worker's own fetch: the reloaded page
    # would send at once. A phone that is offline knows it from the start: so does this one.)
    page.add_init_script("""(() => {
      const real = Object.getOwnPropertyDescriptor(Navigator.prototype, "onLine").get;
      Object.defineProperty(Navigator.prototype, "onLine", {configurable: true, get() {
        return sessionStorage.getItem("test-offline") ? false : real.call(this); }});
    })()""")
    page.evaluate("sessionStorage.setItem('test-offline', '1')")
    page.reload()
    expect(page.locator("#outbox-status")).to_have_text("2 moves waiting to be sent")
    assert api_state(live_server, game)["version"] == 0
    page.evaluate("sessionStorage.removeItem('test-offline')")

    # the online event: the outbox is sent, then the page reloads (the stream may show the new total
    # before it: the reload is waited for, so that nothing below runs in the page it leaves)
    with page.expect_navigation():
        phone.context.set_offline(False)
    expect(page.locator("#total")).to_have_text("17")
    expect(page.locator("#outbox")).to_be_hidden()
    moves = api_moves(live_server, game)
    assert [(m["version"], m["move"]["player"], m["move"]["card"]) for m in moves] == [
        (1, "Ann", "7H"), (2, "Bob", "KS")]

    # the page sends the first again (its answer was lost, say): the key replays it, nothing applies twice
    page.evaluate("(entry) => { delete entry.seq; return RefereeOutbox.keep(entry); }", kept_moves[0])
    page.reload()
    wait_until(lambda: settled(page, game["id"]), "the retried move settled")
    page.wait_for_load_state()
    expect(page.locator("#outbox")).to_be_hidden()
    assert len(api_moves(live_server, game)) == 2
    assert api_state(live_server, game)["version"] == 2
    quiet(phone)


@pytest.mark.browser
def test_a_stale_offline_move_is_refused_and_the_rest_held(phone, live_server):
    game, page = offline_table(phone, live_server)
    go_offline(phone, page)
    play(page, "7", "H")
    send_json(page, '{"type": "play", "player": "Bob", "card": "KS"}')
    expect(page.locator("#outbox-status")).to_have_text("2 moves waiting to be sent")
    api_move(live_server, game, {"type": "play", "player": "Ann", "card": "8C"})  # another phone, meanwhile

    phone.context.set_offline(False)
    refused = page.locator("#outbox-list li.refused")
    expect(refused).to_contain_text("Refused on return: Play 7 of hearts")
    expect(refused).to_contain_text("The game moved on before this move arrived")
    expect(refused).to_contain_text("enter the move again")
    expect(refused).to_be_focused()
    held = page.locator("#outbox-list li.held")
    expect(held).to_contain_text("Held, not sent")
    expect(page.locator("#total")).to_have_text("8")  # the table as it is now
    assert [(m["move"]["player"], m["move"]["card"]) for m in api_moves(live_server, game)] == [("Ann", "8C")]

    refused.get_by_role("button", name="Discard").click()
    expect(page.locator("#outbox-list li")).to_have_count(1)
    assert api_state(live_server, game)["version"] == 1  # a held move is never sent by itself
    # the table checks: Bob's K still stands on the table as it is now
    page.locator("#outbox-list li.held").get_by_role("button", name="Send it on the table as it is now").click()
    expect(page.locator("#total")).to_have_text("18")
    expect(page.locator("#outbox")).to_be_hidden()
    assert [(m["version"], m["move"]["card"]) for m in api_moves(live_server, game)] == [(1, "8C"), (2, "KS")]
    quiet(phone)


@pytest.mark.browser
def test_an_illegal_offline_move_shows_its_ruling(phone, live_server):
    game, page = offline_table(phone, live_server)
    go_offline(phone, page)
    # another phone plays the 7H meanwhile; this phone, offline, enters the 7H too: one deck holds one
    api_move(live_server, game, {"type": "play", "player": "Ann", "card": "7H"})
    play(page, "7", "H")
    expect(page.locator("#outbox-status")).to_have_text("1 move waiting to be sent")
    page.evaluate("(id) => RefereeOutbox.list(id).then(l => { l[0].version = '1'; "
                  "return RefereeOutbox.settle([], l); })", game["id"])  # made on the table after it

    phone.context.set_offline(False)
    refused = page.locator("#outbox-list li.refused")
    badge = refused.locator("a.rule")
    expect(badge).to_have_text(re.compile(r"Ruling N99-\d+"))
    rule = badge.inner_text().split()[-1]
    assert badge.get_attribute("href").endswith(f"/rules/ninety-nine#{rule}")
    expect(refused).to_contain_text("discard it")
    assert refused.get_by_role("button", name="Send it on the table as it is now").count() == 0
    assert api_state(live_server, game)["version"] == 1
    refused.get_by_role("button", name="Discard").click()
    expect(page.locator("#outbox")).to_be_hidden()
    quiet(phone)


@pytest.mark.browser
def test_a_post_that_fails_on_the_way_is_kept_by_the_service_worker(phone, live_server):
    """The phone believes it is online (wifi up, no internet): the form posts as usual, the post
    fails, and the service worker keeps the move, with the form's own key."""
    game, page = offline_table(phone, live_server)
    page.add_init_script("Object.defineProperty(Navigator.prototype, 'onLine', {get: () => true})")
    page.reload()
    controlled(page)
    key = page.locator("#play-form input[name=idempotency_key]").input_value()
    phone.context.set_offline(True)
    play(page, "7", "H")
    expect(page.locator("#outbox-status")).to_have_text("1 move waiting to be sent")
    expect(page.locator("#outbox-list li").first).to_contain_text("Play 7 of hearts")
    assert page.url.endswith(f"/g/{game['id']}#moves")
    [entry] = outbox(page, game["id"])
    assert entry["key"] == key and entry["version"] == "0"

    phone.context.set_offline(False)
    expect(page.locator("#total")).to_have_text("7")
    expect(page.locator("#outbox")).to_be_hidden()
    assert [m["move"]["card"] for m in api_moves(live_server, game)] == ["7H"]
    quiet(phone)



@pytest.mark.browser
def test_cards_queued_offline_one_after_another_go_to_the_players_they_imply(phone, live_server):
    """Issue 33: the second card queued offline kept the first card's player and was refused on
    return. Tapped on the pad, a queued card names no player; it is played by whoever is to play
    when it arrives (the service implies the player to play), so Ann, Bob and Cid each play one."""
    game, page = offline_table(phone, live_server)
    go_offline(phone, page)
    for card in ("7H", "8S", "2D"):
        play(page, card[:-1], card[-1])
    expect(page.locator("#outbox-status")).to_have_text("3 moves waiting to be sent")
    phone.context.set_offline(False)
    expect(page.locator("#outbox")).to_be_hidden()
    assert [(m["move"]["player"], m["move"]["card"]) for m in api_moves(live_server, game)] == [
        ("Ann", "7H"), ("Bob", "8S"), ("Cid", "2D")]
    expect(page.locator("#total")).to_have_text("30")  # 7 + 8, doubled by the 2 (N99-3)
    quiet(phone)


def kept_text(page, path: str) -> str:
    """The HTML the service worker keeps for ``path`` ("" when it keeps none)."""
    return page.evaluate("""async (path) => {
        for (const name of await caches.keys()) {
            const kept = await (await caches.open(name)).match(location.origin + path, {ignoreVary: true});
            if (kept) return await kept.text();
        }
        return "";
    }""", path)


@pytest.mark.browser
def test_each_move_is_kept_for_offline_without_a_request(phones, live_server):
    """Issue 36: a move reaches a page in its stream's event, and the page is kept for offline use
    from that event too: not one request per move, the service worker's included (the context sees
    those, the page does not). Reloaded without a network after the moves, each page shows the table
    as it is now (without the refusal it showed once), and the table phone's kept forms (its own CSRF
    token, the new version) still take a move entered offline."""
    follower, table_at = phones(), phones()
    game, table = table_phone(table_at, live_server, GAME, PLAYERS)
    follower.goto(f"/g/{game['id']}")
    path = f"/g/{game['id']}"
    send_json(table, '{"type": "play", "player": "Ann", "card": "10D"}')  # refused: a 10 is declared (N99-3)
    expect(table.locator("#refused")).to_contain_text("Ruling N99-3")
    seen: list[str] = []
    for page in (follower.page, table):
        controlled(page)
        kept(page, path)
        expect(page.locator("#game")).to_have_attribute("data-live", "stream", timeout=5000)
        page.context.on("request", lambda request: seen.append(f"{request.method} {request.url}"))
    wait_until(lambda: 'id="refused"' in kept_text(table, path), "the refusal's page kept")

    for move, total in ((("Ann", "8C"), "8"), (("Bob", "5H"), "13"), (("Cid", "7S"), "20")):
        api_move(live_server, game, {"type": "play", "player": move[0], "card": move[1]})
        for page in (follower.page, table):
            expect(page.locator("#total")).to_have_text(total, timeout=3000)
    for page in (follower.page, table):
        wait_until(lambda page=page: 'data-version="3"' in kept_text(page, path), "the page kept as the table is now")
    assert seen == []  # the streams were open before: not a request since, by a page or its worker
    assert 'id="refused"' not in kept_text(table, path)  # shown once, as a fresh load would not show it

    for phone in (follower, table_at):
        phone.context.set_offline(True)
    follower.page.reload()
    expect(follower.page.locator("#total")).to_have_text("20")
    expect(follower.page.locator("#live .facts .turn")).to_have_text("Ann")
    table.reload()
    expect(table.locator("#total")).to_have_text("20")
    play(table, "3", "D")  # on the forms kept from the last event
    expect(table.locator("#outbox-status")).to_have_text("1 move waiting to be sent")
    assert [m["version"] for m in outbox(table, game["id"])] == ["3"]
    table_at.context.set_offline(False)
    expect(table.locator("#total")).to_have_text("23")
    expect(table.locator("#outbox")).to_be_hidden()
    assert [(m["move"]["player"], m["move"]["card"]) for m in api_moves(live_server, game)][-1] == ("Ann", "3D")
    follower.context.set_offline(False)
    for phone in (follower, table_at):
        quiet(phone)
