"""XIX over HTTP: whole games to a winner, illegal moves (422, rule id, version unchanged), the judge."""
from __future__ import annotations

import json
import re

import pytest

ANN, BOB = "Ann", "Bob"
PLAYERS = [ANN, BOB]


def play(player, card, source="closed"):
    return {"type": "play", "player": player, "card": card, "from": source}


class Table:
    """The real cards, dealt from ``order``, and a plain deterministic strategy: play the
    highest card held, always ``choice`` after a strike, draft the highest card, trade the
    lowest card for slot 0."""

    def __init__(self, order, choice="raise"):
        self.choice = choice
        self.closed = {ANN: set(order[:6]), BOB: set(order[6:12])}
        self.open = {ANN: set(), BOB: set()}
        self.row = [{"face": "down", "card": c} for c in order[12:17]]

    def _held(self, name):
        return [(c, "closed") for c in self.closed[name]] + [(c, "open") for c in self.open[name]]

    def move(self, body):
        name = body["to_play"]
        if body["phase"] == "trick":
            card, source = max(self._held(name))
            return play(name, card, source)
        if body["phase"] == "decision":
            return {"type": "decide", "player": name, "choice": self.choice}
        if body["phase"] == "draft":
            return {"type": "draft", "player": name, "card": max(body["exchange_cards"])}
        card, source = min(self._held(name))
        return {"type": "trade", "player": name, "card": card, "from": source, "slot": 0,
                "strike_card": self.row[0]["card"]}

    def follow(self, move):
        name, kind = move["player"], move["type"]
        if kind == "play":
            (self.closed if move["from"] == "closed" else self.open)[name].remove(move["card"])
        elif kind == "draft":
            self.open[name].add(move["card"])
        elif kind == "trade":
            (self.closed if move["from"] == "closed" else self.open)[name].remove(move["card"])
            taken = self.row[0]
            (self.closed if taken["face"] == "down" else self.open)[name].add(taken["card"])
            self.row[0] = {"face": "down" if move["from"] == "closed" else "up", "card": move["card"]}


def play_out(api, game, table):
    body = game
    for _ in range(1000):
        if body["status"] == "finished":
            return body
        move = table.move(body)
        version = body["version"]
        body = api.move(game, move)
        assert body["version"] == version + 1
        table.follow(move)
        assert body["open_hands"] == {n: sorted(table.open[n]) for n in PLAYERS}
        assert body["hand_sizes"] == {n: len(table.closed[n]) for n in PLAYERS}
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("order", [
    list(range(1, 19)),
    [18, 1, 9, 10, 2, 17, 3, 16, 11, 8, 4, 15, 5, 14, 6, 13, 7, 12],
    [7, 12, 3, 16, 9, 1, 18, 10, 2, 5, 14, 11, 4, 6, 8, 13, 15, 17],
])
def test_whole_game_to_a_winner(api, order):
    game = api.create("xix", PLAYERS)
    assert game["game"] == "xix" and game["phase"] == "trick" and game["to_play"] == ANN
    assert game["hand_sizes"] == {ANN: 6, BOB: 6} and len(game["strike_row"]) == 5
    final = play_out(api, game, Table(order))
    points = final["points"]
    assert final["standings"] == points and final["phase"] == "finished" and final["to_play"] is None
    awarded = sum(points.values())
    assert awarded == 19 or max(points.values()) >= 19
    winner = (min if awarded == 19 else max)(points, key=points.get)
    assert final["winners"] == [winner]
    assert [r["round"] for r in final["rounds"]] == list(range(1, len(final["rounds"]) + 1))
    assert final["rounds"][-1]["totals"] == points
    stored = api.state(game)
    assert stored["winners"] == [winner] and stored["version"] == final["version"]
    refused = api.move(game, play(winner, 1), expect=422)
    assert refused["rule"] == "X19-5"
    assert api.state(game)["version"] == final["version"]


