"""G-3: every refusal of a move or a verdict request that breaks a rule names the ruling: a wrong
number of players, a card that is not in the game's deck, more copies than the decks hold, a move
of no cards where one or more are needed. Over every registered engine and every verdict route,
over HTTP: what a test needs of an engine (its table, a sample of each move, a request each verdict
answers) comes from tests/rules/players and the engine's declarations."""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from referee.rules import ENGINES
from referee.rules.fields import Card, Cards, Shaped

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules"))
from players import samples_for, table_for  # noqa: E402

NOT_A_CARD = "ZZ9"
VERDICTS = {  # a body naming a card outside the deck (else one made from the verdict's declared example)
    ("ninety-nine", "play"): {"total": 10, "card": NOT_A_CARD},
    ("nines", "grid"): {"grid": ["5H"] * 8 + [NOT_A_CARD]},
    ("xix", "trick"): {"lead": 19, "follow": 3},
    ("five-crowns", "hand"): {"round": 1, "cards": ["3H", "4H", NOT_A_CARD]},
    ("five-crowns", "meld"): {"round": 1, "cards": ["3H", "4H", NOT_A_CARD]},
    ("sixty-nine", "set"): {"cards": ["1A", NOT_A_CARD]},
    ("sixty-nine", "score"): {"captured": [["1A", "2B", NOT_A_CARD]]},
}
TOO_MANY_COPIES = {  # the same, with more copies than the decks hold
    ("nines", "grid"): {"grid": ["5H"] * 9, "decks": 2},
    ("five-crowns", "hand"): {"round": 1, "cards": ["3H"] * 5},
    ("five-crowns", "meld"): {"round": 1, "cards": ["3H"] * 5},
    ("sixty-nine", "set"): {"cards": ["1A", "1A"]},
    ("sixty-nine", "score"): {"captured": [["1A", "2B", "3C"]], "hand": ["1A"]},
}


# The house-rule values the audit found refused without a ruling, with the ruling each must cite.
HOUSE_RULE_VALUES = [
    ("ninety-nine", {"hand_size": 7}, "N99-9"),
    ("nines", {"joker_points": 4}, "N9-9"),
    ("five-crowns", {"decks": 3}, "FC-8"),
    ("xix", {"rules": "3.0"}, "X19-8"),
    ("sixty-nine", {"single_winner": "yes"}, "S69-13"),
]


OUT_OF_RANGE = [  # verdict values the rules do not allow, with the ruling each must cite (G-3)
    ("ninety-nine", "play", {"total": 10, "card": "5H", "players": 1}, "N99-1"),
    ("ninety-nine", "play", {"total": 10, "card": "5H", "players": 17}, "N99-1"),
    ("nines", "grid", {"grid": ["5H"] * 3 + ["2C", "3C", "4C", "6C", "7C", "KS"], "decks": 0}, "N9-1"),
    ("nines", "grid", {"grid": ["5H"] * 3 + ["2C", "3C", "4C", "6C", "7C", "KS"], "joker_points": 4}, "N9-9"),
    ("five-crowns", "hand", {"round": 12, "cards": ["3H", "4H", "5H"]}, "FC-2"),
    ("five-crowns", "hand", {"wild": "A", "cards": ["3H", "4H", "5H"]}, "FC-2"),
    ("five-crowns", "meld", {"round": 1, "cards": ["3H", "4H", "5H"], "decks": 3}, "FC-8"),
    ("sixty-nine", "score", {"captured": [], "hand": 70}, "S69-1"),
]


def invalid_option_values(info):
    return importlib.import_module("engine_checks").invalid_option_values(info)


def table(name):
    return table_for(ENGINES[name])


def samples(engine):
    """A well-formed move of every type (``tests/rules/players``)."""
    return samples_for(engine)


def with_a_card_spoiled(value):
    """``value`` (a move's field, a verdict request) with one of the strings in it, in turn, made a
    code no deck holds: the forms that may hold a card however the field is shaped."""
    if isinstance(value, str):
        yield NOT_A_CARD
    elif isinstance(value, list):
        for i, item in enumerate(value):
            for bad in with_a_card_spoiled(item):
                yield [*value[:i], bad, *value[i + 1:]]
    elif isinstance(value, dict):
        for key, item in value.items():
            for bad in with_a_card_spoiled(item):
                yield {**value, key: bad}


def card_refusal(body: dict) -> bool:
    """A refusal that names the spoiled code: it refused a card (not a name, a number, a mode...)."""
    return NOT_A_CARD in str(body.get("detail"))


ROUTES = [(name, verdict) for name, engine in ENGINES.items() for verdict in engine.judges]


def test_every_verdict_route_is_tried_with_a_card_outside_the_deck():
    untried = [route for route in ROUTES if route not in VERDICTS and ENGINES[route[0]].judges[route[1]].request.get(
        "example") is None]
    assert not untried, f"list a request for these here, or declare an example request: {untried}"


@pytest.mark.parametrize("name", list(ENGINES))
def test_a_wrong_number_of_players_cites_the_ruling(api, name):
    engine = ENGINES[name]
    low, high = engine.players
    for count in (low - 1, high + 1):
        body = api.create(name, [f"P{i}" for i in range(count)], expect=422)
        assert body["rule"] in engine.rulings, body


