"""A random Ninety-nine player: a card not used up since the last shuffle, a declared value for a
10 or an A from ``allowed``, now and then a missed draw, and between rounds now and then a round
entered whole (T-4), a switch of how the table records, or a finished whole round entered again
(T-1)."""
from __future__ import annotations

import random

from referee.cards import STANDARD_RANKS, STANDARD_SUITS, rank_of

from players import ADJUST, adjustment

DECK = [rank + suit for suit in STANDARD_SUITS for rank in STANDARD_RANKS]

SAMPLES = {  # a well-formed move of every type (whether the table may make it now is another matter)
    "play": {"type": "play", "player": "Ann", "card": "5H"},
    "missed_draw": {"type": "missed_draw", "player": "Ann"},
    "round_result": {"type": "round_result", "lost": {"Bob": 2}, "ended_by": "Ann", "ending": "reached_99"},
    "correct_round": {"type": "correct_round", "round": 1, "reason": "Bob lost one more", "lost": {"Bob": 3},
                      "ended_by": "Ann"},
    "switch_record": {"type": "switch_record", "record": "rounds"},
    "adjust": ADJUST,
}


def whole_round(state: dict, ended_by: str, rng: random.Random) -> dict:
    """A round as a table enters it whole: who ended it and how, and what that cost (N99-5, N99-7),
    now and then a little more for someone who passed 33 or 66 on the way."""
    tokens = state["tokens"]
    ending = rng.choice(["reached_99", "passed_99", "no_card"])
    others = [p for p in state["players"] if p not in state["out"] and p != ended_by]
    if ending == "reached_99":
        lost = {p: min(2, tokens[p]) for p in others}
    else:
        lost = {ended_by: min(2 if ending == "passed_99" else 3, tokens[ended_by])}
    keep = rng.choice(others)  # someone stays in, whatever the extra costs
    extra = rng.choice([p for p in [ended_by, *others] if p != keep])
    if rng.random() < 0.3 and not (ending == "reached_99" and extra == ended_by):
        lost[extra] = min(lost.get(extra, 0) + 1, tokens[extra])
    return {"type": "round_result", "lost": lost, "ended_by": ended_by, "ending": ending}


def random_move(state: dict, allowed: dict, rng: random.Random) -> dict:
    table = adjustment(allowed, state["tokens"], rng)
    if table:
        return table
    if "correct_round" in allowed and rng.random() < 0.02:  # T-1: a whole round entered again, as it was
        number = rng.choice(allowed["correct_round"]["choices"]["round"])
        entry = next(r for r in state["rounds"] if r["round"] == number)
        return {"type": "correct_round", "round": number, "reason": "checked again", "lost": dict(entry["lost"]),
                "ended_by": entry["ended_by"], "ending": entry["ending"]}
    by_rounds = "play" not in allowed  # the table records by rounds (T-4): only now and then, and not for long
    if "switch_record" in allowed and rng.random() < (0.5 if by_rounds else 0.02):
        return {"type": "switch_record", "record": allowed["switch_record"]["choices"]["record"][0]}
    if "round_result" in allowed and (by_rounds or rng.random() < 0.05):
        return whole_round(state, rng.choice(allowed["round_result"]["choices"]["ended_by"]), rng)
    if "missed_draw" in allowed and rng.random() < 0.05:
        return {"type": "missed_draw", "player": rng.choice(allowed["missed_draw"]["players"])}
    play = allowed["play"]
    copies = state["options"]["decks"]
    card = rng.choice([c for c in DECK if state["pile"].count(c) < copies])
    move = {"type": "play", "player": rng.choice(play["players"]), "card": card}
    values = play.get("facts", {}).get("declared", {}).get(rank_of(card))
    if values:
        move["value"] = rng.choice(values)
    return move
