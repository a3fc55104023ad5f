"""Table links on the pages: the phone's cookie holds a revocable key of its own (never the game's
token), the table link's code stays in the URL's fragment, "Forget" and "Revoke" take a key back on
the server (a copied cookie then writes nothing), and the cookie is Secure over HTTPS. The API's side
is in tests/api/test_table_links.py; one Chromium test plays it all through at the end."""
from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from referee import create_app, store
from referee.config import cookie_secure
from referee.models import Game, db

UA = {"User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) Version/17.5 Mobile/15E148 Safari/604.1"}


def csrf(client, path: str) -> str:
    html = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


def session_of(client) -> dict:
    """The session cookie, read with the app's own serializer (signed, not encrypted: anyone who holds
    the cookie can read this much)."""
    app = client.application
    cookie = client.get_cookie("session")
    return app.session_interface.get_signing_serializer(app).loads(cookie.value) if cookie else {}


def start(client) -> str:
    response = client.post("/new/ninety-nine", data={"csrf_token": csrf(client, "/new/ninety-nine"),
                                                     "players": "Ann\nBob\nCid"}, headers=UA)
    assert response.status_code == 302
    return re.fullmatch(r"/g/([^/]+)", response.headers["Location"]).group(1)


def share_code(client, game_id: str) -> str:
    html = client.get(f"/g/{game_id}/share").get_data(as_text=True)
    return re.search(r'id="table-link" href="[^"#]+#([^"]+)"', html).group(1)


def join(app, game_id: str, code: str, client=None):
    phone = client or app.test_client()
    response = phone.post(f"/g/{game_id}/join", data={"csrf_token": csrf(phone, "/new/ninety-nine"),
                                                       "code": code}, headers=UA)
    return phone, response


def move(client, game_id: str, player: str, rank: str, suit: str = "S"):
    return client.post(f"/g/{game_id}/move", data={"csrf_token": csrf(client, "/new/ninety-nine"),
                                                    "type": "play", "player": player, "rank": rank, "suit": suit})


def version(app, game_id: str) -> int:
    return app.test_client().get(f"/api/v1/games/{game_id}").get_json()["version"]


def copy_of(app, phone):
    """Another client carrying the very same cookie (a copied cookie)."""
    thief = app.test_client()
    thief.set_cookie("session", phone.get_cookie("session").value)
    return thief


def keys_of(app, game_id: str) -> list:
    with app.app_context():
        from referee.links import credentials_of

        return [(c.id, c.kind, c.parent_id, c.revoked_at is not None, c.label)
                for c in credentials_of(db.session.get(Game, game_id))]


# ---------------------------------------------------------------- the cookie

def test_the_phone_that_starts_a_game_keeps_a_phone_key_not_the_token(app, client):
    game_id = start(client)
    key = session_of(client)["tables"][game_id]
    with app.app_context():
        game = db.session.get(Game, game_id)
        with pytest.raises(store.StoreError):
            store.check_token(game, key)  # not the game's token
        assert store.check_phone(game, key).kind == "phone"
    [(phone_id, kind, parent, revoked, label)] = keys_of(app, game_id)
    assert key.startswith(phone_id + ".") and kind == "phone" and parent is None and not revoked
    assert label == "Started the game (Safari on iPhone)"
    assert move(client, game_id, "Ann", "5").status_code == 302 and version(app, game_id) == 1


def test_the_cookie_of_a_joined_phone_holds_its_key_and_no_token(app, api, join_table):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    phone = app.test_client()
    link = join_table(phone, game)
    raw = phone.get_cookie("session").value
    contents = session_of(phone)
    key = contents["tables"][game["id"]]
    assert game["token"] not in raw and game["token"] not in json.dumps(contents)
    assert link["code"] not in json.dumps(contents) and link["code"].split(".")[1] not in raw
    assert re.fullmatch(r"[\w-]{1,16}\.[\w-]{16,64}", key)
    assert set(contents) <= {"tables", "csrf_token", "_permanent", "_flashes"}


