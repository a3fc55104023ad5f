"""A game's record: export (JSON and the CSV score sheet) and import by replay through the engine
(referee.records, referee/api/records.py). An export re-imported shows the same table at every
version, undone moves included; an import with one illegal move names it and stores nothing; bad
input of any kind is problem+json, never a 500."""
from __future__ import annotations

import copy
import csv
import io
import json

import pytest
from play_helpers import GAMES, play, table
from sqlalchemy import func, select

from referee.models import Game, Move, db

SEEDS = {"ninety-nine": 3, "nines": 5, "five-crowns": 2, "xix": 4, "sixty-nine": 1}  # else seed 1


def auth(game) -> dict:
    return {"Authorization": f"Bearer {game['token']}"}


def export(client, game, token=True) -> dict:
    response = client.get(f"/api/v1/games/{game['id']}/export", headers=auth(game) if token else {})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def rows(app) -> tuple[int, int]:
    with app.app_context():
        return (db.session.scalar(select(func.count()).select_from(Game)),
                db.session.scalar(select(func.count()).select_from(Move)))


def view_at(client, game_id: str, version: int) -> dict:
    body = client.get(f"/api/v1/games/{game_id}?at={version}").get_json()
    body.pop("id")
    return body


def assert_problem(response, status: int, kind: str | None = None) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["status"] == status and body["title"] and body["detail"]
    if kind is not None:
        assert body["type"].endswith("/" + kind), body
    return body


# ---------------------------------------------------------------- export, then import

@pytest.mark.parametrize("name", GAMES)
def test_an_export_reimported_shows_the_same_table_at_every_version(client, api, name):
    game = play(api, name, SEEDS.get(name, 1), max_moves=140, undo_rate=0.05, undo_every=9)
    record = export(client, game)
    assert record["format"] == "referee-game" and record["format_version"] == 1 and record["complete"] is True
    assert record["game"] == name and record["players"] == table(name)[0] and record["group"] is None
    assert record["service"]["name"] == "referee" and record["service"]["version"]
    log = api.log(game)["moves"]
    assert [m["seq"] for m in record["moves"]] == list(range(1, len(log) + 1))
    assert [(m["version"], m["voided"]) for m in record["moves"]] == [(m["version"], m["voided"]) for m in log]
    assert any(m["voided"] for m in record["moves"]), "the game should have undone moves"
    original = api.state(game)
    assert record["version"] == original["version"] and record["status"] == original["status"]

    response = client.post("/api/v1/games/import", json=record)
    assert response.status_code == 201, response.get_json()
    imported = response.get_json()
    assert imported["id"] != game["id"] and imported["token"] and imported["token"] != game["token"]
    assert response.headers["Location"].endswith(f"/api/v1/games/{imported['id']}")
    # every version, the same table; the same ETag now (same version, same count of writes)
    for version in range(original["version"] + 1):
        assert view_at(client, imported["id"], version) == view_at(client, game["id"], version), version
    assert client.get(f"/api/v1/games/{imported['id']}").headers["ETag"] == \
        client.get(f"/api/v1/games/{game['id']}").headers["ETag"]
    # the same log, voided moves and times included
    assert api.log(imported)["moves"] == log
    # its own export says the same as the original's, but for where and when
    again = export(client, {"id": imported["id"], "token": imported["token"]})
    for key in ("id", "created_at", "exported_at", "updated_at"):
        again.pop(key), record.pop(key)
    assert again == record
    # and the new game's token writes it: an undo there gives the original's previous table
    if original["version"]:
        api.undo(imported)
        now = api.state(imported)
        before = view_at(client, game["id"], original["version"] - 1)
        assert {k: v for k, v in now.items() if k not in ("id", "etag")} == \
            {k: v for k, v in before.items() if k != "etag"}


def test_an_imported_game_goes_on_as_the_original_would(client, api):
    """The next move, drawn from the table the record leaves, is answered alike by both games."""
    from play_helpers import random_player

    from referee.rules import ENGINES

    engine = ENGINES["sixty-nine"]  # in play: XIX's face-down trades would stay out of the record (G-5)
    game = play(api, "sixty-nine", 9, max_moves=25)
    record = export(client, game)
    imported = client.post("/api/v1/games/import", json=record).get_json()
    state = engine.new_game(record["players"], record["options"])
    live = {}
    for entry in record["moves"]:
        live[entry["version"]] = entry["payload"]
    for version in range(1, record["version"] + 1):
        state = engine.apply(state, live[version])
    move = random_player(engine)(state, engine.allowed(state), __import__("random").Random(1))
    first = client.post(f"/api/v1/games/{game['id']}/moves", json=move, headers=auth(game))
    second = client.post(f"/api/v1/games/{imported['id']}/moves", json=move, headers=auth(imported))
    assert first.status_code == second.status_code == 201
    assert {k: v for k, v in first.get_json().items() if k != "id"} == \
        {k: v for k, v in second.get_json().items() if k != "id"}


