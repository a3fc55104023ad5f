"""A group's stats (referee.stats, GET /api/v1/groups/{id}/stats) equal a recomputation from the
games' logs, done here on its own: each game's moves in effect replayed with the engine, and every
figure read off the replay as the rules define it (never through referee.stats). Also the group's
CSV export and the input refusals."""
from __future__ import annotations

import csv
import io
from collections import Counter

import pytest
from play_helpers import GAMES, play, table

from referee.rules import ENGINES
from referee.rules import ninety_nine as n99

LOWER_IS_BETTER = {name for name, engine in ENGINES.items() if engine.lower_is_better}
# (game, players, options, seed, finish): 25 games of the five types, 21 finished, seats and tables varied;
# then three of every other registered game (two finished), on its own table
PLAN = [
    ("ninety-nine", ["Ann", "Bob", "Cid"], {"tokens": 2}, 1, True),
    ("ninety-nine", ["Bob", "Dee", "Ann", "Cid"], {"tokens": 2}, 2, True),
    ("ninety-nine", ["Cid", "Ann"], {"tokens": 3}, 3, True),
    ("ninety-nine", ["Ann", "Bob", "Cid"], {"tokens": 2}, 4, True),
    ("ninety-nine", ["Ann", "Bob", "Cid"], {"tokens": 5}, 5, False),
    ("nines", ["Ann", "Bob", "Cid"], {"hands": 2}, 1, True),
    ("nines", ["Dee", "Cid"], {"hands": 1}, 2, True),
    ("nines", ["Ann", "Bob", "Cid", "Dee"], {"hands": 1}, 3, True),
    ("nines", ["Bob", "Ann"], {"hands": 2, "joker_points": -5}, 4, True),
    ("nines", ["Ann", "Bob", "Cid"], {"hands": 3}, 5, False),
    ("five-crowns", ["Ann", "Bob", "Cid"], {}, 1, True),
    ("five-crowns", ["Cid", "Dee"], {"tie_break": "play_off"}, 2, True),
    ("five-crowns", ["Ann", "Bob", "Cid", "Dee"], {"round_order": "down"}, 3, True),
    ("five-crowns", ["Ann", "Bob", "Cid"], {}, 4, True),
    ("five-crowns", ["Bob", "Cid"], {}, 5, False),
    ("xix", ["Ann", "Bob"], {}, 1, True),
    ("xix", ["Cid", "Ann"], {}, 2, True),
    ("xix", ["Bob", "Cid"], {"rules": "2.0"}, 3, True),
    ("xix", ["Ann", "Dee"], {}, 4, True),
    ("xix", ["Ann", "Bob"], {}, 5, False),
    ("sixty-nine", ["Ann", "Bob", "Cid"], {"target": 12}, 1, True),
    ("sixty-nine", ["Dee", "Cid", "Bob"], {"target": 10, "single_winner": True}, 2, True),
    ("sixty-nine", ["Ann", "Bob"], {"target": 15}, 3, True),
    ("sixty-nine", ["Ann", "Bob", "Cid", "Dee"], {"target": 8}, 4, True),
    ("sixty-nine", ["Ann", "Cid"], {"target": 12}, 5, False),
]
PLAN += [(name, table(name)[0], table(name)[1], seed, seed < 3) for name in GAMES
         if name not in {entry[0] for entry in PLAN} for seed in (1, 2, 3)]
RENAMES = {"Cid": "Cyd"}


def new_group(client, name="Friday cards") -> dict:
    response = client.post("/api/v1/groups", json={"name": name})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def creator(client, group):
    def create(name, players, options):
        response = client.post("/api/v1/games", json={"game": name, "players": players, "options": options,
                                                      "group": group["id"]},
                               headers={"Authorization": f"Bearer {group['token']}"})
        assert response.status_code == 201, response.get_json()
        return response.get_json()
    return create


# ---------------------------------------------------------------- the recomputation

def live_moves(client, game) -> list[dict]:
    """The moves in effect, in order, from the game's whole record (the token's: nothing hidden)."""
    record = client.get(f"/api/v1/games/{game['id']}/export",
                        headers={"Authorization": f"Bearer {game['token']}"}).get_json()
    live = {}
    for entry in record["moves"]:
        if not entry["voided"]:
            live[entry["version"]] = entry["payload"]
    assert sorted(live) == list(range(1, record["version"] + 1))
    return [live[v] for v in sorted(live)]


