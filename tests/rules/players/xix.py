"""A random XIX player: cards from the hands ``allowed`` offers (an open card, or a closed one the
service cannot place elsewhere, X19-7), raises and abandons, draft picks and trades with any slot."""
from __future__ import annotations

import random

from referee.rules import xix

from players import ADJUST, adjustment

SAMPLES = {  # a well-formed move of every type (whether the table may make it now is another matter)
    "play": {"type": "play", "player": "Ann", "card": 7, "from": "closed"},
    "decide": {"type": "decide", "player": "Ann", "choice": "raise"},
    "draft": {"type": "draft", "player": "Ann", "card": 7},
    "trade": {"type": "trade", "player": "Ann", "card": 7, "from": "closed", "slot": 0},
    "adjust": ADJUST,
}


def _card(state: dict, player: str, source: str, rng: random.Random) -> int:
    if source == "open":
        return rng.choice(state["open_hands"][player])
    known = state["closed_known"][player]
    if known and (rng.random() < 0.5 or xix._unknown_closed(state, player) == 0):
        return rng.choice(known)
    return rng.choice([c for c in xix.DECK if xix._known_location(state, c) is None])


def random_move(state: dict, allowed: dict, rng: random.Random) -> dict:
    table = adjustment(allowed, state["points"], rng)
    if table:
        return table
    kind, entry = next(iter(allowed.items()))
    player, choices = entry["players"][0], entry.get("choices", {})
    if kind == "decide":
        return {"type": "decide", "player": player, "choice": "raise" if rng.random() < 0.6 else "abandon"}
    if kind == "draft":
        return {"type": "draft", "player": player, "card": rng.choice(choices["card"])}
    source = rng.choice(choices["from"])
    move = {"type": kind, "player": player, "card": _card(state, player, source, rng), "from": source}
    if kind == "trade":
        move["slot"] = rng.choice(choices["slot"])
    return move
