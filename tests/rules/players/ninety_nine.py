"""A random Ninety-nine player: a card not used up since the last shuffle, a declared value for a
10 or an A from ``allowed``, and now and then a missed draw."""
from __future__ import annotations

import random

from referee.cards import STANDARD_RANKS, STANDARD_SUITS, rank_of

from players import ADJUST, adjustment

DECK = [rank + suit for suit in STANDARD_SUITS for rank in STANDARD_RANKS]

SAMPLES = {  # a well-formed move of every type (whether the table may make it now is another matter)
    "play": {"type": "play", "player": "Ann", "card": "5H"},
    "missed_draw": {"type": "missed_draw", "player": "Ann"},
    "adjust": ADJUST,
}


def random_move(state: dict, allowed: dict, rng: random.Random) -> dict:
    table = adjustment(allowed, state["tokens"], rng)
    if table:
        return table
    if "missed_draw" in allowed and rng.random() < 0.05:
        return {"type": "missed_draw", "player": rng.choice(allowed["missed_draw"]["players"])}
    play = allowed["play"]
    copies = state["options"]["decks"]
    card = rng.choice([c for c in DECK if state["pile"].count(c) < copies])
    move = {"type": "play", "player": rng.choice(play["players"]), "card": card}
    values = play.get("choices", {}).get("value", {}).get(rank_of(card))
    if values:
        move["value"] = rng.choice(values)
    return move
