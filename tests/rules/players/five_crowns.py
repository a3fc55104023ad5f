"""A random Five Crowns player: deals, draws from the sources ``allowed`` offers, discards and hands
that keep the copy count (FC-1), books of one rank to go out, the cards alone for a final turn
(FC-6; with or without the discard), and now and then a whole round entered as points."""
from __future__ import annotations

import random
from collections import Counter

from referee.cards import FIVE_CROWNS_RANKS, FIVE_CROWNS_SUITS, JOKER
from referee.rules import five_crowns as fc

from players import ADJUST, SWITCH, adjustment, switch

DECK = [rank + suit for suit in FIVE_CROWNS_SUITS for rank in FIVE_CROWNS_RANKS] + [JOKER]

SAMPLES = {  # a well-formed move of every type (whether the table may make it now is another matter)
    "deal": {"type": "deal", "discard": "KH"},
    "draw": {"type": "draw", "player": "Ann", "source": "stock"},
    "discard": {"type": "discard", "player": "Ann", "card": "5S"},
    "go_out": {"type": "go_out", "player": "Ann", "melds": [["3H", "3S", "3D"]], "discard": "5S"},
    "final_turn": {"type": "final_turn", "player": "Ann", "cards": ["3H", "4S", "9D"], "discard": "5S"},
    "round_result": {"type": "round_result", "went_out": "Ann", "hands": {}},
    "correct_round": {"type": "correct_round", "round": 1, "reason": "Bob's hand was Cid's", "went_out": "Ann",
                      "hands": {}},
    "switch_record": SWITCH,
    "adjust": ADJUST,
}


def _fresh(state: dict, seen: Counter, rng: random.Random, count: int = 1) -> list[str]:
    """``count`` cards whose copies are not all in sight yet."""
    decks, found = state["options"]["decks"], []
    for _ in range(count):
        card = rng.choice([c for c in DECK if seen[c] < fc._copies(c, decks)])
        seen[card] += 1
        found.append(card)
    return found


def _books(state: dict, seen: Counter, rng: random.Random, size: int) -> list[list[str]] | None:
    """Books of one rank each, ``size`` cards in all (3 to 5 per book)."""
    lengths = [3] * (size // 3)
    for i in range(size % 3):
        lengths[i % len(lengths)] += 1
    melds, decks = [], state["options"]["decks"]
    for length in lengths:
        ranks = [r for r in FIVE_CROWNS_RANKS
                 if sum(decks - seen[r + s] for s in FIVE_CROWNS_SUITS) >= length]
        if not ranks:
            return None
        rank = rng.choice(ranks)
        cards = [c for s in FIVE_CROWNS_SUITS for c in [rank + s] * (decks - seen[rank + s])]
        meld = rng.sample(cards, length)
        seen.update(meld)
        melds.append(meld)
    return melds


def random_move(state: dict, allowed: dict, rng: random.Random) -> dict:
    table = adjustment(allowed, state["totals"], rng) or switch(allowed, rng)
    if table:
        return table
    if "correct_round" in allowed and rng.random() < 0.01:  # T-1: a finished round entered again as points
        number = rng.choice(allowed["correct_round"]["choices"]["round"])
        seated = list(next(entry for entry in state["rounds"] if entry["round"] == number)["scores"])
        went_out = rng.choice(seated)
        return {"type": "correct_round", "round": number, "reason": "entered wrong", "went_out": went_out,
                "hands": {p: {"points": rng.randint(0, 60)} for p in seated if p != went_out}}
    seen = fc._seen(state)
    if "round_result" in allowed and (rng.random() < 0.05 or state["record"] == "rounds"):
        went_out = rng.choice(allowed["round_result"]["choices"]["went_out"])
        return {"type": "round_result", "went_out": went_out,
                "hands": {p: {"points": rng.randint(0, 60)} for p in state["in_round"] if p != went_out}}
    if "deal" in allowed:
        return {"type": "deal", "discard": _fresh(state, seen, rng)[0]}
    if "draw" in allowed:
        draw = allowed["draw"]
        return {"type": "draw", "player": draw["players"][0], "source": rng.choice(draw["choices"]["source"])}
    player = state["to_play"]
    known = list(state["known"][player])
    discard = known.pop() if known else _fresh(state, seen, rng)[0]
    if "final_turn" in allowed:
        cards = known + _fresh(state, seen, rng, state["cards_dealt"] - len(known))
        if rng.random() < 0.5:  # the cards alone, the discard among them: the service finds it (FC-6)
            return {"type": "final_turn", "player": player, "cards": cards + [discard]}
        return {"type": "final_turn", "player": player, "cards": cards, "discard": discard}
    if "go_out" in allowed and not known and rng.random() < 0.15:
        melds = _books(state, seen, rng, state["cards_dealt"])
        if melds:
            return {"type": "go_out", "player": player, "melds": melds, "discard": discard}
    return {"type": "discard", "player": player, "card": discard}
