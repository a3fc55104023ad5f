"""Random players: one per engine, each building a legal move from a state and its allowed moves.

Every one of them now and then makes the table's own moves too (T-1, T-2): ``adjustment`` here,
and the Five Crowns and Nines players a ``correct_round`` of a finished round."""
from __future__ import annotations

import random

ADJUST = {"type": "adjust", "player": "Ann", "points": 2, "reason": "A forgotten bonus"}  # a well-formed sample


def adjustment(allowed: dict, totals: dict, rng: random.Random, chance: float = 0.01) -> dict | None:
    """Now and then a small adjustment (T-2) of a player ``allowed`` offers, never taking a total
    below 0 (where the game counts upward, that is refused)."""
    entry = allowed.get("adjust")
    if entry is None or rng.random() >= chance:
        return None
    player = rng.choice(entry["choices"]["player"])
    points = rng.choice([-2, -1, 1, 2, 3])
    if totals[player] + points < 0:
        points = -points
    return {"type": "adjust", "player": player, "points": points, "reason": f"random {points:+d}"}