def test_game_of_one_point_exchanges_ends_on_exactly_19_awarded(api):
    """Every struck player abandons at once: each exchange is worth 1 (X19-4), so after 19
    exchanges exactly 19 points are awarded and the player with fewer points wins (X19-5)."""
    game = api.create("xix", PLAYERS, {"first_leader": BOB})
    assert game["to_play"] == BOB
    final = play_out(api, game, Table(list(range(1, 19)), choice="abandon"))
    assert len(final["rounds"]) == 19 and sum(final["points"].values()) == 19
    assert all(r["stakes"] == 1 and r["ended_by"] == "abandoned" for r in final["rounds"])
    assert final["end"]["rule"] == "X19-5" and final["end"]["reason"] == "exactly 19 awarded"
    assert final["winners"] == [min(final["points"], key=final["points"].get)]


def test_illegal_moves_are_422_with_the_rule_and_change_nothing(api):
    game = api.create("xix", PLAYERS)
    cases = [
        (play(BOB, 5), "X19-2"),                                   # Ann leads first (G-2)
        (play(ANN, 5, "open"), "X19-7"),                           # her open hand is empty
        ({"type": "decide", "player": ANN, "choice": "raise"}, "X19-3"),
        ({"type": "draft", "player": ANN, "card": 5}, "X19-6"),
    ]
    for move, rule in cases:
        body = api.move(game, move, expect=422)
        assert body["status"] == 422 and body["rule"] == rule and body["detail"]
    body = api.move(game, play(ANN, 10))
    assert body["trick"] == [{"player": ANN, "card": 10}] and body["version"] == 1
    assert api.move(game, play(BOB, 10), expect=422)["rule"] == "X19-7"     # 10 is on the table
    body = api.move(game, play(BOB, 9))                                     # 10 + 9 = 19: Bob takes it
    assert body["strikes"] == {ANN: 1, BOB: 0} and body["stakes"] == 1
    assert body["phase"] == "decision" and body["to_play"] == ANN
    assert api.move(game, play(BOB, 3), expect=422)["rule"] == "X19-3"
    assert api.state(game)["version"] == 2


@pytest.mark.parametrize("move", [
    {"type": "play", "player": ANN, "card": 19, "from": "closed"},
    {"type": "play", "player": ANN, "card": True, "from": "closed"},
    {"type": "play", "player": ANN, "card": 5},
    {"type": "play", "player": ANN, "card": 5, "from": "closed", "extra": 1},
    {"type": "play", "player": "Cid", "card": 5, "from": "closed"},
    {"type": "trade", "player": ANN, "card": 5, "from": "closed", "slot": 7, "strike_card": None},
    {"type": "shuffle", "player": ANN},
])
def test_malformed_moves_are_422(api, move):
    game = api.create("xix", PLAYERS)
    body = api.move(game, move, expect=422)
    assert body["status"] == 422
    assert api.state(game)["version"] == 0


def test_bad_create(api):
    api.create("xix", [ANN, BOB, "Cid"], expect=422)
    api.create("xix", PLAYERS, {"first_leader": "Cid"}, expect=422)


def test_judge_trick(api):
    assert api.judge("xix", "trick", {"lead": 10, "follow": 9}) == {
        "winner": "follow", "rule": "X19-2", "explanation": "10 + 9 = 19, so the lower card (9) takes the trick.",
        "says": "The card that followed, 9, takes the trick (X19-2): 10 + 9 = 19, so the lower card (9) takes the "
                "trick."}
    assert api.judge("xix", "trick", {"lead": 12, "follow": 3})["winner"] == "lead"
    assert api.judge("xix", "trick", {"lead": 7, "follow": 7}, expect=422)["rule"] == "X19-1"
    api.judge("xix", "trick", {"lead": 0, "follow": 7}, expect=422)
    api.judge("xix", "trick", {"lead": 3}, expect=422)
    api.judge("xix", "trick", {"lead": 3, "follow": 4, "why": "x"}, expect=422)


def test_rules_endpoint_lists_the_rulings(client):
    body = client.get("/api/v1/rules/xix").get_json()
    assert set(body["rulings"]) == {"G-1", "G-2", "T-1", "T-2", "T-4"} | {f"X19-{i}" for i in range(1, 9)}
    assert set(body["moves"]) == {"play", "decide", "draft", "trade", "adjust", "exchange_result", "correct_round",
                                  "switch_record"}
    assert body["options"]["record"]["default"] == "moves"
    assert body["judges"]["trick"]["path"] == "/api/v1/judge/xix/trick"