def test_a_cookie_from_before_table_links_is_exchanged_for_a_phone_key(app, api):
    """A cookie written before table links held the game's token: on its next visit the phone gets a
    key of its own and the token leaves the cookie; a token that no longer opens the game is dropped."""
    game = api.create("ninety-nine", ["Ann", "Bob"])
    other = api.create("ninety-nine", ["Ann", "Bob"])
    phone = app.test_client()
    phone.get("/")
    serializer = app.session_interface.get_signing_serializer(app)
    phone.set_cookie("session", serializer.dumps({"tables": {game["id"]: game["token"],
                                                             other["id"]: "not-the-token-of-that-game"}}))
    html = phone.get(f"/g/{game['id']}").get_data(as_text=True)
    assert 'id="play-form"' in html
    tables = session_of(phone)["tables"]
    assert game["token"] not in json.dumps(session_of(phone)) and "." in tables[game["id"]]
    [(_, kind, parent, revoked, label)] = keys_of(app, game["id"])
    assert kind == "phone" and parent is None and not revoked and label.endswith("(before table links)")
    assert move(phone, game["id"], "Ann", "5").status_code == 302 and version(app, game["id"]) == 1
    assert 'id="play-form"' not in phone.get(f"/g/{other['id']}").get_data(as_text=True)
    assert other["id"] not in session_of(phone)["tables"] and keys_of(app, other["id"]) == []


# ---------------------------------------------------------------- the link's code stays out of URLs and logs

def test_the_code_stays_in_the_fragment_and_out_of_the_logs(app, api, join_table, capsys):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    capsys.readouterr()
    table = app.test_client()
    link = join_table(table, game)
    share = table.get(f"/g/{game['id']}/share").get_data(as_text=True)
    own = re.search(r'id="table-link" href="([^"]+)"', share).group(1)
    code = own.split("#")[1]
    link_id, secret = code.split(".")
    # the join URL sends no secret: only the fragment (which browsers keep to themselves) holds it
    parts = urlsplit(own)
    assert parts.path == f"/g/{game['id']}/join" and parts.query == "" and parts.fragment == code
    assert [m.start() for m in re.finditer(re.escape(secret), share)] == \
        [m.start() + len("#" + link_id + ".") for m in re.finditer(re.escape("#" + code), share)]
    assert share.count(secret) == 2  # the link's href and its text, each after the '#'
    key = session_of(table)["tables"][game["id"]]
    for page in (share, table.get(f"/g/{game['id']}").get_data(as_text=True),
                 table.get(f"/g/{game['id']}/join").get_data(as_text=True)):
        assert key.split(".")[1] not in page and game["token"] not in page and link["code"] not in page
    # a second phone joins through this phone's link, plays, and the first revokes it
    second, response = join(app, game["id"], own)  # the whole link pasted: the code is taken from it
    assert response.status_code == 302
    move(second, game["id"], "Ann", "5")
    second_id = session_of(second)["tables"][game["id"]].split(".")[0]
    table.post(f"/g/{game['id']}/revoke/{second_id}", data={"csrf_token": csrf(table, f"/g/{game['id']}/share")})
    out = capsys.readouterr().out
    routes = {json.loads(line)["route"] for line in out.splitlines() if line.startswith("{")}
    assert {"/g/<game_id>/join", "/g/<game_id>/share", "/g/<game_id>/revoke/<credential_id>",
            "/api/v1/games/<game_id>/links"} <= routes
    for secret_text in (secret, link["code"].split(".")[1], key.split(".")[1], game["token"], game["id"]):
        assert secret_text not in out


