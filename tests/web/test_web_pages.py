"""The pages through Flask's test client: CSRF, the token cookie, escaping, headers, errors."""
from __future__ import annotations

import re

import pytest

from referee.web import chart


def csrf(client, path="/new/ninety-nine") -> str:
    html = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


def start(client, players="Ann\nBob\nCid", **options) -> str:
    response = client.post("/new/ninety-nine", data={"csrf_token": csrf(client), "players": players, **options})
    assert response.status_code == 302, response.get_data(as_text=True)
    return re.fullmatch(r"/g/([^/]+)", response.headers["Location"]).group(1)


def test_index_lists_the_games(client):
    html = client.get("/").get_data(as_text=True)
    assert "Ninety-nine" in html and "/new/ninety-nine" in html


def test_security_headers_on_pages_not_on_the_api(client, api):
    response = client.get("/")
    assert "script-src 'self'" in response.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "unsafe-inline" not in response.headers["Content-Security-Policy"]
    assert "<script>" not in response.get_data(as_text=True)  # no inline script anywhere
    assert client.get("/static/web/app.js").status_code == 200


def test_form_posts_need_the_csrf_token(client):
    response = client.post("/new/ninety-nine", data={"players": "Ann\nBob"})
    assert response.status_code == 400
    game_id = start(client)
    response = client.post(f"/g/{game_id}/move", data={"type": "play", "rank": "5", "suit": "S"})
    assert response.status_code == 400