def replay(name, players, options, moves):
    engine = ENGINES[name]
    states = [engine.new_game(list(players), dict(options))]
    for move in moves:
        states.append(engine.apply(states[-1], move))
    return states


def _number(card: str) -> int | None:
    return int(card[0]) if card[0].isdigit() else None


def _s69_round(cards_by_set: list[list[str]]) -> Counter:
    """S69-11's bonuses, read off one player's captured sets of one round."""
    found = Counter()
    digits = Counter()
    for cards in cards_by_set:
        found["sets_captured"] += 1
        found["cards_captured"] += len(cards)
        printed = {_number(c) for c in cards} - {None}
        if {6, 9} <= printed:
            found["six_nine_bonuses"] += 1
            found["bonus_points"] += 2
        if {"WILD", "LOCK", "SCRAMBLE"} <= set(cards):
            found["specials_bonuses"] += 1
            found["bonus_points"] += 3
        if len(cards) == 6:
            found["six_card_bonuses"] += 1
            found["bonus_points"] += 6
        digits.update(d for d in map(_number, cards) if d is not None)
    full = min(min(digits[d] for d in (0, 1, 2, 3, 4, 5, 7, 8)), (digits[6] + digits[9]) // 2)
    found["collections"] += full
    found["bonus_points"] += 10 * full
    return found


def _nines_sets(grid: list[str]) -> int:
    rank = lambda card: None if card == "JK" else card[:-1]
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8)]
    return sum(1 for line in lines if len({rank(grid[i]) for i in line}) == 1 and rank(grid[line[0]]) is not None)


def figures_of(name, states, moves) -> dict:
    players = states[0]["players"]
    final = states[-1]
    found = {p: Counter() for p in players}
    steps = list(zip(moves, states, states[1:]))
    if name == "ninety-nine":
        for move, before, after in steps:
            if move["type"] == "adjust":
                continue  # the table's decision (T-2), not tokens lost in play
            for p in players:
                found[p]["tokens_lost"] += max(0, before["tokens"][p] - after["tokens"][p])
            if move["type"] == "play":
                active = len([p for p in players if p not in before["out"]])
                if n99.play_effect(before["total"], move["card"], move.get("value"), active).total == 99:
                    found[move["player"]]["rounds_won"] += 1
        keys = ("tokens_lost", "rounds_won")
    elif name == "sixty-nine":
        for move, before, after in steps:
            if len(after["rounds"]) > len(before["rounds"]):
                for p in players:
                    found[p] += _s69_round([s["cards"] for s in after["captured"][p]])
        keys = ("sets_captured", "cards_captured", "six_nine_bonuses", "specials_bonuses", "six_card_bonuses",
                "collections", "bonus_points")
    elif name == "five-crowns":
        out = {}  # round -> who went out, as the last entry of that round (a correction, T-1) says
        for move, before in zip(moves, states):
            if move["type"] == "go_out":
                out[before["round"]] = move["player"]
            elif move["type"] == "round_result":
                out[before["round"]] = move["went_out"]
            elif move["type"] == "correct_round":
                out[move["round"]] = move["went_out"]
        for p in out.values():
            found[p]["rounds_out"] += 1
        keys = ("rounds_out",)
    elif name == "nines":
        for entry in final["rounds"]:
            for p in players:
                if entry["grids"]:  # a hand entered as points (T-4) shows no sets
                    found[p]["sets_made"] += _nines_sets(entry["grids"][p])
        keys = ("sets_made",)
    elif name == "xix":
        for move, before, after in steps:
            if len(after["rounds"]) > len(before["rounds"]):
                gained = [p for p in players if after["points"][p] > before["points"][p]]
                assert len(gained) == 1
                found[gained[0]]["exchanges_won"] += 1
            if move["type"] == "play":
                for p in players:
                    found[p]["strikes"] += max(0, after["strikes"][p] - before["strikes"][p])
            elif move["type"] == "exchange_result":  # an exchange entered whole (T-4): its strikes as given
                for p in players:
                    found[p]["strikes"] += move["strikes"][p]
            elif move["type"] == "correct_round":  # T-1: the exchange's strikes as corrected
                old = next(r for r in before["rounds"] if r["round"] == move["round"])
                for p in players:
                    found[p]["strikes"] += move["strikes"][p] - old["strikes"][p]
        keys = ("exchanges_won", "strikes")
    else:  # a game whose own figures this module does not recompute shows none
        keys = ()
    return {p: {k: found[p][k] for k in keys} for p in players}


