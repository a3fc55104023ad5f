"""Entries a table makes per round in each of the five games, before and now: one entry per
table action as before the bulk moves and the cards-alone entries, against the entries the table
makes today, in random whole games played by the games' random players (``tests/rules/players``).
Prints figures; run ``python -m bench.entries [games]``.

Both counts come from the same games:

- 69: every run of consecutive "I add nothing" chances is one ``pass_chances`` entry now, one
  entry per player before.
- Nines: the reveals after a player is done are one ``reveal_all`` entry now, one per player before.
- Five Crowns: going out and final turns may be entered as the cards alone (the service finds the
  melds and the discard, FC-4, FC-6). That changes what one entry holds (the cards, not the melds
  and the choice of discard), not how many there are: each cards-alone entry stands for exactly one
  entry before, so the two counts are equal; the script prints how many entries were cards alone.
- XIX and Ninety-nine have no bulk or cards-alone entries: every entry is one thing done at the
  table (a card played, a decision, a draft pick, a trade; a card played, a missed draw) that the
  service cannot infer, so the two counts are equal.

The quick whole-round entries (Nines' ``hand_result``, Five Crowns' ``round_result``) are left out
of the games played: they replace a round's turns by its scores, which is another way to keep
score, not fewer entries for the same record."""
from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "rules"))

from players import five_crowns as five_crowns_player  # noqa: E402
from players import nines as nines_player  # noqa: E402
from players import ninety_nine as ninety_nine_player  # noqa: E402
from players import sixty_nine as sixty_nine_player  # noqa: E402
from players import xix as xix_player  # noqa: E402

from referee.rules import five_crowns, nines, ninety_nine, sixty_nine, xix  # noqa: E402

FOUR = ["Ann", "Bob", "Cid", "Dan"]


def _empty_chance(move: dict) -> bool:
    added = list(move.get("cards") or []) + [c for cards in (move.get("sets") or {}).values() for c in cards]
    return move["type"] == "chance" and not added


def sixty_nine_game(seed: int) -> tuple[int, int, int]:
    """(entries one by one, entries with pass_chances, rounds) of one random game."""
    rng = random.Random(seed)
    state = sixty_nine.new_game(list(FOUR), {"target": 40})
    single, bulk, in_run = 0, 0, False
    while sixty_nine.outcome(state)["status"] != "finished":
        move = sixty_nine_player.random_move(state, sixty_nine.GAME.allowed(state), rng)
        if move["type"] == "pass_chances":  # the same table action, entered player by player
            moves = []
            while state["phase"] == "chances":
                moves.append({"type": "chance", "player": state["to_play"], "cards": []})
                state = sixty_nine.GAME.apply(state, moves[-1])
        else:
            moves = [move]
            state = sixty_nine.GAME.apply(state, move)
        for entry in moves:
            single += 1
            empty = _empty_chance(entry)
            if not (empty and in_run):
                bulk += 1
            in_run = empty
    return single, bulk, len(state["rounds"])


def nines_game(seed: int) -> tuple[int, int, int]:
    rng = random.Random(seed)
    state = nines.new_game(list(FOUR), {"target": 100})
    single = bulk = 0
    while nines.outcome(state)["status"] != "finished":
        allowed = nines.GAME.allowed(state)
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
        state = nines.GAME.apply(state, move)
    return single, bulk, len(state["rounds"])


def _cards_alone(move: dict) -> bool:
    """A Five Crowns entry the service completes: going out without melds, or a final turn
    without melds or without the discard (FC-4, FC-6)."""
    return move["type"] in ("go_out", "final_turn") and ("melds" not in move or "discard" not in move)


def five_crowns_game(seed: int) -> tuple[int, int, int, int]:
    """(entries before, entries now, rounds, entries now given as the cards alone)."""
    rng = random.Random(seed)
    state = five_crowns.new_game(list(FOUR), {})
    entries = alone = 0
    while five_crowns.outcome(state)["status"] != "finished":
        allowed = five_crowns.GAME.allowed(state)
        allowed.pop("round_result", None)  # turn by turn: the quick round result would hide the turns
        move = five_crowns_player.random_move(state, allowed, rng)
        entries += 1
        alone += _cards_alone(move)
        state = five_crowns.GAME.apply(state, move)
    return entries, entries, len(state["rounds"]), alone


def _one_by_one(engine, player, players: list[str], seed: int) -> tuple[int, int, int, int]:
    """A game whose every entry is one table action, before as now."""
    rng = random.Random(seed)
    state = engine.new_game(list(players), {})
    entries = 0
    while engine.outcome(state)["status"] != "finished":
        state = engine.apply(state, player.random_move(state, engine.allowed(state), rng))
        entries += 1
    return entries, entries, len(state["rounds"]), 0


def xix_game(seed: int) -> tuple[int, int, int, int]:
    return _one_by_one(xix.GAME, xix_player, ["Ann", "Bob"], seed)


def ninety_nine_game(seed: int) -> tuple[int, int, int, int]:
    return _one_by_one(ninety_nine.GAME, ninety_nine_player, list(FOUR), seed)


GAMES = (  # name, players, one game: (entries before, entries now, rounds[, cards-alone entries])
    ("69", 4, sixty_nine_game),
    ("Nines", 4, nines_game),
    ("Five Crowns", 4, five_crowns_game),
    ("XIX", 2, xix_game),
    ("Ninety-nine", 4, ninety_nine_game),
)


def main(games: int = 200) -> None:
    print(f"Entries per round, {games} random games each; python -m bench.entries {games}")
    print(f"{'game':<12} {'players':>7} {'rounds':>7} {'before':>8} {'now':>7} {'saved':>7} {'cards alone':>12}")
    for name, players, play in GAMES:
        before = now = rounds = alone = 0
        for seed in range(games):
            b, n, r, *rest = play(seed)
            before, now, rounds, alone = before + b, now + n, rounds + r, alone + (rest[0] if rest else 0)
        share = f"{alone / now:.0%}" if alone else "-"
        print(f"{name:<12} {players:>7} {rounds:>7} {before / rounds:>8.1f} {now / rounds:>7.1f} "
              f"{1 - now / before:>7.0%} {share:>12}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
