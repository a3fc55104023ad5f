"""High card: a sixth game that lives only in the tests, written against the engine contract alone.

Each player shows one card from a standard deck; when everyone has shown, the highest rank (ace
high) scores a point, and a tie scores nothing. The first player to five points wins.
"""
from __future__ import annotations

from typing import Any

from referee.cards import STANDARD_RANKS, parse_standard, rank_of
from referee.rules.base import IllegalMove, Move, Game, check_players, finished, in_progress, resolve_options
from referee.rules.fields import Card, Player

NAME = "high-card"
TITLE = "High card"
PLAYERS = (2, 6)
OPTIONS: dict[str, dict[str, Any]] = {"target": {"default": 5, "description": "Points that win the game (HC-2)."}}
RULINGS = {
    "HC-1": "Each player shows one card per trick, in any order; the highest rank (ace high) scores a point, "
            "a tie for highest scores nothing.",
    "HC-2": "The first player to reach the target (default 5) wins.",
}
RANK_ORDER = STANDARD_RANKS[1:] + ("A",)  # ace high
JUDGES = {}


def new_game(players, options=None) -> dict:
    players = check_players(players, *PLAYERS)
    options = resolve_options(OPTIONS, options)
    if type(options["target"]) is not int or not 1 <= options["target"] <= 50:
        raise IllegalMove("HC-2", "The target is a whole number from 1 to 50.")
    return {"players": players, "options": options, "phase": "show", "round": 1, "to_play": None,
            "shown": {}, "points": {p: 0 for p in players}, "rounds": [], "events": []}


def _show(state: dict, move: dict) -> None:
    state["shown"][move["player"]] = move["card"]
    state["events"].append({"text": f"{move['player']} shows {move['card']}", "rule": "HC-1"})
    if len(state["shown"]) < len(state["players"]):
        return
    best = max(RANK_ORDER.index(rank_of(c)) for c in state["shown"].values())
    top = [p for p, c in state["shown"].items() if RANK_ORDER.index(rank_of(c)) == best]
    scores = {p: int(top == [p]) for p in state["players"]}
    for player, point in scores.items():
        state["points"][player] += point
    state["rounds"].append({"round": state["round"], "scores": scores, "totals": dict(state["points"]),
                            "breakdown": {p: [{"rule": "HC-1", "points": scores[p],
                                               "detail": f"showed {state['shown'][p]}"}] for p in state["players"]}})
    state["events"].append({"text": f"{top[0]} takes the trick" if len(top) == 1 else "A tie: nobody scores",
                            "rule": "HC-1"})
    state["shown"] = {}
    if max(state["points"].values()) >= state["options"]["target"]:
        state["phase"] = "finished"
    else:
        state["round"] += 1


MOVES = {
    "show": Move(_show, (Player("player"), Card("card", read=parse_standard, example="AS")),
                 "Show one card for this trick.", ("HC-1",), label="Show a card", says="{player} shows {card}"),
}
PHASES = {"show": ("show",)}


def actors(state: dict, kind: str) -> list[str]:
    return [p for p in state["players"] if p not in state["shown"]]


def refuse_actor(state: dict, kind: str, player: str) -> IllegalMove:
    return IllegalMove("HC-1", f"{player} has already shown a card in this trick.", legal={"player": actors(state, kind)})


def standings(state: dict) -> dict:
    return dict(state["points"])


def outcome(state: dict):
    if state["phase"] != "finished":
        return in_progress()
    best = max(state["points"].values())
    winners = [p for p in state["players"] if state["points"][p] == best]
    return finished(winners, f"{' and '.join(winners)} reached {state['options']['target']} points.", "HC-2")


def public_view(state: dict) -> dict:
    return {"to_play": None, "shown": sorted(state["shown"]), "points": dict(state["points"]),
            "standings": standings(state), "rounds": state["rounds"]}


GAME = Game(module=__name__, name=NAME, title=TITLE, players=PLAYERS, options=OPTIONS, rulings=RULINGS, moves=MOVES,
            phases=PHASES, judges=JUDGES, new_game=new_game, public_view=public_view, standings=standings,
            outcome=outcome, actors=actors, refuse_actor=refuse_actor)