def places_of(name, states, moves, standings, winners) -> dict:
    """Winners first; then the better final total in the game's direction; in Ninety-nine, among
    players with no tokens, whoever was put out later."""
    players = states[0]["players"]
    sign = 1 if name in LOWER_IS_BETTER else -1
    out_at = {}
    if name == "ninety-nine":
        for index, (before, after) in enumerate(zip(states, states[1:])):
            for p in players:
                if p in after["out"] and p not in before["out"]:
                    out_at[p] = index
    key = {p: (p not in winners, sign * standings[p], -out_at.get(p, len(moves))) for p in players}
    return {p: 1 + sum(1 for q in players if key[q] < key[p]) for p in players}


def expected_stats(client, played: list[tuple[str, dict, list, dict]], resolve) -> dict:
    """The stats as the rules and the logs make them, by game type."""
    out: dict[str, dict] = {}
    for name, game, players, options in played:
        block = out.setdefault(name, {"games": 0, "in_progress": 0, "players": {}, "pairs": {}, "series": []})
        if client.get(f"/api/v1/games/{game['id']}").get_json()["status"] != "finished":
            # a game in progress counts as such; its record keeps face-down cards out (G-5), so no replay
            block["in_progress"] += 1
            continue
        moves = live_moves(client, game)
        states = replay(name, players, options, moves)
        engine = ENGINES[name]
        final = states[-1]
        result = engine.outcome(final)
        assert result["status"] == "finished"
        block["games"] += 1
        block["series"].append(game["id"])
        standings = engine.standings(final)
        places = places_of(name, states, moves, standings, result["winners"])
        figures = figures_of(name, states, moves)
        better = min if name in LOWER_IS_BETTER else max
        worse = max if name in LOWER_IS_BETTER else min
        for p in players:
            me = block["players"].setdefault(resolve(p), {"games": 0, "won": 0, "finals": [], "round_scores": [],
                                                          "corrected": 0, "adjusted": 0, "figures": Counter()})
            me["corrected"] += sum(1 for r in final["rounds"] if p in r["scores"] and r.get("corrections"))
            me["adjusted"] += sum(m["points"] for m in moves if m["type"] == "adjust" and m["player"] == p)
            me["games"] += 1
            me["won"] += p in result["winners"]
            me["finals"].append(standings[p])
            me["round_scores"] += [r["scores"][p] for r in final["rounds"] if p in r["scores"]]
            me["figures"].update(figures[p])
            me["figures"].update({k: 0 for k in figures[p]})
            for q in players:
                if q != p:
                    pair = block["pairs"].setdefault((resolve(p), resolve(q)), Counter())
                    pair["games"] += 1
                    pair["ahead" if places[p] < places[q] else "behind" if places[p] > places[q] else "tied"] += 1
        block["better"], block["worse"] = better, worse
    result = {}
    for name, block in out.items():
        players = {}
        for p, me in block["players"].items():
            players[p] = {
                "games": me["games"], "won": me["won"], "win_rate": round(me["won"] / me["games"], 4),
                "average_final": round(sum(me["finals"]) / len(me["finals"]), 2),
                "best_final": block["better"](me["finals"]), "rounds": len(me["round_scores"]),
                "best_round": block["better"](me["round_scores"]) if me["round_scores"] else None,
                "worst_round": block["worse"](me["round_scores"]) if me["round_scores"] else None,
                "corrected_rounds": me["corrected"], "adjusted": me["adjusted"], "figures": dict(me["figures"])}
        pairs = [{"player": p, "opponent": q, "games": c["games"], "ahead": c["ahead"], "behind": c["behind"],
                  "tied": c["tied"]} for (p, q), c in block["pairs"].items()]
        result[name] = {"games": block["games"], "in_progress": block["in_progress"], "players": players,
                        "head_to_head": sorted(pairs, key=lambda x: (x["player"].casefold(), x["opponent"].casefold())),
                        "series": block["series"]}
    return result


# ---------------------------------------------------------------- the tests