def test_joining_refuses_wrong_revoked_and_malformed_codes(app, api, client):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    link = client.post(f"/api/v1/games/{game['id']}/links", headers={"Authorization": f"Bearer {game['token']}"}).json
    link_id, secret = link["code"].split(".")
    other = api.create("ninety-nine", ["Ann", "Bob"])
    foreign = client.post(f"/api/v1/games/{other['id']}/links",
                          headers={"Authorization": f"Bearer {other['token']}"}).json["code"]
    wrong_end = "y" if secret.endswith("x") else "x"  # one character off (a secret may end with x itself)
    for code in (f"{link_id}.{secret[:-1]}{wrong_end}", f"nope.{secret}", foreign, f"{link_id}.{game['token']}"):
        phone, response = join(app, game["id"], code)
        assert response.status_code == 403 and "does not open this game" in response.get_data(as_text=True)
        assert "tables" not in session_of(phone)
    for code in ("", "   ", "a\x00b.c", "x" * 600, "#", f"{link_id}"):
        phone, response = join(app, game["id"], code)
        assert response.status_code == 422 and "Paste the whole table link" in response.get_data(as_text=True)
    # without the form's CSRF token nothing is redeemed
    assert app.test_client().post(f"/g/{game['id']}/join", data={"code": link["code"]}).status_code == 400
    assert keys_of(app, game["id"]) == [(link_id, "link", None, False, "Table link 1")]
    # a phone that already keeps score is sent to the game: no second key
    phone, response = join(app, game["id"], link["code"])
    assert response.status_code == 302
    phone, response = join(app, game["id"], link["code"], client=phone)
    assert response.status_code == 302 and len(keys_of(app, game["id"])) == 2
    assert "already enters moves" in phone.get(f"/g/{game['id']}/join").get_data(as_text=True)
    assert app.test_client().get("/g/nope/join").status_code == 404


# ---------------------------------------------------------------- taking keys back

def test_forget_revokes_the_key_so_a_copied_cookie_writes_nothing(app, client):
    game_id = start(client)
    thief, onlooker = copy_of(app, client), copy_of(app, client)
    assert move(thief, game_id, "Ann", "5").status_code == 302  # a copy works as long as the key does
    response = client.post(f"/g/{game_id}/forget", data={"csrf_token": csrf(client, f"/g/{game_id}/share")})
    assert response.status_code == 302 and game_id not in session_of(client).get("tables", {})
    # the phone's key is revoked, and the table link its share page made (just now) is closed
    assert [(kind, revoked) for _, kind, _, revoked, _ in keys_of(app, game_id)] == [("phone", True), ("link", True)]
    refused = move(thief, game_id, "Bob", "6")
    assert refused.status_code == 403 and "key was revoked" in refused.get_data(as_text=True)
    assert version(app, game_id) == 1
    undo = thief.post(f"/g/{game_id}/undo", data={"csrf_token": csrf(thief, "/new/ninety-nine")})
    assert undo.status_code == 403 and version(app, game_id) == 1
    html = onlooker.get(f"/g/{game_id}").get_data(as_text=True)
    assert 'id="revoked"' in html and 'id="play-form"' not in html
    assert game_id not in session_of(onlooker)["tables"]  # the dead key left that cookie too
    assert move(client, game_id, "Bob", "6").status_code == 403


def test_the_share_page_lists_and_revokes_links_and_phones(app, client):
    game_id = start(client)
    code = share_code(client, game_id)
    assert code == share_code(client, game_id)  # the same link each time, made once
    friend, _ = join(app, game_id, code)
    other, _ = join(app, game_id, code)
    assert move(friend, game_id, "Ann", "5").status_code == 302
    share = client.get(f"/g/{game_id}/share").get_data(as_text=True)
    found = keys_of(app, game_id)
    assert [kind for _, kind, _, _, _ in found] == ["phone", "link", "phone", "phone"]
    mine, link_id = found[0][0], found[1][0]
    for key_id, _, _, _, _ in found:
        assert f'id="key-{key_id}"' in share and f"/g/{game_id}/revoke/{key_id}" in share
    assert "this phone</span>" in share and "joined through Table link 1" in share and "Safari on iPhone" in share
    # a follower cannot revoke; neither can a form without its CSRF token
    follower = app.test_client()
    response = follower.post(f"/g/{game_id}/revoke/{link_id}", data={"csrf_token": csrf(follower, "/new/ninety-nine")})
    assert response.status_code == 403
    assert client.post(f"/g/{game_id}/revoke/{link_id}").status_code == 400
    assert not any(revoked for _, _, _, revoked, _ in keys_of(app, game_id))
    # revoking the link revokes both phones that joined through it
    response = client.post(f"/g/{game_id}/revoke/{link_id}", data={"csrf_token": csrf(client, f"/g/{game_id}/share")})
    assert response.status_code == 302 and response.headers["Location"] == f"/g/{game_id}/share"
    assert [revoked for _, _, _, revoked, _ in keys_of(app, game_id)] == [False, True, True, True]
    for phone in (friend, other):
        assert move(phone, game_id, "Bob", "6").status_code == 403
    assert version(app, game_id) == 1
    assert "Revoked: Table link 1, Safari on iPhone, Safari on iPhone." in client.get(f"/g/{game_id}/share").get_data(
        as_text=True)
    # a fresh link for the next phone; odd ids are a 404 page, never a 500
    assert share_code(client, game_id).split(".")[0] not in (link_id, mine)
    for odd in ("nope", "a%00b", "x" * 40, "%E2%98%83"):
        response = client.post(f"/g/{game_id}/revoke/{odd}", data={"csrf_token": csrf(client, f"/g/{game_id}/share")})
        assert response.status_code == 404, odd
    # a phone that revokes itself goes back to following
    response = client.post(f"/g/{game_id}/revoke/{mine}", data={"csrf_token": csrf(client, f"/g/{game_id}/share")})
    assert response.headers["Location"] == f"/g/{game_id}"
    assert game_id not in session_of(client)["tables"]
    assert "This phone now only follows the game." in client.get(f"/g/{game_id}").get_data(as_text=True)