@pytest.mark.parametrize("name", list(ENGINES))
def test_a_card_outside_the_deck_in_any_move_cites_the_ruling(api, name):
    engine = ENGINES[name]
    game = api.create(name, table(name))
    tried = 0
    for kind, sample in samples(engine).items():
        for spec in engine.moves[kind].fields:
            if isinstance(spec, (Card, Cards)):
                bad = 99 if getattr(spec, "numbers", False) else NOT_A_CARD
                move = {**sample, spec.name: [bad] if isinstance(spec, Cards) else bad}
                body = api.move(game, move, expect=422)
                assert body["rule"] in engine.rulings, (kind, spec.name, body)
                tried += 1
            elif isinstance(spec, Shaped) and spec.name in sample:  # cards inside a field of its own shape
                for spoiled in with_a_card_spoiled(sample[spec.name]):
                    body = api.move(game, {**sample, spec.name: spoiled}, expect=422)
                    if card_refusal(body):
                        assert body["rule"] in engine.rulings, (kind, spec.name, body)
                        tried += 1
    if not tried:
        pytest.skip(f"no move of {name} names a card")
    assert api.state(game)["version"] == 0


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: "/".join(r))
def test_a_card_outside_the_deck_in_a_verdict_cites_the_ruling(client, route):
    name, verdict = route
    bodies = ([VERDICTS[route]] if route in VERDICTS else
              list(with_a_card_spoiled(ENGINES[name].judges[verdict].request["example"])))
    tried = 0
    for body in bodies:
        response = client.post(f"/api/v1/judge/{name}/{verdict}", json=body)
        assert response.status_code in (400, 422), (body, response.json)
        if route in VERDICTS or card_refusal(response.json):
            assert response.status_code == 422 and response.json["rule"] in ENGINES[name].rulings, response.json
            tried += 1
    assert tried, f"{route}: no code of the example request was refused as a card"


@pytest.mark.parametrize("route", list(TOO_MANY_COPIES), ids=lambda r: "/".join(r))
def test_more_copies_than_the_decks_hold_in_a_verdict_cites_the_ruling(client, route):
    name, verdict = route
    response = client.post(f"/api/v1/judge/{name}/{verdict}", json=TOO_MANY_COPIES[route])
    assert response.status_code == 422 and response.json["rule"] in ENGINES[name].rulings, response.json


def test_a_69_play_of_no_cards_cites_the_ruling(api):
    game = api.create("sixty-nine", ["Ann", "Bob", "Cid"])
    api.move(game, {"type": "deal", "dealer": "Cid", "flip": "5A"})
    body = api.move(game, {"type": "play", "player": "Ann", "set": 1, "cards": []}, expect=422)
    assert body["rule"] == "S69-3"


@pytest.mark.parametrize("name", list(ENGINES))
def test_an_invalid_option_value_cites_the_options_ruling(api, app, name):
    # G-3 over every engine: each option's value outside its declared schema (range, enum, type,
    # null, a name that is no player's) is refused naming the option's ruling, and creates nothing
    engine = ENGINES[name]
    tried = 0
    for option, info in engine.options.items():
        for value in invalid_option_values(info):
            body = api.create(name, table(name), {option: value}, expect=422)
            assert body["rule"] == info["rule"] and body["rule"] in engine.rulings, (option, value, body)
            assert body["status"] == 422 and body["detail"]
            tried += 1
    assert tried
    with app.app_context():
        from referee.models import Game
        assert Game.query.count() == 0


@pytest.mark.parametrize("name, options, rule", HOUSE_RULE_VALUES, ids=[n for n, _, _ in HOUSE_RULE_VALUES])
def test_the_audits_house_rule_values_cite_their_ruling(api, name, options, rule):
    body = api.create(name, table(name), options, expect=422)
    assert body["rule"] == rule, body


def test_deck_and_player_counts_cite_the_deck_rulings(api):
    # N99-1: one deck, or two; eleven hands of five cannot come from one
    body = api.create("ninety-nine", [f"P{i}" for i in range(11)], {"decks": 1, "hand_size": 5}, expect=422)
    assert body["rule"] == "N99-1" and "Too many players" in body["detail"]
    api.create("ninety-nine", [f"P{i}" for i in range(11)], {"decks": 2, "hand_size": 5})
    # N9-1: 3 decks for 4-6 players; the table may choose more, never fewer
    body = api.create("nines", ["Ann", "Bob", "Cid", "Dee"], {"decks": 2}, expect=422)
    assert body["rule"] == "N9-1"
    api.create("nines", ["Ann", "Bob", "Cid", "Dee"], {"decks": 3})


def test_a_nines_verdict_without_decks_refuses_nine_copies_citing_n9_1(client):
    response = client.post("/api/v1/judge/nines/grid", json={"grid": ["5H"] * 9})
    assert response.status_code == 422 and response.json["rule"] == "N9-1", response.json
    response = client.post("/api/v1/judge/nines/grid", json={"grid": ["5H"] * 9, "decks": 9})
    assert response.status_code == 200 and response.json["points"] == 0


@pytest.mark.parametrize("name, verdict, body, rule", OUT_OF_RANGE,
                         ids=[f"{n}/{v}/{r}" for n, v, _, r in OUT_OF_RANGE])
def test_a_verdict_value_the_rules_do_not_allow_cites_the_ruling(client, name, verdict, body, rule):
    response = client.post(f"/api/v1/judge/{name}/{verdict}", json=body)
    assert response.status_code == 422 and response.json["rule"] == rule, response.json
