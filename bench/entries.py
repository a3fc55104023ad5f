"""Entries a table makes per round, one entry per action versus with the bulk entries
(69's ``pass_chances``, Nines' ``reveal_all``), in random whole games played by the games' random
players (``tests/rules/players``). Prints figures; run ``python -m bench.entries [games]``.

Both counts come from the same games: every run of consecutive "I add nothing" chances (69) and
every set of reveals after a player is done (Nines) is one entry with the bulk moves and one entry
per player without them."""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "rules"))

from players import nines as nines_player  # noqa: E402
from players import sixty_nine as sixty_nine_player  # noqa: E402

from referee.rules import nines, sixty_nine  # noqa: E402


def _empty_chance(move: dict) -> bool:
    added = list(move.get("cards") or []) + [c for cards in (move.get("sets") or {}).values() for c in cards]
    return move["type"] == "chance" and not added


def sixty_nine_game(seed: int) -> tuple[int, int, int]:
    """(entries one by one, entries with pass_chances, rounds) of one random game."""
    rng = random.Random(seed)
    state = sixty_nine.new_game(["Ann", "Bob", "Cid", "Dan"], {"target": 40})
    single, bulk, in_run = 0, 0, False
    while sixty_nine.outcome(state)["status"] != "finished":
        move = sixty_nine_player.random_move(state, sixty_nine.allowed(state), rng)
        if move["type"] == "pass_chances":  # the same table action, entered player by player
            moves = []
            while state["phase"] == "chances":
                moves.append({"type": "chance", "player": state["to_play"], "cards": []})
                state = sixty_nine.apply(state, moves[-1])
        else:
            moves = [move]
            state = sixty_nine.apply(state, move)
        for entry in moves:
            single += 1
            empty = _empty_chance(entry)
            if not (empty and in_run):
                bulk += 1
            in_run = empty
    return single, bulk, len(state["rounds"])


def nines_game(seed: int) -> tuple[int, int, int]:
    rng = random.Random(seed)
    state = nines.new_game(["Ann", "Bob", "Cid", "Dan"], {"target": 100})
    single = bulk = 0
    while nines.outcome(state)["status"] != "finished":
        allowed = nines.allowed(state)
        if "deal" in allowed:  # move by move: the quick hand result would hide the turns
            allowed = {"deal": allowed["deal"]}
        move = nines_player.random_move(state, allowed, rng)
        if move["type"] == "hand_result":
            continue
        if move["type"] == "reveal_all":
            single += len(move["grids"])
            bulk += 1
        elif move["type"] == "reveal":
            # count a hand's reveals once with reveal_all: the first reveal of the hand stands for all
            single += 1
            bulk += 1 if len(state["reveals_pending"]) == len(state["players"]) - 1 else 0
        else:
            single += 1
            bulk += 1
        state = nines.apply(state, move)
    return single, bulk, len(state["rounds"])


def main(games: int = 200) -> None:
    print(f"Entries per round, {games} random games each (4 players); python -m bench.entries {games}")
    print(f"{'game':<12} {'rounds':>7} {'one by one':>11} {'bulk':>7} {'saved':>7}")
    for name, play in (("69", sixty_nine_game), ("Nines", nines_game)):
        single = bulk = rounds = 0
        for seed in range(games):
            s, b, r = play(seed)
            single, bulk, rounds = single + s, bulk + b, rounds + r
        print(f"{name:<12} {rounds:>7} {single / rounds:>11.1f} {bulk / rounds:>7.1f} "
              f"{1 - bulk / single:>7.0%}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