# ---------------------------------------------------------------- Secure cookies behind HTTPS

def set_cookie_of(response) -> str:
    return next(v for k, v in response.headers.items() if k == "Set-Cookie" and v.startswith("session="))


@pytest.mark.parametrize("setting, expected", [
    ("1", True), ("true", True), ("0", False), ("no", False), ("auto", "auto"), ("", "auto"), ("maybe", "auto")])
def test_the_setting_reads_the_environment(setting, expected):
    assert cookie_secure(setting) == expected


def test_the_cookie_is_secure_over_https_and_not_over_plain_http(app, client):
    assert app.config["SESSION_COOKIE_SECURE"] == "auto"  # the default
    plain = set_cookie_of(client.get("/new/ninety-nine"))
    assert "Secure" not in plain and "HttpOnly" in plain and "SameSite=Lax" in plain
    tls = set_cookie_of(app.test_client().get("/new/ninety-nine", base_url="https://referee.example"))
    assert "; Secure" in tls and "HttpOnly" in tls
    # a proxy in front that terminates TLS says so; heeded even untrusted (it only makes the cookie stricter)
    for headers in ({"X-Forwarded-Proto": "https"}, {"X-Forwarded-Proto": "https, http"},
                    {"Forwarded": "for=192.0.2.1;proto=https;host=referee.example"}):
        assert "; Secure" in set_cookie_of(app.test_client().get("/new/ninety-nine", headers=headers)), headers
    for headers in ({"X-Forwarded-Proto": "http"}, {"Forwarded": "proto=http"}, {"X-Forwarded-Proto": "httpsx"}):
        assert "Secure" not in set_cookie_of(app.test_client().get("/new/ninety-nine", headers=headers)), headers


def test_behind_a_trusted_proxy_the_cookie_and_the_links_are_https(app, database_url):  # app: the tables exist
    proxied = create_app({"SQLALCHEMY_DATABASE_URI": database_url, "AUTO_MIGRATE": False, "TESTING": True,
                          "SECRET_KEY": "test-secret", "RATELIMIT_ENABLED": False, "TRUSTED_PROXIES": 1})
    phone = proxied.test_client()
    https = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "referee.example", "X-Forwarded-For": "192.0.2.7"}
    response = phone.get("/new/ninety-nine", headers=https)
    assert "; Secure" in set_cookie_of(response)
    token = re.search(r'name="csrf_token" value="([^"]+)"', response.get_data(as_text=True)).group(1)
    created = phone.post("/new/ninety-nine", data={"csrf_token": token, "players": "Ann\nBob"}, headers=https)
    assert created.status_code == 302 and "; Secure" in set_cookie_of(created)
    game_id = re.search(r"/g/([^/]+)$", created.headers["Location"]).group(1)
    share = phone.get(f"/g/{game_id}/share", headers=https).get_data(as_text=True)
    assert re.search(rf'id="table-link" href="https://referee\.example/g/{game_id}/join#', share)


