"""Whole games played over HTTP with the rules' real moves: each move is drawn by the game's random
player (tests/rules/players, or the generic player for a game without one) from what the engine
allows, sent to the service, and now and then undone. Used by the export/import and the stats
tests, over every registered game (``GAMES``)."""
from __future__ import annotations

import random
import sys
from pathlib import Path

from referee.cards import STANDARD_RANKS, STANDARD_SUITS, rank_of
from referee.rules import ENGINES
from referee.rules import ninety_nine as n99

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules"))
from players import player_for, quick_options, table_for  # noqa: E402

GAMES = list(ENGINES)  # every registered game, the games of the tests too


def table(name: str) -> tuple[list[str], dict]:
    """The players and options of a short game of ``name``."""
    engine = ENGINES[name]
    return table_for(engine), quick_options(engine)


def random_player(engine):
    return player_for(engine)


def _ninety_nine(state, allowed, rng):
    """Reach 99 when a card can (so that rounds are won as well as lost), else any card."""
    if "play" in allowed and state["total"] >= 88:
        copies = state["options"]["decks"]
        active = len([p for p in state["players"] if p not in state["out"]])
        for card in (rank + suit for rank in STANDARD_RANKS for suit in STANDARD_SUITS):
            if state["pile"].count(card) >= copies:
                continue
            for value in n99.DECLARED.get(rank_of(card), (None,)):
                if n99.play_effect(state["total"], card, value, active).total == n99.TARGET:
                    move = {"type": "play", "player": state["to_play"], "card": card}
                    if value is not None:
                        move["value"] = value
                    return move
    return random_player(n99.GAME)(state, allowed, rng)


def _five_crowns(state, allowed, rng):
    """Half the rounds entered as a round result (a table that only keeps score), half turn by turn."""
    if "round_result" in allowed and state["phase"] == "deal" and rng.random() < 0.5:
        went_out = rng.choice(allowed["round_result"]["choices"]["went_out"])
        return {"type": "round_result", "went_out": went_out,
                "hands": {p: {"points": rng.randint(0, 60)} for p in state["in_round"] if p != went_out}}
    return random_player(ENGINES["five-crowns"])(state, allowed, rng)


PICKS = {"ninety-nine": _ninety_nine, "five-crowns": _five_crowns}


def play(api, name: str, seed: int, players=None, options=None, max_moves: int | None = None,
         undo_rate: float = 0.05, undo_every: int | None = None, create=None) -> dict:
    """Create a game (``create(name, players, options)`` or ``api.create``) and play it to its end (or
    ``max_moves`` moves), undoing a move now and then (at ``undo_rate``, and after every
    ``undo_every``-th move); returns the created game (id and token)."""
    engine = ENGINES[name]
    default_players, default_options = table(name)
    players = list(players or default_players)
    options = dict(default_options if options is None else options)
    pick = PICKS.get(name) or player_for(engine)
    rng = random.Random(seed)
    game = (create or api.create)(name, players, options)
    history = [engine.new_game(players, options)]
    sent = 0
    while engine.outcome(history[-1])["status"] != "finished" and (max_moves is None or sent < max_moves):
        move = pick(history[-1], engine.allowed(history[-1]), rng)
        api.move(game, move)
        history.append(engine.apply(history[-1], move))
        sent += 1
        undo = rng.random() < undo_rate or (undo_every is not None and sent % undo_every == 0)
        if undo and engine.outcome(history[-1])["status"] != "finished":
            api.undo(game)
            history.pop()
    return game