def test_strikes_draft_and_both_kinds_of_trade_over_http(api):
    """X19-3 forced abandon without a move, X19-4 stakes, X19-6 draft order and both trades,
    X19-7 card locations: the public fields as the issue names them."""
    game = api.create("xix", PLAYERS)
    decide = {"type": "decide", "player": BOB, "choice": "raise"}
    for lead, follow in [(18, 2), (17, 3)]:
        api.move(game, play(ANN, lead))
        body = api.move(game, play(BOB, follow))
        assert body["phase"] == "decision" and body["to_play"] == BOB
        api.move(game, decide)
    api.move(game, play(ANN, 16))
    body = api.move(game, play(BOB, 4))                       # Bob's third strike: no decision
    assert body["phase"] == "draft" and body["to_play"] == BOB
    assert body["strikes"] == {ANN: 0, BOB: 3} and body["stakes"] == 3 and body["points"] == {ANN: 3, BOB: 0}
    assert api.move(game, decide, expect=422)["rule"] == "X19-3"
    assert api.move(game, {"type": "draft", "player": ANN, "card": 18}, expect=422)["rule"] == "X19-6"
    for name, card in [(BOB, 18), (ANN, 2), (BOB, 17), (ANN, 3), (BOB, 16), (ANN, 4)]:
        body = api.move(game, {"type": "draft", "player": name, "card": card})
    assert body["phase"] == "trade" and body["to_play"] == BOB
    assert body["open_hands"] == {ANN: [2, 3, 4], BOB: [16, 17, 18]} and body["hand_sizes"] == {ANN: 3, BOB: 3}
    trade = {"type": "trade", "player": BOB, "card": 17, "from": "open", "slot": 4, "strike_card": None}
    assert api.move(game, {**trade, "player": ANN, "card": 2}, expect=422)["rule"] == "X19-6"
    assert api.move(game, {**trade, "card": 2}, expect=422)["rule"] == "X19-7"      # Ann's open card
    body = api.move(game, trade)                              # open card in face up; face-down card to closed
    assert body["strike_row"][4] == {"face": "up", "card": 17} and len(body["strike_row"]) == 5
    assert body["open_hands"][BOB] == [16, 18] and body["hand_sizes"][BOB] == 4
    assert body["phase"] == "trick" and body["exchange"] == 2 and body["to_play"] == ANN
    assert body["strikes"] == {ANN: 0, BOB: 0} and body["trick"] == []
    assert api.move(game, play(ANN, 17), expect=422)["rule"] == "X19-7"              # face up in the row
    # exchange 2: Bob takes one trick, Ann abandons, drafts first, and trades a closed card face down
    api.move(game, play(ANN, 12))
    api.move(game, play(BOB, 13))
    body = api.move(game, {"type": "decide", "player": ANN, "choice": "abandon"})
    assert body["points"] == {ANN: 3, BOB: 1} and body["to_play"] == ANN and body["phase"] == "draft"
    api.move(game, {"type": "draft", "player": ANN, "card": 13})
    api.move(game, {"type": "draft", "player": BOB, "card": 12})
    body = api.move(game, {"type": "trade", "player": ANN, "card": 9, "from": "closed", "slot": 4,
                           "strike_card": 17})
    assert body["strike_row"][4] == {"face": "down", "card": None}
    assert body["open_hands"][ANN] == [2, 3, 4, 13, 17] and body["hand_sizes"][ANN] == 1
    assert body["to_play"] == BOB                             # the taker of the last trick leads


def _to_the_trade(api, game):
    """Exchange 1 to Bob's trade: three strikes on Bob, the draft (X19-3, X19-6)."""
    for lead, follow in [(18, 2), (17, 3)]:
        api.move(game, play(ANN, lead))
        api.move(game, play(BOB, follow))
        api.move(game, {"type": "decide", "player": BOB, "choice": "raise"})
    api.move(game, play(ANN, 16))
    api.move(game, play(BOB, 4))
    for name, card in [(BOB, 18), (ANN, 2), (BOB, 17), (ANN, 3), (BOB, 16), (ANN, 4)]:
        api.move(game, {"type": "draft", "player": name, "card": card})


