"""Checkpoints (a stored state every CHECKPOINT_EVERY versions) change nothing that a client sees:
undo across a checkpoint, moves played again after it, and past tables all equal a replay of the
log from the start. Here a checkpoint every 3 versions, so every path crosses several."""
from __future__ import annotations

import pytest

from referee import store
from referee.models import Move, db
from referee.rules import ninety_nine
from referee.rules.base import public_state

from bench.common import move_stream

PLAYERS = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]


@pytest.fixture(autouse=True)
def _often(monkeypatch):
    monkeypatch.setattr(store, "CHECKPOINT_EVERY", 3)


def from_scratch(api, game) -> dict:
    """The public state by applying the live moves of the log to a new game: no checkpoint used."""
    state = ninety_nine.new_game(PLAYERS, {"tokens": 99, "decks": 2})
    for logged in api.log(game)["moves"]:
        if not logged["voided"]:
            state = ninety_nine.GAME.apply(state, logged["move"])
    return public_state(ninety_nine.GAME, state)


def game_part(view: dict) -> dict:
    return {k: v for k, v in view.items() if k not in ("id", "game", "players", "options", "version", "etag",
                                                    "group", "rematch", "rematch_of")}


def test_undo_and_past_tables_across_checkpoints_equal_a_full_replay(app, api, client):
    game = api.create("ninety-nine", PLAYERS, {"tokens": 99, "decks": 2})
    stream = move_stream(14, players=PLAYERS, options={"tokens": 99, "decks": 2})
    seen = {0: api.state(game)}
    for n, move in enumerate(stream[:10], start=1):
        seen[n] = api.move(game, move)
    with app.app_context():
        stored = db.session.scalars(db.select(Move.version).where(Move.checkpoint.is_not(None))).all()
    assert sorted(stored) == [3, 6, 9]

    for expected_version in (9, 8, 7, 6, 5):  # undo past two checkpoints
        undone = api.undo(game)
        assert undone["version"] == expected_version
        assert game_part(undone) == game_part(from_scratch(api, game))
        assert undone["total"] == seen[expected_version]["total"]
        assert undone["tokens"] == seen[expected_version]["tokens"]

    for n, move in enumerate(stream[5:12], start=6):  # the same moves again, then two more
        body = api.move(game, move)
        assert body["version"] == n
        assert game_part(body) == game_part(from_scratch(api, game))

    for at in range(0, 10):  # voided checkpoints (the first 6 and 9) are never used
        past = client.get(f"/api/v1/games/{game['id']}?at={at}").get_json()
        assert past["version"] == at
        assert past["total"] == seen[at]["total"] and past["to_play"] == seen[at]["to_play"]
        assert past["tokens"] == seen[at]["tokens"]