def test_the_public_export_hides_face_down_cards_and_cannot_be_imported(app, client, api):
    """G-5: without the game's token, cards put face down are left out (named in ``hidden``); an
    import needs the whole record and says so, naming the move."""
    for seed in range(20):
        game = play(api, "xix", seed, undo_rate=0)
        record = export(client, game, token=False)
        closed = [m for m in record["moves"] if m["payload"]["type"] == "trade" and "card" in m["payload"].get(
            "hidden", [])]
        if closed:
            break
    else:
        raise AssertionError("no XIX game traded a closed card")
    assert record["complete"] is False
    whole = export(client, game)
    assert [m["seq"] for m in whole["moves"] if "hidden" in m["payload"]] == []
    secret = next(m for m in whole["moves"] if m["seq"] == closed[0]["seq"])["payload"]["card"]
    assert "card" not in closed[0]["payload"]
    response = client.get(f"/api/v1/games/{game['id']}/export")
    assert "no-store" not in response.headers.get("Cache-Control", "")
    assert client.get(f"/api/v1/games/{game['id']}/export", headers=auth(game)).headers["Cache-Control"] == "no-store"
    before = rows(app)
    body = assert_problem(client.post("/api/v1/games/import", json=record), 422, "incomplete-record")
    first_hidden = next(m for m in record["moves"] if m["payload"].get("hidden"))
    assert body["rule"] == "G-5" and body["seq"] == first_hidden["seq"] and body["index"] == first_hidden["seq"] - 1
    assert str(secret) not in body["detail"]
    assert rows(app) == before


def test_a_wrong_token_gets_no_record(client, api):
    game = api.create("nines", ["Ann", "Bob"])
    other = api.create("nines", ["Ann", "Bob"])
    assert_problem(client.get(f"/api/v1/games/{game['id']}/export", headers=auth(other)), 403)
    assert_problem(client.get(f"/api/v1/games/{game['id']}/export", headers={"Authorization": "Basic abc"}), 401)
    assert_problem(client.get("/api/v1/games/nope/export"), 404)
    assert_problem(client.get("/api/v1/games/nope/export.csv"), 404)


# ---------------------------------------------------------------- refused imports store nothing

def _illegal(record: dict) -> tuple[dict, int]:
    """The record with its first move in effect after the start replaced by another player's move
    out of turn (or, where every player may act, a repeat that the rules refuse)."""
    bad = copy.deepcopy(record)
    for index, entry in enumerate(bad["moves"]):
        if not entry["voided"] and entry["payload"].get("player") and index > 0:
            others = [p for p in bad["players"] if p != entry["payload"]["player"]]
            entry["payload"]["player"] = others[0]
            return bad, index
    raise AssertionError("no move with a player")


@pytest.mark.parametrize("name", ["ninety-nine", "xix", "nines"])
def test_an_import_with_one_illegal_move_is_refused_naming_it_and_stores_nothing(app, client, api, name):
    game = play(api, name, 11, max_moves=40, undo_rate=0)
    record = export(client, game)
    bad, index = _illegal(record)
    before = rows(app)
    response = client.post("/api/v1/games/import", json=bad)
    body = assert_problem(response, 422)
    assert body["index"] == index and body["seq"] == index + 1
    assert body["rule"], body
    assert f"seq {index + 1}" in body["detail"]
    # the engine's own refusal of that move, in the detail and the rule
    from referee.rules import ENGINES
    engine = ENGINES[name]
    state = engine.new_game(record["players"], record["options"])
    for entry in bad["moves"][:index]:
        state = engine.apply(state, entry["payload"])
    with pytest.raises(Exception) as refused:
        engine.apply(state, bad["moves"][index]["payload"])
    assert body["rule"] == refused.value.rule and refused.value.detail in body["detail"]
    assert rows(app) == before