@pytest.fixture
def friday(client, api):
    """A group with 25 games of the five types (21 finished) and three of each other registered game,
    some moves undone, and Cid renamed Cyd."""
    group = new_group(client)
    create = creator(client, group)
    played = []
    for name, players, options, seed, finish in PLAN:
        game = play(api, name, seed, players=players, options=options, create=create,
                    max_moves=None if finish else 12, undo_rate=0.04)
        played.append((name, game, players, options))
    # the table's own moves: a round corrected (T-1) and a score adjusted (T-2), both after the end
    table_moves = {"five-crowns": {"type": "correct_round", "round": 2, "reason": "Bob's hand was Cid's",
                                   "went_out": "Cid", "hands": {"Ann": {"points": 7}, "Bob": {"points": 0}},
                                   "change_result": True},
                   "sixty-nine": {"type": "adjust", "player": "Bob", "points": 3, "reason": "a forgotten bonus",
                                  "change_result": True}}
    for name, game, players, _ in played:
        if name in table_moves and api.state(game)["status"] == "finished":
            api.move(game, table_moves.pop(name))
    assert not table_moves
    for old, new in RENAMES.items():
        response = client.post(f"/api/v1/groups/{group['id']}/renames", json={"from": old, "to": new},
                               headers={"Authorization": f"Bearer {group['token']}"})
        assert response.status_code == 201, response.get_json()
    return group, played


def test_the_stats_equal_a_recomputation_from_the_logs(client, friday):
    """The main check, then (on the same 25 games: they take a while to play) the series and the CSV."""
    group, played = friday
    assert sum(1 for _ in played) >= 20 and {name for name, *_ in played} == set(ENGINES)
    response = client.get(f"/api/v1/groups/{group['id']}/stats")
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert body["group"] == group["id"]
    expected = expected_stats(client, played, lambda name: RENAMES.get(name, name))
    assert sum(block["games"] for block in expected.values()) >= 20
    assert set(body["games"]) == set(expected) == set(GAMES)
    for name, want in expected.items():
        got = body["games"][name]
        assert got["game"] == name and got["lower_is_better"] == (name in LOWER_IS_BETTER)
        assert (got["games"], got["in_progress"]) == (want["games"], want["in_progress"]), name
        assert set(got["players"]) == set(want["players"]), name
        for player, entry in want["players"].items():
            for key, value in entry.items():
                assert got["players"][player][key] == value, (name, player, key)
        assert got["head_to_head"] == want["head_to_head"], name
        assert [s["id"] for s in got["series"]] == want["series"], name
        assert "Cid" not in got["players"] and all("Cid" not in s["players"] for s in got["series"])
    # what the games did, not only what they count: wins, figures and both directions of "best" occur
    n99_block = body["games"]["ninety-nine"]["players"]
    assert sum(p["figures"]["rounds_won"] for p in n99_block.values()) > 0
    assert sum(p["figures"]["sets_captured"] for p in body["games"]["sixty-nine"]["players"].values()) > 0
    assert sum(p["figures"]["rounds_out"] for p in body["games"]["five-crowns"]["players"].values()) > 0
    assert sum(p["figures"]["strikes"] for p in body["games"]["xix"]["players"].values()) > 0
    assert sum(p["corrected_rounds"] for p in body["games"]["five-crowns"]["players"].values()) >= 3
    assert body["games"]["sixty-nine"]["players"]["Bob"]["adjusted"] >= 3
    # each figure a game counts, its engine names for the pages (Figures.labels)
    for name, block in body["games"].items():
        counted = {k for entry in block["players"].values() for k in entry["figures"]}
        declared = ENGINES[name].figures
        assert counted <= set(declared.labels if declared else ()), name
    check_series(client, group)
    check_group_export(client, group, played)


def check_series(client, group):
    """Each game's rounds: scores and running totals as the game's state keeps them, renamed."""
    body = client.get(f"/api/v1/groups/{group['id']}/stats?game=nines").get_json()
    assert set(body["games"]) == {"nines"}
    for entry in body["games"]["nines"]["series"]:
        state = client.get(f"/api/v1/games/{entry['id']}").get_json()
        named = lambda d: {RENAMES.get(k, k): v for k, v in d.items()}
        assert entry["final"] == named(state["standings"])
        assert [r["scores"] for r in entry["rounds"]] == [named(r["scores"]) for r in state["rounds"]]
        assert [r["totals"] for r in entry["rounds"]] == [named(r["totals"]) for r in state["rounds"]]
        assert entry["winners"] == [RENAMES.get(w, w) for w in state["winners"]]


