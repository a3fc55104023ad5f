"""A random 69 player: cards not yet public this round (S69-1) into the sets ``allowed`` offers
when the set stays legal (S69-2), passes and flips, chances on the complete sets ``allowed``
names, and a Scramble that arrives is mostly declined."""
from __future__ import annotations

import random
from collections import Counter

from referee.rules.sixty_nine import game
from referee.rules.sixty_nine.sets import copies_of, read_set

from players import ADJUST, SWITCH, adjustment, switch

ALL_CARDS = [f"{d}{s}" for d in range(10) for s in "ABCDEF"] + ["WILD", "LOCK", "SCRAMBLE"]

SAMPLES = {  # a well-formed move of every type (whether the table may make it now is another matter)
    "deal": {"type": "deal", "dealer": "Ann", "flip": "5A"},
    "play": {"type": "play", "player": "Ann", "set": 1, "cards": ["5B"]},
    "pass": {"type": "pass", "player": "Ann", "flip": "7C"},
    "chance": {"type": "chance", "player": "Ann", "cards": []},
    "pass_chances": {"type": "pass_chances"},
    "flip": {"type": "flip", "player": "Ann", "card": "7C"},
    "scramble": {"type": "scramble", "player": "Ann"},
    "round_result": {"type": "round_result", "emptied": "Ann", "players": {}},
    "correct_round": {"type": "correct_round", "round": 1, "reason": "Bob's points were Cid's", "emptied": "Ann",
                      "players": {}},
    "switch_record": SWITCH,
    "adjust": ADJUST,
}


def _fresh(state: dict, rng: random.Random) -> list[str]:
    seen = Counter(game.public_cards(state))
    cards = [c for c in ALL_CARDS for _ in range(copies_of(c) - seen[c])]
    rng.shuffle(cards)
    return cards


def _fitting(table_set: dict, fresh: list[str]) -> str | None:
    return next((c for c in fresh if read_set(table_set["cards"] + [c])[0] is not None), None)


def random_move(state: dict, allowed: dict, rng: random.Random) -> dict:
    table = adjustment(allowed, state["totals"], rng) or switch(allowed, rng)
    if table:
        return table
    if "round_result" in allowed and (state["record"] == "rounds" or rng.random() < 0.05):  # T-4: points
        return {"type": "round_result", "emptied": rng.choice(state["players"]),
                "players": {p: {"points": rng.randint(0, 20)} for p in state["players"]}}
    kind, entry = next(iter(allowed.items()))
    player = (entry["players"] or [None])[0]
    fresh = _fresh(state, rng)
    if kind == "deal":
        return {"type": "deal", "dealer": player, "flip": rng.choice(ALL_CARDS)}
    if kind == "flip":
        return {"type": "flip", "player": player, "card": fresh[0]}
    if kind == "chance" and rng.random() < 0.2:
        return {"type": "pass_chances"}
    if kind == "chance":
        sets = {}
        for set_id in entry["facts"]["open_sets"]:
            card = _fitting(game.find_set(state, set_id), fresh)
            if card and rng.random() < 0.3 and state["hand_sizes"][player] > len(sets):
                sets[str(set_id)] = [card]
                fresh.remove(card)
        return {"type": "chance", "player": player, "sets": sets}
    if "play" not in allowed:
        return {"type": "scramble", "player": player}  # decline the Scramble that just arrived
    ids = list(allowed["play"]["choices"]["set"])
    rng.shuffle(ids)
    for set_id in ids:
        card = _fitting(game.find_set(state, set_id), fresh)
        if card and rng.random() < 0.8:
            return {"type": "play", "player": player, "set": set_id, "cards": [card]}
    return {"type": "pass", "player": player, "flip": fresh[0]}
