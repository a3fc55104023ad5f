"""The ABA sequence (issue 16): a phone saw version 1, the table undid it and made a different
move 1. The ETag must never name two states: the phone's If-None-Match is not a 304 and its
If-Match write is refused (412), on either database."""
from __future__ import annotations


def test_an_undo_and_a_different_move_never_repeat_an_etag(client, api):
    game = api.create("ninety-nine", ["Ann", "Bob", "Cid"])
    auth = {"Authorization": f"Bearer {game['token']}"}
    first = client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "play", "player": "Ann", "card": "5H"},
                        headers=auth)
    seen = first.headers["ETag"]
    assert seen == '"1"' and first.json["etag"] == "1"                     # no undo yet: the version
    api.undo(game)
    other = api.move(game, {"type": "play", "player": "Ann", "card": "8S"})
    assert other["version"] == 1 and other["etag"] != "1"
    read = client.get(f"/api/v1/games/{game['id']}", headers={"If-None-Match": seen})
    assert read.status_code == 200 and read.json["total"] == 8 and read.headers["ETag"] == f'"{other["etag"]}"'
    stale = client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "play", "player": "Bob", "card": "2C"},
                        headers={**auth, "If-Match": seen})
    assert stale.status_code == 412 and stale.headers["ETag"] == f'"{other["etag"]}"'
    assert api.state(game)["version"] == 1
    fresh = client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "play", "player": "Bob", "card": "2C"},
                        headers={**auth, "If-Match": f'"{other["etag"]}"'})
    assert fresh.status_code == 201
    same = client.get(f"/api/v1/games/{game['id']}", headers={"If-None-Match": fresh.headers["ETag"]})
    assert same.status_code == 304


def test_the_page_writes_only_on_the_table_it_showed(table_client, api):
    """The phone's forms carry the ETag of the table they showed: after someone else's undo and
    different move, a form from the old page is refused, not applied."""
    import re

    game = api.create("ninety-nine", ["Ann", "Bob", "Cid"])
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    table = table_client(game)
    html = table.get(f"/g/{game['id']}").get_data(as_text=True)
    tag = re.search(r'name="version" value="([^"]+)"', html).group(1)
    token = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    api.undo(game)
    api.move(game, {"type": "play", "player": "Ann", "card": "8S"})
    table.post(f"/g/{game['id']}/move", data={"csrf_token": token, "type": "play", "player": "Bob", "rank": "2",
                                              "suit": "C", "version": tag})
    assert api.state(game)["version"] == 1 and api.state(game)["total"] == 8
