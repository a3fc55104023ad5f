"""A random Nines player: deals and turns that keep the card accounting (N9-1), grid positions
and sources from ``allowed``, reveals that agree with the face-up cards, now and then a quick
hand result."""
from __future__ import annotations

import random
from collections import Counter

from referee.cards import JOKER, STANDARD_RANKS, STANDARD_SUITS

from players import ADJUST, SWITCH, adjustment, switch

DECK = [rank + suit for suit in STANDARD_SUITS for rank in STANDARD_RANKS] + [JOKER]

SAMPLES = {  # a well-formed move of every type (whether the table may make it now is another matter)
    "deal": {"type": "deal", "discard": "7D", "revealed": {}},
    "turn": {"type": "turn", "player": "Ann", "source": "stock", "card": "QH", "position": None},
    "reveal": {"type": "reveal", "player": "Ann", "grid": ["5H"] * 9},
    "reveal_all": {"type": "reveal_all", "grids": {}},
    "hand_result": {"type": "hand_result", "grids": {}},
    "correct_round": {"type": "correct_round", "round": 1, "reason": "Ann's grid was misread", "grids": {}},
    "switch_record": SWITCH,
    "adjust": ADJUST,
}


def _seen(state: dict) -> Counter:
    cards = [c for grid in state["grids"].values() for c in grid if c is not None]
    return Counter(cards + state["discard_pile"] + list(state.get("stock_cards") or []))


def _unseen_card(state: dict, seen: Counter, rng: random.Random) -> str:
    decks = state["options"]["decks"]
    card = rng.choice([c for c in DECK if seen[c] < decks * (2 if c == JOKER else 1)])
    seen[card] += 1
    return card


def random_move(state: dict, allowed: dict, rng: random.Random) -> dict:
    table = adjustment(allowed, state["totals"], rng) or switch(allowed, rng)
    if table:
        return table
    if "correct_round" in allowed and rng.random() < 0.01:  # T-1: a finished hand's grids entered again
        fresh: Counter = Counter()
        return {"type": "correct_round", "round": rng.choice(allowed["correct_round"]["choices"]["round"]),
                "reason": "entered wrong",
                "grids": {p: [_unseen_card(state, fresh, rng) for _ in range(9)] for p in state["players"]}}
    seen = _seen(state)
    if "hand_result" in allowed and state["record"] == "rounds" and rng.random() < 0.5:  # T-4: points
        return {"type": "hand_result", "points": {p: rng.randint(0, 40) for p in state["players"]}}
    if "hand_result" in allowed:
        if rng.random() < 0.1 or state["record"] == "rounds":
            return {"type": "hand_result",
                    "grids": {p: [_unseen_card(state, seen, rng) for _ in range(9)] for p in state["players"]}}
    if "deal" in allowed:
        revealed = {p: {str(pos): _unseen_card(state, seen, rng) for pos in rng.sample(range(9), 3)}
                    for p in state["players"]}
        return {"type": "deal", "discard": _unseen_card(state, seen, rng), "revealed": revealed}
    if "reveal_all" in allowed and rng.random() < 0.5:
        return {"type": "reveal_all", "grids": {
            p: [card or _unseen_card(state, seen, rng) for card in state["grids"][p]]
            for p in allowed["reveal"]["players"]}}
    if "reveal" in allowed:
        player = rng.choice(allowed["reveal"]["players"])
        grid = [card or _unseen_card(state, seen, rng) for card in state["grids"][player]]
        return {"type": "reveal", "player": player, "grid": grid}
    turn = allowed["turn"]
    player, choices = turn["players"][0], turn["choices"]
    source = rng.choice(choices["source"])
    if source == "discard":
        card = state["discard_pile"][-1]
    elif state.get("stock_cards") is not None:
        card = rng.choice(state["stock_cards"])
    else:
        card = _unseen_card(state, seen, rng)
    # Mostly fill a face-down position, so that hands end.
    face_down = turn["facts"]["face_down"]
    position = rng.choice(face_down) if face_down and rng.random() < 0.7 else rng.choice(choices["position"])
    move = {"type": "turn", "player": player, "source": source, "card": card, "position": position}
    if position in face_down:
        move["replaced"] = _unseen_card(state, seen, rng)
    return move
