"""A random XIX player: cards from the hands ``allowed`` offers (an open card, or a closed one the
service cannot place elsewhere, X19-7), raises and abandons, draft picks and trades with any slot;
now and then, between exchanges, an exchange entered whole (T-4) or corrected (T-1)."""
from __future__ import annotations

import random

from referee.rules import xix

from players import ADJUST, SWITCH, adjustment, switch

SAMPLES = {  # a well-formed move of every type (whether the table may make it now is another matter)
    "play": {"type": "play", "player": "Ann", "card": 7, "from": "closed"},
    "decide": {"type": "decide", "player": "Ann", "choice": "raise"},
    "draft": {"type": "draft", "player": "Ann", "card": 7},
    "trade": {"type": "trade", "player": "Ann", "card": 7, "from": "closed", "slot": 0},
    "exchange_result": {"type": "exchange_result", "strikes": {"Ann": 1, "Bob": 3}},
    "correct_round": {"type": "correct_round", "round": 1, "reason": "Ann abandoned, not Bob",
                      "strikes": {"Ann": 2, "Bob": 1}, "abandoned": "Ann"},
    "switch_record": SWITCH,
    "adjust": ADJUST,
}


def _cards(state: dict, player: str, source: str, rng: random.Random) -> list[int]:
    """Cards the referee may take from ``source``: an open card it knows there, else (the hands no
    longer known, T-4) any card it cannot place elsewhere; a closed card named before, or any such
    card while the closed hand may hold one (X19-7)."""
    unplaced = [c for c in xix.DECK if xix._known_location(state, c) is None]
    if source == "open":
        return state["open_hands"][player] or unplaced
    known = state["closed_known"][player]
    full = state["closed_sizes"][player] is not None and xix._unknown_closed(state, player) == 0
    return known if known and (rng.random() < 0.5 or full or not unplaced) else unplaced


def _whole(state: dict, rng: random.Random) -> dict:
    """An exchange as the table enters it (T-4): its loser's strikes (the third in 2.0, X19-8), the
    winner's, and who abandoned (X19-3), left out now and then after a third strike."""
    loser, winner = rng.sample(state["players"], 2)
    if state["options"]["rules"] == "2.0":
        return {"strikes": {loser: 3, winner: rng.randint(0, 2)}}
    strikes = {loser: rng.randint(1, 3), winner: rng.randint(0, 2)}
    return {"strikes": strikes} if strikes[loser] == 3 and rng.random() < 0.5 else \
        {"strikes": strikes, "abandoned": loser}


def random_move(state: dict, allowed: dict, rng: random.Random) -> dict:
    table = adjustment(allowed, state["points"], rng) or switch(allowed, rng)
    if table:
        return table
    if "correct_round" in allowed and rng.random() < 0.01:  # T-1: an exchange entered whole, entered again
        return {"type": "correct_round", "round": rng.choice(allowed["correct_round"]["choices"]["round"]),
                "reason": "entered wrong", **_whole(state, rng)}
    if "exchange_result" in allowed and (state["record"] == "rounds" or rng.random() < 0.05):
        return {"type": "exchange_result", **_whole(state, rng)}
    kind, entry = next(iter(allowed.items()))
    player, choices = entry["players"][0], entry.get("choices", {})
    if kind == "decide":
        return {"type": "decide", "player": player, "choice": "raise" if rng.random() < 0.6 else "abandon"}
    if kind == "draft":
        return {"type": "draft", "player": player, "card": rng.choice(choices["card"])}
    offered = {source: _cards(state, player, source, rng) for source in choices["from"]}
    source = rng.choice([source for source, cards in offered.items() if cards])
    move = {"type": kind, "player": player, "card": rng.choice(offered[source]), "from": source}
    if kind == "trade":
        move["slot"] = rng.choice(choices["slot"])
    return move
