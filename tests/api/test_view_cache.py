"""GET /games/{id} answers from the version and revision alone when it can: a 304 for the tag the
follower has, or the view already encoded at the tag the database holds (store.views). A write in
any process changes the tag, so a copy is never served for a state it was not made from."""
from __future__ import annotations

from referee.store import ViewCache

PLAYERS = ["Ann", "Bob"]


def test_a_follower_never_gets_a_copy_older_than_the_database(client, api):
    game = api.create("ninety-nine", PLAYERS)
    url = f"/api/v1/games/{game['id']}"
    first = client.get(url)
    assert first.get_data() == client.get(url).get_data()  # the second from the copy, alike
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    second = client.get(url)
    assert second.get_json()["version"] == 1 and second.headers["ETag"] == '"1"'
    # undo and another move bring the version back, not the tag (ETag ABA): a new view again
    api.undo(game)
    api.move(game, {"type": "play", "player": "Ann", "card": "6H"})
    third = client.get(url)
    assert third.get_json()["version"] == 1 and third.headers["ETag"] == '"1-3"'
    assert third.get_json()["events"] != second.get_json()["events"]
    assert client.get(url, headers={"If-None-Match": '"1"'}).status_code == 200
    unchanged = client.get(url, headers={"If-None-Match": '"1-3"'})
    assert unchanged.status_code == 304 and unchanged.get_data() == b"" and unchanged.headers["ETag"] == '"1-3"'


def test_an_unknown_game_is_a_404_on_either_path(client):
    for headers in ({}, {"If-None-Match": '"0"'}):
        response = client.get("/api/v1/games/no-such-game", headers=headers)
        assert response.status_code == 404 and response.mimetype == "application/problem+json"


def test_the_copies_are_bounded_and_keyed_by_tag():
    cache = ViewCache(size=2)
    cache.put("a", "1", b"A1")
    assert cache.get("a", "1") == b"A1" and cache.get("a", "2") is None
    cache.put("b", "1", b"B1")
    cache.put("a", "2", b"A2")  # replaces a's copy, and a is now the latest
    cache.put("c", "1", b"C1")  # b was stored least recently: it goes
    assert cache.get("b", "1") is None and cache.get("a", "2") == b"A2" and cache.get("c", "1") == b"C1"