def test_the_json_api_needs_no_csrf_token(api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    api.move(game, {"type": "play", "player": "Ann", "card": "5S"})
    api.undo(game)


def test_creator_holds_the_token_and_plays(client):
    game_id = start(client, tokens="5")
    token = csrf(client, f"/g/{game_id}")
    response = client.post(f"/g/{game_id}/move", data={"csrf_token": token, "type": "play", "player": "Ann",
                                                       "rank": "A", "suit": "S", "valueA": "11", "version": "0"})
    assert response.status_code == 302 and response.headers["Location"].endswith(f"/g/{game_id}#moves")
    html = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert '<span class="big" id="total">11</span>' in html
    assert "<b>5</b> tokens" in html


def test_bad_options_show_the_engine_detail(client):
    response = client.post("/new/ninety-nine", data={"csrf_token": csrf(client), "players": "Ann\nAnn"})
    assert response.status_code == 422
    assert "distinct" in response.get_data(as_text=True)


def test_follower_cannot_post_and_never_sees_the_token(app, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    follower = app.test_client()
    html = follower.get(f"/g/{game['id']}").get_data(as_text=True)
    assert game["token"] not in html and 'id="play-form"' not in html
    assert game["token"] not in follower.get(f"/g/{game['id']}/share").get_data(as_text=True)
    token = csrf(follower, f"/g/{game['id']}/share") if False else csrf(follower)
    response = follower.post(f"/g/{game['id']}/move", data={"csrf_token": token, "type": "play", "player": "Ann",
                                                             "rank": "5", "suit": "S"})
    assert response.status_code == 403
    assert api.state(game)["version"] == 0
    response = follower.post(f"/g/{game['id']}/undo", data={"csrf_token": token})
    assert response.status_code == 403


def test_table_link_joins_with_a_key_of_its_own(app, api, join_table):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    table = app.test_client()
    html = table.get(f"/g/{game['id']}/join").get_data(as_text=True)
    assert 'src="/static/web/join.js"' in html and 'id="join-form"' in html and "<script>" not in html
    link = join_table(table, game)
    cookie = table.get_cookie("session")
    assert cookie.http_only and cookie.same_site == "Lax"
    html = table.get(f"/g/{game['id']}").get_data(as_text=True)
    assert 'id="play-form"' in html and game["token"] not in html
    # the share page shows this phone's own table link (with its QR code) only to the table
    share = table.get(f"/g/{game['id']}/share").get_data(as_text=True)
    url = re.search(r'id="table-link" href="([^"]+)"', share).group(1)
    assert re.fullmatch(rf"http://localhost/g/{game['id']}/join#[\w-]+\.[\w-]+", url) and share.count("<svg") == 2
    assert url.split("#")[1] != link["code"]  # a link of this phone's own, not the one it came through
    assert table.get(f"/g/{game['id']}/share").get_data(as_text=True).count(url) == 2  # shown again, not remade


def test_the_old_table_link_stores_nothing(app, api):
    """Links that carried the game's token in their path are answered without taking anything from them."""
    game = api.create("ninety-nine", ["Ann", "Bob"])
    phone = app.test_client()
    response = phone.get(f"/g/{game['id']}/table/{game['token']}")
    assert response.status_code == 302 and response.headers["Location"] == f"/g/{game['id']}"
    html = phone.get(f"/g/{game['id']}").get_data(as_text=True)
    assert 'id="play-form"' not in html and "no longer used" in html


def test_names_are_escaped(client):
    game_id = start(client, players="<script>alert(1)</script>\nBob")
    html = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_refused_move_keeps_the_state_and_shows_the_ruling(client):
    game_id = start(client)
    token = csrf(client, f"/g/{game_id}")
    client.post(f"/g/{game_id}/move", data={"csrf_token": token, "type": "play", "player": "Bob",
                                             "rank": "5", "suit": "S"})
    html = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "Ruling N99-2" in html and "It is Ann&#39;s turn" in html


def test_stale_form_is_refused_not_applied(client):
    game_id = start(client)
    token = csrf(client, f"/g/{game_id}")
    data = {"csrf_token": token, "type": "play", "player": "Ann", "rank": "5", "suit": "S", "version": "0"}
    client.post(f"/g/{game_id}/move", data=data)
    client.post(f"/g/{game_id}/move", data={**data, "player": "Bob", "rank": "6"})  # still says version 0
    html = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "Another phone entered a move first" in html
    assert '<span class="big" id="total">5</span>' in html


def test_double_submit_applies_once(client, api):
    game_id = start(client)
    token = csrf(client, f"/g/{game_id}")
    data = {"csrf_token": token, "type": "play", "player": "Ann", "rank": "5", "suit": "S",
            "idempotency_key": "abc-play"}
    client.post(f"/g/{game_id}/move", data=data)
    client.post(f"/g/{game_id}/move", data=data)
    assert client.get(f"/api/v1/games/{game_id}").get_json()["version"] == 1


def test_undo_log_and_history(client):
    game_id = start(client)
    token = csrf(client, f"/g/{game_id}")
    for player, rank in [("Ann", "5"), ("Bob", "6")]:
        client.post(f"/g/{game_id}/move", data={"csrf_token": token, "type": "play", "player": player,
                                                 "rank": rank, "suit": "S"})
    assert "Bob plays 6♠" in client.get(f"/g/{game_id}/undo").get_data(as_text=True)
    client.post(f"/g/{game_id}/undo", data={"csrf_token": token})
    log = client.get(f"/g/{game_id}/log").get_data(as_text=True)
    assert "<del>Bob plays 6♠</del>" in log
    at = client.get(f"/g/{game_id}/at/1").get_data(as_text=True)
    assert '<span class="big" id="total">5</span>' in at
    assert client.get(f"/g/{game_id}/at/0").status_code == 200


def test_unknown_game_and_unknown_engine_are_404_pages(client):
    response = client.get("/g/nope")
    assert response.status_code == 404 and response.mimetype == "text/html"
    assert client.get("/new/chess").status_code == 404


def test_fragment_carries_the_live_parts(client):
    game_id = start(client)
    html = client.get(f"/g/{game_id}/fragment").get_data(as_text=True)
    assert 'data-part="live"' in html and 'data-part="scores"' in html and 'id="say"' in html


def test_chart_series_start_from_the_first_round():
    view = {"players": ["A", "B"], "rounds": [
        {"round": 1, "scores": {"A": -1, "B": 0}, "totals": {"A": 8, "B": 9}},
        {"round": 2, "scores": {"A": 0, "B": -2}, "totals": {"A": 8, "B": 7}}]}
    assert chart.series(view) == (["A", "B"], [[9, 8, 8], [9, 9, 7]])
    svg = chart.score_chart(view)
    assert svg.count('class="line') == 2 and "<title" in svg
    assert chart.score_chart({"players": ["A"], "rounds": []}) is None


@pytest.mark.parametrize("name", ["<b>x</b>"])
def test_chart_escapes_names(name):
    view = {"players": [name], "rounds": [{"round": 1, "scores": {name: 1}, "totals": {name: 1}}]}
    assert "<b>" not in str(chart.score_chart(view))
