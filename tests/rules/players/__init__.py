"""Random players: one per engine, each building a legal move from a state and its allowed moves.

Every one of them now and then makes the table's own moves too (T-1, T-2): ``adjustment`` here,
and a ``correct_round`` of a round entered whole; and now and then, between rounds, it switches how
the table records (T-4, ``switch``) and then enters whole rounds."""
from __future__ import annotations

import random

ADJUST = {"type": "adjust", "player": "Ann", "points": 2, "reason": "A forgotten bonus"}  # a well-formed sample
SWITCH = {"type": "switch_record", "record": "rounds"}


def switch(allowed: dict, rng: random.Random, chance: float = 0.05) -> dict | None:
    """Now and then, between rounds, the table changes how it records (T-4)."""
    entry = allowed.get("switch_record")
    if entry is None or rng.random() >= chance:
        return None
    return {"type": "switch_record", "record": entry["choices"]["record"][0]}


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
