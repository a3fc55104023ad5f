"""Pages follow a game by their event stream (issues 15, 36): each event of ``/g/<id>/live`` carries
the page's parts as they are now, so a phone shows another phone's move without a request of its
own; the parts are rendered once per language and kind of phone (at the table or following), with
slots for what is each phone's own (its CSRF token, its forms' idempotency key). Without
EventSource the page falls back to polling with If-None-Match."""
from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import expect

from referee.web import live, views
from test_web_ninety_nine import api_move, create_via_api, play
from web_helpers import join

PLAYERS = ["Ann", "Bob", "Cid"]


def first_event(client, url: str, **headers) -> tuple[str, str, dict]:
    """The first event of a page's stream, read with the test client: ``(event, id, data)``."""
    response = client.get(url, headers=headers, buffered=False)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    try:
        for chunk in response.response:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            if text.startswith("id:"):
                fields = dict(line.split(": ", 1) for line in text.strip().split("\n"))
                return fields["event"], fields["id"], json.loads(fields["data"])
    finally:
        response.close()
    raise AssertionError("the stream ended without an event")


def test_the_page_stream_sends_the_parts_as_they_are_now_with_slots_for_the_phones_own(client, api, table_client):
    game = api.create("ninety-nine", PLAYERS)
    api.move(game, {"type": "play", "player": "Ann", "card": "8C"})
    url = f"/g/{game['id']}/live?last_event_id=0"  # behind: a sync with the table now, at once
    event, ident, data = first_event(client, url)
    assert (event, ident) == ("sync", "1")
    assert {k: data[k] for k in ("kind", "version", "etag", "revision")} == {
        "kind": "sync", "version": 1, "etag": "1", "revision": 1}
    assert set(data["parts"]) == set(live.PARTS)
    assert re.search(r'id="total"[^>]*>8<', data["parts"]["live"])
    assert 'name="csrf_token"' not in data["parts"]["moves"]  # a follower has no forms
    table = table_client(game)
    _, _, held = first_event(table, url)
    moves = held["parts"]["moves"]
    assert 'id="play-form"' in moves
    # what is each phone's own is a slot, never one phone's token or key
    tokens = re.findall(r'name="csrf_token" value="([^"]*)"', moves)
    keys = re.findall(r'name="idempotency_key" value="([^"]*)"', moves)
    assert tokens and set(tokens) == {live.CSRF_SLOT}
    assert keys and all(key.startswith(live.KEY_SLOT + "-") for key in keys)
    page = table.get(f"/g/{game['id']}").get_data(as_text=True)  # the page has its own token for them
    assert re.search(r'data-csrf="[^"{]+"', page)
    assert "data-csrf" not in client.get(f"/g/{game['id']}").get_data(as_text=True)
    for unknown in ("NoSuchGame0000", "%00bad"):
        assert client.get(f"/g/{unknown}/live").status_code == 404


def test_the_parts_are_rendered_once_per_state_language_and_kind_of_phone(app, client, api, table_client,
                                                                         monkeypatch):
    rendered = []
    render = views.shared_parts
    monkeypatch.setattr(views, "shared_parts", lambda game, holder: rendered.append(holder) or render(game, holder))
    game = api.create("ninety-nine", PLAYERS)
    api.move(game, {"type": "play", "player": "Ann", "card": "8C"})
    url = f"/g/{game['id']}/live?last_event_id=0"
    tables = [table_client(game) for _ in range(2)]
    followers = [app.test_client() for _ in range(3)]
    sent = [first_event(phone, url) for phone in followers + tables]
    assert sorted(rendered) == [False, True]  # five phones, two kinds: two renderings
    assert len({json.dumps(data) for _, _, data in sent[:3]}) == 1
    _, _, german = first_event(app.test_client(), url, **{"Accept-Language": "de"})
    assert len(rendered) == 3 and "Summe 8" in german["parts"]["live"]  # and in its language
    api.move(game, {"type": "play", "player": "Bob", "card": "5H"})
    _, ident, data = first_event(followers[0], url)  # a new state: rendered again
    assert ident == "2" and len(rendered) == 4 and re.search(r'id="total"[^>]*>13<', data["parts"]["live"])


def requests_after_the_stream_opens(page) -> list[str]:
    """Every request the page makes from now on (the test reads the list later)."""
    expect(page.locator("#game")).to_have_attribute("data-live", "stream", timeout=5000)
    seen: list[str] = []
    page.on("request", lambda request: seen.append(f"{request.method} {request.url}"))
    return seen