def test_g5_a_card_traded_face_down_is_never_shown(api, client):
    """G-5: the closed card Bob puts face down into the strike row stays unseen in the log, the
    past tables, the pages and the refusals; the service still counts it (X19-7)."""
    game = api.create("xix", PLAYERS)
    _to_the_trade(api, game)
    body = api.move(game, {"type": "trade", "player": BOB, "card": 11, "from": "closed", "slot": 2})
    assert body["strike_row"][2] == {"face": "down", "card": None}
    logged = api.log(game)["moves"][-1]["move"]
    assert logged == {"type": "trade", "player": BOB, "from": "closed", "slot": 2, "hidden": ["card"]}
    error = api.move(game, play(ANN, 11), expect=422)            # the card is accounted for ...
    assert error["rule"] == "X19-7" and "slot" not in error["detail"]  # ... but not located
    pages = {path: client.get(f"/g/{game['id']}{path}") for path in ("", "/log", f"/at/{body['version']}")}
    for path, page in pages.items():
        html = page.get_data(as_text=True)
        assert page.status_code == 200 and "strike" in html, path
        assert "trades 11" not in html and '"card": 11' not in html, path
    assert "trades a closed card with strike-row slot C" in pages["/log"].get_data(as_text=True)


def test_the_strike_row_is_drawn_as_each_player_sees_it(api, client):
    """The slots are lettered from the first player's left; the second player, sitting opposite,
    sees the same letters in the other order, so both name a card the same way."""
    game = api.create("xix", PLAYERS)
    _to_the_trade(api, game)
    api.move(game, {"type": "trade", "player": BOB, "card": 17, "from": "open", "slot": 4})
    html = client.get(f"/g/{game['id']}").get_data(as_text=True)
    rows = re.findall(r'<ol class="row plain strike-row" data-seat="(\d)">(.*?)</ol>', html, re.S)
    assert [seat for seat, _ in rows] == ["0", "1"]
    letters = [re.findall(r'<small class="muted">([A-E])</small>', row) for _, row in rows]
    assert letters == [list("ABCDE"), list("EDCBA")]
    faces = [re.findall(r'<span class="cardface">([^<]+)</span>', row) for _, row in rows]
    assert faces[0][4] == "17" and faces[1][0] == "17"             # E: Ann's right, Bob's left


def _public(client, game, path):
    """A public GET of the game, with what names this very game (its id, the times) taken out."""
    response = client.get(f"/api/v1/games/{game['id']}{path}")
    assert response.status_code == 200, response.get_json()
    text = response.get_data(as_text=True).replace(game["id"], "<id>")
    body = json.loads(text)
    for entry in body.get("moves", []):
        entry.pop("created_at", None)
    return body


def _cards_shown(view: dict) -> list[int]:
    """Every card a public XIX table names where a card can lie."""
    shown = [c for hand in view["open_hands"].values() for c in hand] + list(view["exchange_cards"])
    shown += [slot["card"] for slot in view["strike_row"] if slot["card"] is not None]
    shown += [play["card"] for play in view["trick"]]
    shown += [t[side]["card"] for t in view["tricks"] for side in ("lead", "follow")]
    return shown


def test_g5_past_tables_and_the_log_never_show_a_face_down_trade(api, client):
    """G-5: "a card recorded face down for card accounting (an XIX trade ...) is never shown by the
    service, in a state, a log, a past table": two games that differ only in the closed card Bob
    trades face down (11 or 10) show the same table at every version (``?at=N``) and the same log;
    neither names the card where it lies."""
    games = {}
    for hidden, kept in ((11, 10), (10, 11)):
        game = api.create("xix", PLAYERS)
        _to_the_trade(api, game)
        body = api.move(game, {"type": "trade", "player": BOB, "card": hidden, "from": "closed", "slot": 2})
        traded_at = body["version"]
        assert body["strike_row"][2] == {"face": "down", "card": None} and hidden in body["unseen"]
        # exchange 2 goes on: Ann leads, Bob follows with a closed card, Ann raises, Bob leads again
        api.move(game, play(ANN, 12))
        api.move(game, play(BOB, 13))
        api.move(game, {"type": "decide", "player": ANN, "choice": "raise"})
        body = api.move(game, play(BOB, 14))
        assert body["phase"] == "trick" and body["to_play"] == ANN
        games[hidden] = (game, traded_at, body["version"])
    (eleven, traded_at, last), (ten, _, _) = games[11], games[10]
    for version in range(last + 1):
        past = _public(client, eleven, f"?at={version}")
        assert past == _public(client, ten, f"?at={version}"), version      # nothing depends on the card
        assert past["version"] == version
        if version >= traded_at:
            assert past["strike_row"][2] == {"face": "down", "card": None}, version
            assert 11 in past["unseen"] and 11 not in _cards_shown(past), version
    now = _public(client, eleven, "")
    assert now == _public(client, ten, "") and 11 in now["unseen"] and 11 not in _cards_shown(now)
    log = _public(client, eleven, "/moves")
    assert log == _public(client, ten, "/moves")
    trade = next(e["move"] for e in log["moves"] if e["move"]["type"] == "trade" and e["move"]["from"] == "closed")
    assert trade == {"type": "trade", "player": BOB, "from": "closed", "slot": 2, "hidden": ["card"]}
    assert "11" not in json.dumps(trade)
    # a face-down card named as taken from the row stays unseen too (the strike card is private)
    game = api.create("xix", PLAYERS)
    _to_the_trade(api, game)
    api.move(game, {"type": "trade", "player": BOB, "card": 11, "from": "closed", "slot": 2, "strike_card": 9})
    logged = api.log(game)["moves"][-1]["move"]
    assert logged == {"type": "trade", "player": BOB, "from": "closed", "slot": 2, "hidden": ["card", "strike_card"]}
    for version in range(api.state(game)["version"] + 1):
        past = _public(client, game, f"?at={version}")
        assert 9 not in _cards_shown(past) and 11 not in _cards_shown(past), version