@pytest.mark.parametrize("setting, over_https, secure", [(True, False, True), (False, True, False),
                                                         ("1", False, True), ("0", True, False)])
def test_the_setting_forces_the_flag_either_way(database_url, setting, over_https, secure):
    forced = create_app({"SQLALCHEMY_DATABASE_URI": database_url, "AUTO_MIGRATE": False, "TESTING": True,
                         "SECRET_KEY": "test-secret", "RATELIMIT_ENABLED": False, "SESSION_COOKIE_SECURE": setting})
    base = "https://localhost" if over_https else "http://localhost"
    assert ("; Secure" in set_cookie_of(forced.test_client().get("/new/ninety-nine", base_url=base))) is secure


# ---------------------------------------------------------------- in Chromium

@pytest.mark.browser
def test_a_shared_link_joins_a_second_phone_until_it_is_revoked(phones, live_server):
    keeper = phones()
    page = keeper.page
    keeper.goto("/new/ninety-nine")
    page.get_by_label(re.compile("Players, one name per line")).fill("Ann\nBob")
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_url(re.compile(r".*/g/[^/]+$"))
    game_id = re.fullmatch(r".*/g/([^/]+)", page.url).group(1)   # the game first, Share one tap away
    page.get_by_role("link", name="Share").click()
    page.locator("#keys").wait_for()
    page.get_by_text("Show the table link").click()
    url = page.locator("#table-link").get_attribute("href")
    assert urlsplit(url).path == f"/g/{game_id}/join" and urlsplit(url).fragment

    friend = phones()
    friend.goto(url)
    friend.page.wait_for_url(f"{live_server}/g/{game_id}")
    assert "#" not in friend.page.url and friend.page.evaluate("location.hash") == ""
    expect(friend.page.locator(".note", has_text="can now enter moves")).to_be_visible()
    cookie = next(c for c in friend.context.cookies() if c["name"] == "session")
    assert cookie["httpOnly"] and not cookie["secure"]  # plain http on 127.0.0.1
    friend.page.locator("#play-form button[name=card][value='7H']").click()
    expect(friend.page.locator("#total")).to_have_text("7")

    # the keeper sees the friend's phone in the list and revokes it
    keeper.goto(f"/g/{game_id}/share")
    phone_row = page.locator("#keys li", has_text="joined through Table link 1")
    expect(phone_row).to_have_count(1)
    phone_row.get_by_role("button", name=re.compile("^Revoke")).click()
    expect(page.locator(".note", has_text="Revoked:")).to_be_visible()
    expect(page.locator("#keys li.revoked")).to_have_count(1)
    keeper.screenshot("share-links-and-phones")

    # the friend's page still shows the old form: the move is refused and the table is unchanged
    friend.page.locator("#play-form button[name=card][value='8H']").click()
    expect(friend.page.locator("h1")).to_have_text("This phone's key was revoked")
    friend.page.wait_for_timeout(100)
    assert [e for e in friend.errors if "403" not in e] == []
    friend.errors.clear()  # Chromium logs the expected 403 itself as a console error
    friend.goto(f"/g/{game_id}")
    expect(friend.page.locator(".follower")).to_be_visible()
    assert friend.page.locator("#play-form").count() == 0
    expect(friend.page.locator("#total")).to_have_text("7")
    friend.screenshot("table-link-revoked")


def test_reading_a_page_never_writes_the_cookie_back(table_client, api):
    """A page read in the background (the service worker keeping a copy) while another request adds
    a key (a rematch, a new game) must not write back the keys it read: only a request that changes
    the cookie sends it (SESSION_REFRESH_EACH_REQUEST off)."""
    game = api.create("ninety-nine", ["Ann", "Bob"])
    table = table_client(game)
    table.get(f"/g/{game['id']}")  # the first page with a form keeps the phone's CSRF secret: a change
    for path in (f"/g/{game['id']}", f"/g/{game['id']}/log", "/", f"/g/{game['id']}/fragment"):
        response = table.get(path)
        assert response.status_code == 200 and "Set-Cookie" not in response.headers, path