def check_group_export(client, group, played):
    """Three tables: the games, the stats (one row per game type and player), who placed ahead."""
    response = client.get(f"/api/v1/groups/{group['id']}/export.csv")
    assert response.status_code == 200
    assert response.mimetype == "text/csv" and "attachment" in response.headers["Content-Disposition"]
    table = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    blank = [i for i, row in enumerate(table) if not row]
    assert len(blank) == 2
    games, stats_rows, pairs = table[:blank[0]], table[blank[0] + 1:blank[1]], table[blank[1] + 1:]
    assert games[0][:3] == ["id", "game", "status"] and len(games) == 1 + len(played)
    # an id that starts with '-' is quoted like any text a spreadsheet would run
    assert sorted(row[0].removeprefix("'") for row in games[1:]) == sorted(game["id"] for _, game, *_ in played)
    stats = client.get(f"/api/v1/groups/{group['id']}/stats").get_json()["games"]
    assert stats_rows[0][:4] == ["game", "player", "games", "won"]
    assert len(stats_rows) == 1 + sum(len(block["players"]) for block in stats.values())
    for row in stats_rows[1:]:
        entry = stats[row[0]]["players"][row[1]]
        assert int(row[2]) == entry["games"] and int(row[3]) == entry["won"]
        for column, cell in zip(stats_rows[0][12:], row[12:]):
            assert cell == (str(entry["figures"][column]) if column in entry["figures"] else "")
    assert pairs[0] == ["game", "player", "opponent", "games", "ahead", "behind", "tied"]
    assert len(pairs) == 1 + sum(len(block["head_to_head"]) for block in stats.values())


def test_a_name_a_spreadsheet_would_run_is_quoted_in_the_group_export(client, api):
    group = new_group(client)
    game = play(api, "xix", 1, players=["=cmd|' /C calc'!A0", "@Bob"], create=creator(client, group))
    assert api.state(game)["status"] == "finished"
    text = client.get(f"/api/v1/groups/{group['id']}/export.csv").get_data(as_text=True)
    cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
    assert "'=cmd|' /C calc'!A0" in cells and "'@Bob" in cells
    assert not any(cell.startswith(("=", "@", "+")) for cell in cells)


def test_an_empty_group_has_no_stats(client):
    group = new_group(client)
    assert client.get(f"/api/v1/groups/{group['id']}/stats").get_json() == {"group": group["id"], "games": {}}
    table = list(csv.reader(io.StringIO(client.get(f"/api/v1/groups/{group['id']}/export.csv").get_data(as_text=True))))
    assert table[0][0] == "id" and table[1] == [] and table[2][:2] == ["game", "player"]


@pytest.mark.parametrize("path", ["/stats", "/export.csv"])
def test_bad_requests_for_stats_are_problems(client, path):
    group = new_group(client)
    for url, status in ((f"/api/v1/groups/nope{path}", 404), (f"/api/v1/groups/{'x' * 200}{path}", 404),
                        (f"/api/v1/groups/{group['id']}{path}?game=chess", 422)):
        response = client.get(url)
        assert response.status_code == status and response.mimetype == "application/problem+json", url


def test_a_group_game_exports_and_imports_only_with_the_groups_token(app, client, api):
    group = new_group(client)
    other = new_group(client, "Saturday")
    game = play(api, "nines", 3, create=creator(client, group))
    record = client.get(f"/api/v1/games/{game['id']}/export",
                        headers={"Authorization": f"Bearer {group['token']}"}).get_json()
    assert record["group"] == group["id"] and record["complete"] is True
    # the other group's token opens nothing here
    assert client.get(f"/api/v1/games/{game['id']}/export",
                      headers={"Authorization": f"Bearer {other['token']}"}).status_code == 403
    for headers, status in (({}, 401), ({"Authorization": f"Bearer {other['token']}"}, 403),
                            ({"Authorization": f"Bearer {game['token']}"}, 403)):
        response = client.post("/api/v1/games/import", json=record, headers=headers)
        assert response.status_code == status and response.mimetype == "application/problem+json"
    assert client.get(f"/api/v1/groups/{group['id']}/stats").get_json()["games"]["nines"]["games"] == 1
    response = client.post("/api/v1/games/import", json=record, headers={"Authorization": f"Bearer {group['token']}"})
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["group"] == group["id"]
    assert client.get(f"/api/v1/groups/{group['id']}/stats").get_json()["games"]["nines"]["games"] == 2
    # into no group: the record says so
    record["group"] = None
    response = client.post("/api/v1/games/import", json=record)
    assert response.status_code == 201 and response.get_json()["group"] is None


def test_the_stats_are_pure():
    """referee.stats takes plain data: it loads neither Flask nor a database."""
    import subprocess
    import sys

    code = "import sys, referee.stats; print(sorted(m for m in ('flask', 'sqlalchemy') if m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "[]"