@pytest.mark.serial  # the move is timed
@pytest.mark.browser
def test_two_followers_see_a_move_within_a_second_without_a_request(phones, live_server):
    game = create_via_api(live_server, "ninety-nine", PLAYERS)
    pages, seen = [], []
    for _ in range(2):
        follower = phones()
        follower.goto(f"/g/{game['id']}")
        seen.append(requests_after_the_stream_opens(follower.page))
        pages.append(follower.page)
    started = time.monotonic()
    api_move(live_server, game, {"type": "play", "player": "Ann", "card": "8C"})
    for page in pages:
        expect(page.locator("#total")).to_have_text("8", timeout=1000)
    assert time.monotonic() - started < 1.5
    api_move(live_server, game, {"type": "play", "player": "Bob", "card": "9D"})  # 9 adds nothing
    expect(pages[1].locator("#live .events")).to_contain_text("Bob", timeout=1000)
    expect(pages[0].locator("#announcer")).to_contain_text("Total 8")
    assert seen == [[], []]  # the moves came in the stream: no fragment, no API read


@pytest.mark.browser
def test_a_table_phone_plays_on_forms_that_came_in_the_stream(phones, live_server):
    """The other phone at the table gets the new forms from the stream, fills in its own token and a
    fresh key, and its move is taken."""
    game = create_via_api(live_server, "ninety-nine", PLAYERS)
    first, second = phones(), phones()
    join(first, game)
    join(second, game)
    seen = requests_after_the_stream_opens(second.page)
    play(first.page, "8", "C")
    expect(second.page.locator("#total")).to_have_text("8", timeout=3000)
    expect(second.page.locator(".facts .turn")).to_have_text("Bob")
    assert seen == []
    form = second.page.locator("#play-form")
    assert form.locator("input[name=csrf_token]").first.get_attribute("value") == \
        second.page.locator("#game").get_attribute("data-csrf")
    key = form.locator("input[name=idempotency_key]").first.get_attribute("value")
    assert not key.startswith(live.KEY_SLOT) and key.endswith("-play")
    play(second.page, "5", "H")  # Bob, on the forms the stream brought
    expect(second.page.locator("#refused")).to_have_count(0)
    expect(second.page.locator("#total")).to_have_text("13")
    expect(first.page.locator("#total")).to_have_text("13", timeout=3000)


@pytest.mark.browser
def test_a_page_whose_stream_ends_resumes_and_catches_up(phones, live_server, app, monkeypatch):
    """The stream ends (EVENTS_MAX_SECONDS); the browser reconnects with the Last-Event-ID of the last
    move it got and is sent the move made meanwhile as a 'sync' carrying the parts: still no request
    but the stream's."""
    monkeypatch.setitem(app.config, "EVENTS_MAX_SECONDS", 2.0)
    game = create_via_api(live_server, "ninety-nine", PLAYERS)
    follower = phones()
    follower.goto(f"/g/{game['id']}")
    expect(follower.page.locator("#game")).to_have_attribute("data-live", "stream", timeout=5000)
    opened = time.monotonic()
    seen: list = []
    follower.page.on("request", lambda request: seen.append(request))
    api_move(live_server, game, {"type": "play", "player": "Ann", "card": "8C"})
    expect(follower.page.locator("#total")).to_have_text("8", timeout=1500)
    time.sleep(max(0.0, opened + 2.3 - time.monotonic()))  # the stream has ended; the browser waits 2 s
    api_move(live_server, game, {"type": "play", "player": "Bob", "card": "5H"})
    expect(follower.page.locator("#total")).to_have_text("13", timeout=5000)
    assert [request.url for request in seen] == [f"{live_server}/g/{game['id']}/live?last_event_id=0"] * len(seen)
    assert seen[0].all_headers().get("last-event-id") == "1"  # the browser's, past the page's ?last_event_id


@pytest.mark.browser
def test_a_phone_back_on_the_network_catches_up_at_once(phones, live_server):
    """Offline, the page drops its stream (a dead connection can linger unnoticed); back online it
    opens another from the last event it got, and the move made meanwhile comes as a 'sync'."""
    game = create_via_api(live_server, "ninety-nine", PLAYERS)
    follower = phones()
    follower.goto(f"/g/{game['id']}")
    seen = requests_after_the_stream_opens(follower.page)
    api_move(live_server, game, {"type": "play", "player": "Ann", "card": "8C"})
    expect(follower.page.locator("#total")).to_have_text("8", timeout=1500)
    follower.context.set_offline(True)
    api_move(live_server, game, {"type": "play", "player": "Bob", "card": "5H"})
    time.sleep(0.5)
    expect(follower.page.locator("#total")).to_have_text("8")  # nothing reaches a phone offline
    follower.context.set_offline(False)
    expect(follower.page.locator("#total")).to_have_text("13", timeout=1500)  # not the browser's retry
    assert seen == [f"GET {live_server}/g/{game['id']}/live?last_event_id=1"]


@pytest.mark.browser
def test_without_event_source_the_page_polls(phones, live_server):
    game = create_via_api(live_server, "ninety-nine", PLAYERS)
    follower = phones()
    follower.page.add_init_script("delete window.EventSource")
    follower.goto(f"/g/{game['id']}")
    expect(follower.page.locator("#game")).to_have_attribute("data-live", "poll")
    api_move(live_server, game, {"type": "play", "player": "Ann", "card": "7C"})
    expect(follower.page.locator("#total")).to_have_text("7", timeout=3000)