# ------------------------------------------------------------------ T-4: recorded by exchanges

def exchange(ann, bob, abandoned=None):
    move = {"type": "exchange_result", "strikes": {ANN: ann, BOB: bob}}
    if abandoned:
        move["abandoned"] = abandoned
    return move


@pytest.mark.parametrize("version, entries, points, winner, reason", [
    # 1.0 (X19-3, X19-4): abandons and third strikes; 16 + 3 = 19 awarded, the fewer points win (X19-5)
    ("1.0", [exchange(2, 3, BOB), exchange(1, 0, ANN), exchange(2, 3), exchange(2, 1, ANN)],
     {ANN: 16, BOB: 1 + 3}, None, None),
    ("1.0", [exchange(2, 3, BOB), exchange(3, 2), exchange(1, 2, BOB)],
     {ANN: 11, BOB: 8}, BOB, "exactly 19 awarded"),
    # 2.0 (X19-8): a third strike ends each exchange, 19 or more wins
    ("2.0", [exchange(3, 0), exchange(2, 3), exchange(2, 3), exchange(3, 2), exchange(1, 3)],
     {ANN: 21, BOB: 11}, ANN, "19 or more"),
])
def test_t4_a_whole_game_entered_exchange_by_exchange(api, version, entries, points, winner, reason):
    game = api.create("xix", PLAYERS, {"rules": version, "record": "rounds"})
    assert game["record"] == "rounds" and game["rules"] == version and game["hands_known"] is True
    assert set(game["allowed"]) == {"exchange_result", "adjust", "switch_record"}
    assert api.refused(game, play(ANN, 5), "T-4")["legal"] == {"type": ["exchange_result", "switch_record"]}
    body = game
    for number, entry in enumerate(entries, start=1):
        if body["status"] == "finished":
            break
        version_before = body["version"]
        body = api.move(game, entry)
        assert body["version"] == version_before + 1 and body["rounds"][-1]["round"] == number
        last = body["rounds"][-1]
        assert last["recorded"] == "rounds" and last["totals"] == body["points"] == body["standings"]
        if body["status"] == "in_progress":
            assert body["to_play"] == last["winner"] and body["exchange"] == number + 1 and body["phase"] == "trick"
    if winner is None:                   # 16-4: on to the next exchange
        assert body["status"] == "in_progress" and body["points"] == points
        body = api.move(game, exchange(0, 2, BOB))      # Ann 2 more: 18-4, 22 awarded
        assert body["status"] == "in_progress"
        body = api.move(game, exchange(0, 1, BOB))      # 19-4: 19 or more
        winner, reason, points = ANN, "19 or more", {ANN: 19, BOB: 4}
    assert body["status"] == "finished" and body["winners"] == [winner] and body["end"]["reason"] == reason
    assert body["points"] == points and body["hands_known"] is False
    api.refused(game, exchange(1, 0, ANN), "X19-5")
    log = api.log(game)["moves"]
    assert all(entry["move"]["type"] == "exchange_result" for entry in log)
    assert sum(r["stakes"] for r in body["rounds"]) == sum(points.values())