def test_a_log_that_undo_could_not_have_left_is_refused(app, client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    for move in ({"type": "play", "player": "Ann", "card": "KS"}, {"type": "play", "player": "Bob", "card": "5S"}):
        api.move(game, move)
    api.undo(game)
    api.move(game, {"type": "play", "player": "Bob", "card": "7S"})
    record = export(client, game)
    before = rows(app)
    cases = []
    kept = copy.deepcopy(record)  # the undone move said to be in effect, though the next one took its version
    kept["moves"][1]["voided"] = False
    cases.append((kept, 2))
    gap = copy.deepcopy(record)  # a version skipped
    gap["moves"][2]["version"] = 4
    cases.append((gap, 2))
    buried = copy.deepcopy(record)  # a voided move under a move in effect
    buried["moves"][0]["voided"] = True
    cases.append((buried, 0))
    order = copy.deepcopy(record)  # out of log order
    order["moves"][0], order["moves"][1] = order["moves"][1], order["moves"][0]
    cases.append((order, 0))
    final = copy.deepcopy(record)  # a final version the log does not leave
    final["version"] = 3
    cases.append((final, None))
    for bad, index in cases:
        body = assert_problem(client.post("/api/v1/games/import", json=bad), 422, "invalid-record")
        assert body.get("index") == index, body
    assert rows(app) == before


@pytest.mark.parametrize("change, kind", [
    (lambda r: r.update(format_version=2), "unsupported-format"),
    (lambda r: r.update(format="chess-pgn"), "unsupported-format"),
    (lambda r: r.pop("format_version"), "unsupported-format"),
    (lambda r: r.update(format_version="1"), "unsupported-format"),
    (lambda r: r.update(game="chess"), "invalid-record"),
    (lambda r: r.update(players="Ann, Bob"), "invalid-record"),
    (lambda r: r.update(moves={"1": {}}), "invalid-record"),
    (lambda r: r["moves"][0].update(payload="play KS"), "invalid-record"),
    (lambda r: r["moves"][0].update(seq=1.0), "invalid-record"),
    (lambda r: r["moves"][0].update(voided="no"), "invalid-record"),
    (lambda r: r["moves"][0].update(version=0), "invalid-record"),
    (lambda r: r["moves"][0].update(created_at="yesterday"), "invalid-record"),
    (lambda r: r["moves"][0].update(extra=1), "invalid-record"),
    (lambda r: r.update(extra=1), "invalid-record"),
    (lambda r: r.update(options={"tokens": "nine"}), "invalid-input"),
    (lambda r: r.update(players=["Ann"]), "invalid-input"),
    (lambda r: r["moves"][0].update(payload={"type": "fly"}), "invalid-input"),
    (lambda r: r["moves"][0]["payload"].update(player="Zed"), "invalid-input"),
])
def test_bad_records_are_422_problems_and_store_nothing(app, client, api, change, kind):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    api.move(game, {"type": "play", "player": "Ann", "card": "KS"})
    record = export(client, game)
    change(record)
    before = rows(app)
    assert_problem(client.post("/api/v1/games/import", json=record), 422, kind)
    assert rows(app) == before


@pytest.mark.parametrize("raw, content_type, status", [
    (b"not json", "application/json", 400),
    (b'{"format": "referee-game",', "application/json", 400),
    (b'{"format": "referee-game"}', "text/plain", 415),
    (b"[]", "application/json", 422),
    (b"null", "application/json", 422),
    (b'"referee-game"', "application/json", 422),
    (b"", "application/json", 400),
])
def test_an_import_that_is_not_a_json_record_is_a_problem(app, client, raw, content_type, status):
    before = rows(app)
    assert_problem(client.post("/api/v1/games/import", data=raw, content_type=content_type), status)
    assert rows(app) == before


def test_a_huge_import_is_413_and_a_long_game_fits(app, client, api, monkeypatch):
    """The import takes more than a move's 64 KiB (IMPORT_MAX_BYTES), and no more."""
    from referee.rules import ninety_nine

    players = ["Ann", "Bob", "Cid"]
    state = ninety_nine.new_game(players, {"tokens": 99})
    moves = []
    rng = __import__("random").Random(5)
    from play_helpers import random_player
    while len(moves) < 900 and ninety_nine.outcome(state)["status"] != "finished":
        move = random_player(ninety_nine.GAME)(state, ninety_nine.GAME.allowed(state), rng)
        state = ninety_nine.GAME.apply(state, move)
        moves.append(move)
    record = {"format": "referee-game", "format_version": 1, "game": "ninety-nine", "players": players,
              "options": {"tokens": 99}, "moves": [{"seq": i + 1, "version": i + 1, "voided": False, "payload": m}
                                                   for i, m in enumerate(moves)]}
    raw = json.dumps(record).encode()
    assert len(raw) > app.config["MAX_CONTENT_LENGTH"]
    response = client.post("/api/v1/games/import", data=raw, content_type="application/json")
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["version"] == len(moves)
    # a move that large is still refused: the larger limit is the import's alone
    game = api.create("ninety-nine", players)
    assert_problem(client.post(f"/api/v1/games/{game['id']}/moves", data=raw, content_type="application/json",
                               headers=auth(game)), 413)
    monkeypatch.setitem(app.config, "IMPORT_MAX_BYTES", len(raw) - 1)
    before = rows(app)
    assert_problem(client.post("/api/v1/games/import", data=raw, content_type="application/json"), 413)
    assert rows(app) == before


def _adjustments_record(plan: list[str], players=("Ann", "Bob", "Cid")) -> dict:
    """A Ninety-nine record made of score adjustments (T-2: legal at any time), with undos: ``plan``
    is "move" or "undo" for each write, as the log would have it."""
    entries, live = [], []
    for step, write in enumerate(plan):
        if write == "undo":
            entries[live.pop()]["voided"] = True
            continue
        live.append(len(entries))
        entries.append({"seq": len(entries) + 1, "version": len(live), "voided": False,
                        "payload": {"type": "adjust", "player": players[step % len(players)], "points": 1 + step % 3,
                                    "reason": f"write {step}"}})
    return {"format": "referee-game", "format_version": 1, "game": "ninety-nine", "players": list(players),
            "options": {"tokens": 99}, "version": len(live), "moves": entries}


def test_an_import_replays_each_move_at_most_about_twice_whatever_its_undos(app, client, monkeypatch):
    """An import keeps the tables of the last few moves in effect and of every few, not of all (that
    held the square of a long record): an undo in the record goes back to a table kept, replaying at
    most a few moves, and only after as many voided moves; the table imported is the one the moves
    in effect make."""
    from referee.rules import ninety_nine
    from referee.rules.base import Game

    plan = ["move"] * 80 + ["undo"] * 30 + ["move"] * 10
    plan += ["move", "undo"] * 150           # shallow undos: each goes back to the table just before
    plan += (["undo"] * 26 + ["move"] * 26) * 6  # deep ones: each goes back past the tables kept lately
    record = _adjustments_record(plan)
    applied = []
    real_apply = Game.apply  # the import's game is Ninety-nine: every apply counted is one of its moves
    monkeypatch.setattr(Game, "apply", lambda game, state, move: applied.append(1) or real_apply(game, state, move))
    response = client.post("/api/v1/games/import", json=record)
    assert response.status_code == 201, response.get_json()
    moves = len(record["moves"])
    assert len(applied) <= 2 * moves, (len(applied), moves)
    state = ninety_nine.new_game(["Ann", "Bob", "Cid"], {"tokens": 99})
    for entry in record["moves"]:
        if not entry["voided"]:
            state = real_apply(ninety_nine.GAME, state, entry["payload"])
    imported = response.get_json()
    assert imported["version"] == record["version"]
    assert imported["adjustments"] == state["adjustments"] and imported["standings"] == ninety_nine.standings(state)


def test_the_checkpoints_of_a_long_game_add_up_to_a_few_times_its_state(app, client):
    """Each checkpoint stores the state's ever-growing lists whole (here the adjustments), so they
    come further apart as the lists grow (store.checkpoint_due): what a game's checkpoints store is a
    few times its last state, at 1,000 moves as at 4,000 (at one every 25 moves an import of 15,000
    adjustments stored 290 MB). Undo still finds the table of every version."""
    ratios = []
    for length in (1000, 4000):
        response = client.post("/api/v1/games/import", json=_adjustments_record(["move"] * length))
        assert response.status_code == 201, response.get_json()
        with app.app_context():
            game = db.session.get(Game, response.get_json()["id"])
            stored = sum(len(json.dumps(move.checkpoint)) for move in db.session.scalars(
                select(Move).where(Move.game_id == game.id, Move.checkpoint.is_not(None))))
            ratios.append(stored / len(json.dumps(game.state)))
    assert all(ratio < 6 for ratio in ratios), ratios
    game = response.get_json()
    for version in (3999, 2048, 1601, 26):
        body = client.get(f"/api/v1/games/{game['id']}?at={version}").get_json()
        assert len(body["adjustments"]) == version


def test_an_import_into_an_unknown_group_is_refused(app, client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    record = export(client, game)
    record["group"] = "no-such-group"
    before = rows(app)
    response = client.post("/api/v1/games/import", json=record, headers={"Authorization": "Bearer whatever"})
    assert_problem(response, 404)
    assert rows(app) == before


# ---------------------------------------------------------------- the score sheet

def sheet(client, game) -> list[list[str]]:
    response = client.get(f"/api/v1/games/{game['id']}/export.csv")
    assert response.status_code == 200
    assert response.mimetype == "text/csv" and response.mimetype_params.get("charset") == "utf-8"
    assert "attachment" in response.headers["Content-Disposition"]
    return list(csv.reader(io.StringIO(response.get_data(as_text=True))))


@pytest.mark.parametrize("name", GAMES)
def test_the_score_sheet_has_a_row_per_round_a_column_per_player_and_the_totals(client, api, name):
    game = play(api, name, SEEDS.get(name, 1), undo_rate=0)
    state = api.state(game)
    table = sheet(client, game)
    players = state["players"]
    assert table[0] == [state.get("round_label", "round"), *players]
    assert len(table) == len(state["rounds"]) + 2
    for row, entry in zip(table[1:-1], state["rounds"]):
        assert row == [str(entry["round"]), *(str(entry["scores"][p]) if p in entry["scores"] else "" for p in players)]
    assert table[-1] == ["total", *(str(state["standings"][p]) for p in players)]


def test_the_score_sheet_of_a_new_game_is_its_header_and_totals(client, api):
    game = api.create("five-crowns", ["Ann", "Bob"])
    assert sheet(client, game) == [["round", "Ann", "Bob"], ["total", "0", "0"]]


def test_names_that_a_spreadsheet_would_run_are_quoted(client, api):
    names = ["=HYPERLINK(\"x\")", "+1", "-Bob", "@SUM(A1)"]
    game = api.create("five-crowns", names)
    table = sheet(client, game)
    assert table[0][1:] == ["'" + n for n in names]
    assert all(not cell.startswith(("=", "+", "-", "@")) for row in table for cell in row)
    # numbers stay numbers: a negative round score in Ninety-nine is written as it is
    game = api.create("ninety-nine", ["Ann", "Bob"], {"tokens": 9})
    play_to_a_round(api, game)
    assert sheet(client, game)[1] == ["1", "-3", "-1"]


def play_to_a_round(api, game):
    """Bob reaches 33 (Ann loses a token), Bob passes 66 (Bob loses one), Ann goes over 99 (two more):
    the round's scores are negative (tokens lost)."""
    for player, card, *value in (("Ann", "KS"), ("Bob", "KH"), ("Ann", "KD"), ("Bob", "3S"), ("Ann", "QS"),
                                 ("Bob", "QH"), ("Ann", "QD"), ("Bob", "QC"), ("Ann", "JS"), ("Ann", "JH"),
                                 ("Ann", "10S", 10)):
        move = {"type": "play", "player": player, "card": card}
        if value:
            move["value"] = value[0]
        api.move(game, move)
    assert api.state(game)["rounds"]


def test_during_play_even_the_token_gets_no_face_down_card(client, api):
    """G-5 holds while the game is on: the token's holder is a phone at the table, so the record it
    exports leaves a closed trade out, as the public one does, until the game is finished."""
    for seed in range(40):
        game = play(api, "xix", seed, max_moves=30, undo_rate=0)
        record = export(client, game)
        if record["status"] == "in_progress" and any(
                m["payload"]["type"] == "trade" and "card" in m["payload"].get("hidden", []) for m in record["moves"]):
            break
    else:
        raise AssertionError("no XIX game in play traded a closed card")
    assert record["complete"] is False
    assert record == {**export(client, game, token=False), "exported_at": record["exported_at"]}


def test_the_json_export_is_saved_under_the_games_name_as_the_score_sheet_is(client, api):
    """Issue 33: the JSON download was saved as "export"; it takes the game's name, like the CSV."""
    game = api.create("nines", ["Ann", "Bob"])
    disposition = client.get(f"/api/v1/games/{game['id']}/export").headers["Content-Disposition"]
    assert disposition == f'inline; filename="nines-{game["id"]}.json"'
    assert client.get(f"/api/v1/games/{game['id']}/export.csv").headers["Content-Disposition"] == \
        f'attachment; filename="nines-{game["id"]}.csv"'