def test_t4_impossible_exchanges_are_422_citing_the_ruling_and_change_nothing(api):
    game = api.create("xix", PLAYERS, {"record": "rounds"})
    for move, rule in [(exchange(0, 0), "X19-3"), (exchange(3, 3), "X19-3"), (exchange(1, 2), "X19-3"),
                       (exchange(0, 2, ANN), "X19-3"), (exchange(4, 1, ANN), "X19-3"),
                       ({"type": "exchange_result", "strikes": {ANN: 1}, "abandoned": ANN}, "X19-4")]:
        api.refused(game, move, rule)
    assert api.move(game, {"type": "exchange_result", "strikes": {ANN: "one", BOB: 3}}, expect=422)["status"] == 422
    two = api.create("xix", PLAYERS, {"record": "rounds", "rules": "2.0"})
    api.refused(two, exchange(3, 1, ANN), "X19-8")
    api.refused(two, exchange(2, 1), "X19-8")
    assert api.state(game)["version"] == 0 and api.state(two)["version"] == 0


def test_t4_t1_switching_between_exchanges_and_correcting_an_exchange_entered_whole(api):
    """Exchange 1 by moves, the switch in its draft (which skips the draft and the trade), two
    exchanges whole, back to moves (the hands no longer known, X19-7 refuses only what is known to
    be elsewhere), and a correction of a whole exchange; the one refereed by moves takes none."""
    game = api.create("xix", PLAYERS)
    api.move(game, play(ANN, 18))
    body = api.move(game, play(BOB, 2))
    api.refused(game, {"type": "switch_record", "record": "rounds"}, "T-4")        # inside the exchange
    body = api.move(game, {"type": "decide", "player": BOB, "choice": "abandon"})
    assert body["phase"] == "draft" and body["allowed"]["switch_record"]["choices"] == {"record": ["rounds"]}
    api.refused(game, exchange(1, 0, ANN), "X19-6")                                 # the draft comes first
    body = api.move(game, {"type": "switch_record", "record": "rounds"})
    assert (body["record"], body["phase"], body["exchange"], body["to_play"]) == ("rounds", "trick", 2, ANN)
    assert body["hands_known"] is False and body["hand_sizes"] == {ANN: None, BOB: None}
    body = api.move(game, exchange(1, 2, ANN))                                      # Bob wins 3
    body = api.move(game, exchange(0, 1, BOB))                                      # Ann wins 1
    assert body["points"] == {ANN: 2, BOB: 3} and body["to_play"] == ANN
    assert body["allowed"]["correct_round"]["choices"] == {"round": [2, 3]}
    api.refused(game, {"type": "correct_round", "round": 1, "reason": "x", "strikes": {ANN: 0, BOB: 1},
                       "abandoned": BOB}, "T-1")
    fixed = api.move(game, {"type": "correct_round", "round": 3, "reason": "Ann abandoned", "strikes": {ANN: 1, BOB: 0},
                            "abandoned": ANN})
    assert fixed["points"] == {ANN: 1, BOB: 4} and fixed["to_play"] == BOB             # Bob leads now (X19-2)
    assert fixed["rounds"][2]["corrections"][0]["replaced"]["winner"] == ANN
    body = api.move(game, {"type": "switch_record", "record": "moves"})
    assert body["record"] == "moves" and "play" in body["allowed"]
    body = api.move(game, play(BOB, 9, "open"))                                     # may be true: not refused
    assert api.refused(game, play(ANN, 9, "closed"), "X19-7")["detail"].endswith("already played in this exchange.")
    body = api.move(game, play(ANN, 10))                                            # 9 + 10: Bob's 9 takes it
    assert body["phase"] == "decision" and body["to_play"] == ANN
    api.refused(game, {"type": "switch_record", "record": "rounds"}, "T-4")
    api.refused(game, exchange(1, 0, ANN), "T-4")
    log = [entry["move"]["type"] for entry in api.log(game)["moves"]]
    assert log == ["play", "play", "decide", "switch_record", "exchange_result", "exchange_result", "correct_round",
                   "switch_record", "play", "play"]
