"""Nines: 3x3 grids, sets in rows and columns, hands to a target score (rulings N9-1..N9-8).

A hand runs through these phases (``state["phase"]``):

``deal``      before the deal. The table records the ``dealer``'s ``deal`` move (the three face-up
              cards of every player and the first discard; any player may send it); ``to_play``
              already names the player to the dealer's left, who takes the first turn (G-2, N9-8). A table that only wants scores
              records a ``hand_result`` here instead.
``play``      ordinary turns from the dealer's left (N9-3, N9-8).
``reveal``    someone is done (N9-4): every other player records a ``reveal`` of their full grid.
``final``     each other player, from the done player's left, has exactly one more turn (N9-4).
``finished``  a hand ended with someone at or over the target (N9-7).

Card accounting: the service knows where every public card lies (face-up grid cards and the
discard pile); together they may never hold more copies of a card than the decks do (N9-1).
When the stock runs out the discard pile but its top card becomes the new stock (N9-8): from then on
the stock's cards are known (``stock_cards``), they still count as seen, and a stock draw must be
one of them.
"""
from __future__ import annotations

import copy
import re
from typing import Any

from referee.cards import JOKER, check_copies, parse_standard, rank_of
from referee.rules.base import (
    SAYS, Game, IllegalMove, and_names, InvalidInput, Judge, Move, adjust_move,
    check_players, between, correction_move, finished, get_field, in_deck, in_progress, left_of, moves_instead,
    player_option, record_move, RECORD_OPTION, declared_options, replace_round, resolve_options, round_index, shared,
)
from referee.rules import vocabulary
from referee.rules.fields import Card, Choice, Int, Player, Shaped, check_type
from referee.rules.vocabulary import shown
from referee.rules.base import Figures
from referee.texts import N_, T, Text

NAME = "nines"
TITLE = "Nines"
PLAYERS = (2, 18)
CELLS = 9
CARDS_PER_DECK = 54  # N9-1: 52 cards and two Jokers
ROWS = ((0, 1, 2), (3, 4, 5), (6, 7, 8))
COLUMNS = ((0, 3, 6), (1, 4, 7), (2, 5, 8))
FACE_UP_AT_DEAL = 3  # N9-2
JOKER_POINTS = -3  # N9-6; N9-9 lets the table choose -2 or -5

FIRST_DEAL = ("dealer", -1)  # the option naming the first dealer, and its default seat (G-2)
OPTIONS = declared_options(
    Int("decks", N_("Standard decks with two Jokers each: default 2 for 2-3 players, 3 for 4-6, "
                    "one more for every three further players; the table may choose more (N9-1)."),
        lo=2, hi=20, rule="N9-1"),
    Int("target", N_("The game ends after the first hand at whose end a total reaches this (N9-7)."),
        lo=1, hi=100000, default=100, rule="N9-7"),
    Player("dealer", N_("The first hand's dealer; default the last player listed (G-2)."), rule="G-2"),
    Int("hands", N_("House rule: play this many hands, whatever the totals; the target is then "
                    "unused (N9-9)."), lo=1, hi=100, rule="N9-9"),
    Choice("joker_points", N_("House rule: a Joker's points outside a set, -3, -2 or -5 (N9-9)."),
           choices=(-3, -2, -5), default=JOKER_POINTS, rule="N9-9"),
    RECORD_OPTION,
)
WHOLE_ROUND = "hand_result"  # a hand entered whole (T-4)
ROUND_LABEL = "hand"
LOWER_IS_BETTER = True  # penalty points (N9-7)
RULINGS = {
    **shared("G-1", "G-2"),
    "N9-1": N_("Standard decks with two Jokers each: 2 for 2-3 players, 3 for 4-6, one more per three "
               "further players (the table may choose more). Two to eighteen players."),
    "N9-2": N_("Nine cards in a 3x3 grid, positions 0-8 row by row; three face up at the deal; one stock "
               "card starts the discard pile."),
    "N9-3": N_("A turn: take the stock's or the discard pile's top card, then put it face up in any "
               "position and discard the card it replaces (which is revealed), or discard it, "
               "whichever pile it came from."),
    "N9-4": N_("A player with all nine cards face up is done: the others turn all their cards face up, then "
               "each has exactly one more turn from the done player's left; then the hand is scored."),
    "N9-5": N_("A set is a full row or column of three cards of one rank; Jokers never form a set; a card "
               "may be in a row and a column set; diagonals do not count."),
    "N9-6": N_("Card points: in a set 0; otherwise K 0, Joker -3, J and Q 10, A 1, 2-10 face value."),
    "N9-7": N_("The game ends after the first hand at whose end a total reaches the target (default 100); "
               "lowest total wins, ties share."),
    "N9-8": N_("The deal passes left each hand; the dealer's left plays first. A draw from an empty stock "
               "first remakes it from the discard pile but its top card (G-4)."),
    "N9-9": N_("House rules: a fixed number of hands instead of the target (lowest total wins), and a "
               "Joker's points -3, -2 or -5."),
    **shared("T-1", "T-2", "T-4"),
}


# ---------------------------------------------------------------- scoring (N9-5, N9-6)

def card_points(card: str, joker: int = JOKER_POINTS) -> int:
    """Points of a card that is not in a set (N9-6; a Joker's points are the table's, N9-9)."""
    rank = rank_of(card)
    if rank == JOKER:
        return joker
    if rank == "K":
        return 0
    if rank in ("J", "Q"):
        return 10
    if rank == "A":
        return 1
    return int(rank)


def find_sets(grid: list[str]) -> list[dict]:
    """Full rows, then full columns, of three cards of one rank; never Jokers, never diagonals (N9-5)."""
    sets = []
    for cells in ROWS + COLUMNS:
        ranks = {rank_of(grid[i]) for i in cells}
        if len(ranks) == 1 and JOKER not in ranks:
            sets.append({"cells": list(cells), "rank": ranks.pop()})
    return sets


def _line_name(cells: list[int]) -> str:
    if tuple(cells) in ROWS:
        return T("row {n}", n=ROWS.index(tuple(cells)) + 1)
    return T("column {n}", n=COLUMNS.index(tuple(cells)) + 1)


def score_grid(grid: list[str], joker: int = JOKER_POINTS) -> dict:
    """Score one full grid: the total, its sets, each cell's points, and a breakdown citing rulings."""
    sets = find_sets(grid)
    in_set = {i for found in sets for i in found["cells"]}
    points = [0 if i in in_set else card_points(card, joker) for i, card in enumerate(grid)]
    breakdown = [{"rule": "N9-5", "points": 0,
                  "detail": T("Set in {line} (positions {cells}): three cards of rank {rank}.",
                              line=_line_name(s["cells"]), cells=", ".join(map(str, s["cells"])), rank=s["rank"])}
                 for s in sets]
    for i, card in enumerate(grid):
        if i in in_set:
            breakdown.append({"rule": "N9-5", "points": 0,
                              "detail": T("{card} at position {i} is in a set: 0.", card=card, i=i)})
        else:
            rule = "N9-9" if card == JOKER and joker != JOKER_POINTS else "N9-6"
            breakdown.append({"rule": rule, "points": points[i],
                              "detail": T("{card} at position {i}: {points}.", card=card, i=i, points=points[i])})
    return {"points": sum(points), "sets": sets, "card_points": points, "breakdown": breakdown}


# ---------------------------------------------------------------- input parsing

_card = in_deck(lambda code: parse_standard(code, jokers=True), "N9-1")  # G-3


def parse_grid(value: Any, what: str = "grid") -> list[str]:
    """Nine card codes, row by row; a 3x3 nested list is accepted too (N9-2)."""
    if not isinstance(value, list):
        raise InvalidInput(T("'{field}' must be a list of 9 card codes (or 3 rows of 3).", field=what))
    if len(value) == 3 and all(isinstance(row, list) for row in value):
        if any(len(row) != 3 for row in value):
            raise InvalidInput(T("'{field}': each of the 3 rows needs 3 cards.", field=what))
        value = [code for row in value for code in row]
    if len(value) != CELLS:
        raise InvalidInput(T("'{field}' must hold exactly 9 cards, row by row (it has {n}).", field=what,
                             n=len(value)))
    return [_card(code) for code in value]


_POSITION = re.compile(r"^\s*[0-8]\s*$")


def _position_key(key: Any, name: str) -> int:
    """Grid positions arrive as JSON object keys ("0".."8"); plain ints are accepted from Python."""
    if isinstance(key, int) and not isinstance(key, bool) and 0 <= key < CELLS:
        return key
    if isinstance(key, str) and _POSITION.match(key):
        return int(key)
    raise InvalidInput(T("Position {position} for {player} is not a grid position (0-8, row by row).",
                         position=repr(key), player=name))


# ---------------------------------------------------------------- setup

def default_decks(players: int) -> int:
    """N9-1: 2 decks for 2-3 players, 3 for 4-6, one more for every three further players."""
    return 2 if players <= 3 else 3 + (players - 4) // 3


def new_game(players: list[str], options: dict | None = None) -> dict:
    players = check_players(players, *PLAYERS, rule="N9-1")
    opts = resolve_options(OPTIONS, options)   # each value checked, citing its ruling (G-3)
    least = default_decks(len(players))
    decks = opts["decks"] if opts["decks"] is not None else least
    if decks < least:
        raise InvalidInput(T("{n} players need at least {least} decks (N9-1): the table may choose more, never "
                             "fewer.", n=len(players), least=least), rule="N9-1",
                           legal={"decks": between(least, OPTIONS["decks"]["schema"].get("maximum"))})
    target = opts["target"]
    dealer = player_option(opts, "dealer", players, rule="G-2") or players[-1]  # G-2
    hands = opts["hands"]
    joker = opts["joker_points"]
    state = {
        "players": players,
        "options": {"decks": decks, "target": target, "dealer": dealer, "hands": hands, "joker_points": joker,
                    "record": opts["record"]},
        "record": opts["record"],
        "hand": 1,
        "dealer": dealer,
        "totals": {p: 0 for p in players},
        "rounds": [],
        "winners": [],
        "reshuffles": 0,
    }
    _start_hand(state)
    return state


def _start_hand(state: dict) -> None:
    """Before a deal: empty grids, no discard pile, the whole deck undealt; the dealer records the deal."""
    state.update({
        "phase": "deal",
        "grids": {p: [None] * CELLS for p in state["players"]},
        "discard_pile": [],
        "stock": CARDS_PER_DECK * state["options"]["decks"],
        "stock_cards": None,  # the stock's cards once it is remade from the discard pile (N9-8)
        "to_play": left_of(state["players"], state["dealer"]),  # G-2, N9-8: the first turn's player
        "turns": 0,  # turns taken this hand: the first is the dealer's left's (N9-8), then play passes left (G-1)
        "done": None,
        "reveals_pending": [],
        "final_order": [],
        "reshuffles": 0,
    })


# ---------------------------------------------------------------- moves

def _copies(decks: int):
    return lambda card: decks * (2 if card == JOKER else 1)


def _check_accounting(state: dict) -> None:
    """N9-1: every card the table has seen (face-up grid cards, the discard pile, and a stock remade
    from the discard pile, N9-8) never holds more copies than the decks."""
    seen = ([c for grid in state["grids"].values() for c in grid if c is not None] + state["discard_pile"]
            + list(state.get("stock_cards") or []))
    check_copies(seen, _copies(state["options"]["decks"]), rule="N9-1")


def _read_revealed(value: Any, state: dict) -> dict[str, dict[int, str]]:
    """``{name: {position: code}}``: each player's face-up cards at the deal (N9-2)."""
    revealed = {}
    for name, cells in get_field({"revealed": value}, "revealed", dict).items():
        if name not in state["players"]:
            raise InvalidInput(T("'{player}' is not a player in this game.", player=name))
        if not isinstance(cells, dict):
            raise InvalidInput(T("'revealed' for {player} must be an object of position: card.", player=name))
        placed: dict[int, str] = {}
        for key, code in cells.items():
            position = _position_key(key, name)
            if position in placed:
                raise InvalidInput(T("Position {position} for {player} is given twice.", position=position,
                                     player=name))
            placed[position] = _card(code)
        revealed[name] = placed
    return revealed


def _deal(state: dict, move: dict) -> None:
    revealed = move["revealed"]
    grids = {p: [None] * CELLS for p in state["players"]}
    for name, cells in revealed.items():
        for position, card in cells.items():
            grids[name][position] = card
        if len(cells) != FACE_UP_AT_DEAL:
            raise IllegalMove("N9-2", T("{player} turns exactly three cards face up at the deal, not {n}.",
                                        player=name, n=len(cells)))
    missing = [p for p in state["players"] if p not in revealed]
    if missing:
        raise IllegalMove("N9-2", T("Every player turns three cards face up at the deal; missing: {players}.",
                                    players=", ".join(missing)))
    n = len(state["players"])
    state.update({
        "phase": "play",
        "grids": grids,
        "discard_pile": [move["discard"]],
        "stock": CARDS_PER_DECK * state["options"]["decks"] - CELLS * n - 1,
        "to_play": left_of(state["players"], state["dealer"]),  # N9-8
    })
    _check_accounting(state)


def _turn(state: dict, move: dict) -> None:
    player, source, card = move["player"], move["source"], move["card"]
    position, replaced = move.get("position"), move.get("replaced")
    pile, grid = state["discard_pile"], state["grids"][player]
    # N9-3: take the top card of one pile.
    if source == "stock":
        if state["stock"] == 0:
            _remake_stock(state)
        known = state.get("stock_cards")
        if known is not None:
            # N9-8, N9-1: the stock was remade from the discard pile, so the table has seen every card in it.
            if card not in known:
                raise IllegalMove("N9-1", T("The stock was remade from the discard pile and holds no {card}.",
                                            card=card), legal={"card": sorted(set(known))})
            known.remove(card)
        state["stock"] -= 1
    else:
        if card != pile[-1]:
            raise IllegalMove("N9-3", T("Only the top card of the discard pile can be taken: {card}.", card=pile[-1]),
                              legal={"card": [pile[-1]]})
        pile.pop()
    # N9-3: put it face up in place of a card, which is discarded (and revealed), or discard it.
    if position is None:
        if replaced is not None:
            raise IllegalMove("N9-3", N_("Field 'replaced' only goes with a grid position: a discarded card "
                                         "replaces nothing."))
        pile.append(card)
    else:
        pile.append(_replaced_card(grid, position, replaced))
        grid[position] = card
    _check_accounting(state)
    state["turns"] = state.get("turns", 0) + 1
    _after_turn(state, player)


def _replaced_card(grid: list, position: int, replaced: str | None) -> str:
    """The card leaving the grid: already known if it was face up, else named by the move (N9-3)."""
    known = grid[position]
    if known is None:
        if replaced is None:
            raise IllegalMove("N9-3", T("Position {position} was face down: give the card it held in 'replaced' "
                                        "(it is discarded face up).", position=position))
        return replaced
    if replaced is not None and replaced != known:
        raise IllegalMove("N9-3", T("Position {position} holds {card} face up, not {replaced}.", position=position,
                                    card=known, replaced=replaced), legal={"replaced": [known]})
    return known


def _remake_stock(state: dict) -> None:
    """N9-8, G-4: a draw from an empty stock first remakes it from the discard pile but its top
    card (at that moment, never earlier)."""
    pile = state["discard_pile"]
    if len(pile) <= 1:
        raise IllegalMove("N9-8", N_("The stock is empty and the discard pile holds only its top card: "
                                     "take the discard."), legal={"source": ["discard"]})
    state["stock"] = len(pile) - 1
    state["stock_cards"] = pile[:-1]
    del pile[:-1]  # in place: the turn holds this list
    state["reshuffles"] += 1
    state["events"].append({"rule": "N9-8", "text": T("The stock was empty: the discard pile but its top card became "
                                                     "the new stock ({n} cards).", n=state["stock"])})


def _after_turn(state: dict, player: str) -> None:
    if state["phase"] == "final":
        state["final_order"].pop(0)
        if state["final_order"]:
            state["to_play"] = state["final_order"][0]
        else:
            _score_hand(state, state["grids"])
        return
    if None in state["grids"][player]:
        state["to_play"] = left_of(state["players"], player)
        return
    # N9-4: the player is done; the others reveal, then take their final turns from the done player's left.
    others = [left_of(state["players"], player, k) for k in range(1, len(state["players"]))]
    state.update({"phase": "reveal", "done": player, "reveals_pending": list(others),
                  "final_order": list(others), "to_play": others[0]})


def _reveal(state: dict, move: dict) -> None:
    _reveal_grid(state, move["player"], move["grid"])


def _reveal_all(state: dict, move: dict) -> None:
    """N9-4 in one entry: every grid still face down, turned up together."""
    grids, pending = move["grids"], list(state["reveals_pending"])
    missing = [p for p in pending if p not in grids]
    if missing:
        raise IllegalMove("N9-4", T("Every grid still to reveal is needed; missing: {players}.",
                                    players=", ".join(missing)))
    extra = [p for p in grids if p not in pending]
    if extra:
        raise IllegalMove("N9-4", T("{players}: no grid to reveal (done, or already face up).",
                                    players=", ".join(extra)))
    for player in pending:
        _reveal_grid(state, player, grids[player])


def _reveal_grid(state: dict, player: str, grid: list[str]) -> None:
    for position, known in enumerate(state["grids"][player]):
        if known is not None and grid[position] != known:
            raise IllegalMove("N9-4", T("{player}'s position {position} is face up as {card}, not {given}.",
                                        player=player, position=position, card=known, given=grid[position]))
    state["grids"][player] = grid
    state["reveals_pending"].remove(player)
    _check_accounting(state)
    if state["reveals_pending"]:
        state["to_play"] = state["reveals_pending"][0]
    else:
        state["phase"] = "final"
        state["to_play"] = state["final_order"][0]


def _read_grids(value: Any, state: dict) -> dict[str, list[str]]:
    given = get_field({"grids": value}, "grids", dict)
    grids = {}
    for name, grid in given.items():
        if name not in state["players"]:
            raise InvalidInput(T("'{player}' is not a player in this game.", player=name))
        grids[name] = parse_grid(grid, what=f"grids.{name}")
    return grids


def _hand_result(state: dict, move: dict) -> None:
    if "points" in move:
        _score_hand(state, None, _whole_points(state, move["points"]))
    else:
        _score_hand(state, _whole_hand(state, move["grids"]))


MAX_HAND_POINTS = 90  # N9-6: nine cards of 10 points, none in a set (J Q J / Q J Q / J Q J)


def _read_points(value: Any, state: dict) -> dict[str, int]:
    """``{name: points}``: a hand entered as each player's points (T-4)."""
    points = {}
    for name, given in get_field({"points": value}, "points", dict).items():
        if name not in state["players"]:
            raise InvalidInput(T("'{player}' is not a player in this game.", player=name))
        points[name] = Int("points").parse(given, state)
    return points


def _whole_points(state: dict, points: dict) -> dict:
    """Every player's points of a hand entered whole (T-4), as far as points tell: a grid scores at
    most 90 (N9-6), and below zero only with Jokers, of which the decks hold two each (N9-1)."""
    missing = [p for p in state["players"] if p not in points]
    if missing:
        raise IllegalMove("N9-2", T("Every player's points are needed; missing: {players}.",
                                    players=", ".join(missing)))
    joker, decks = state["options"].get("joker_points", JOKER_POINTS), state["options"]["decks"]
    lowest = min(CELLS, 2 * decks) * joker
    for name in state["players"]:
        if not lowest <= points[name] <= MAX_HAND_POINTS:
            raise IllegalMove("N9-6", T("{player}'s {points} points cannot be a grid's score: a hand scores from "
                                        "{lo} to {hi} (N9-6).", player=name, points=points[name], lo=lowest,
                                        hi=MAX_HAND_POINTS), legal={"points": {name: between(lowest, MAX_HAND_POINTS)}})
    jokers = sum(-(points[name] // -joker) for name in state["players"] if points[name] < 0)
    if jokers > 2 * decks:
        raise IllegalMove("N9-1", T("Scores this far below zero need {n} Jokers, and {decks} decks hold {most}.",
                                    n=jokers, decks=decks, most=2 * decks))
    return {p: points[p] for p in state["players"]}


def _whole_hand(state: dict, grids: dict) -> dict:
    """Every player's final grid of a hand entered whole (N9-2), within the decks (N9-1)."""
    missing = [p for p in state["players"] if p not in grids]
    if missing:
        raise IllegalMove("N9-2", T("Every player's grid is needed; missing: {players}.", players=", ".join(missing)))
    seen = [c for grid in grids.values() for c in grid]
    check_copies(seen, _copies(state["options"]["decks"]), rule="N9-1")
    return {p: grids[p] for p in state["players"]}


# ---------------------------------------------------------------- end of a hand, end of the game

def _hand_entry(state: dict, hand: int, dealer: str, done: str | None, grids: dict | None,
                points: dict | None = None) -> dict:
    """A scored hand as ``rounds`` keeps it (its ``totals`` are added by the caller): from every
    final grid, or from each player's points when the table entered only those (T-4)."""
    if grids is None:
        assert points is not None  # a hand entered as points (T-4)
        return {"round": hand, "dealer": dealer, "done": done, "scores": dict(points),
                "breakdown": {p: [{"rule": "T-4", "points": points[p], "detail": N_("Entered as points.")}]
                              for p in state["players"]},
                "sets": {}, "card_points": {}, "grids": {}}
    joker = state["options"].get("joker_points", JOKER_POINTS)
    results = {p: score_grid(grids[p], joker) for p in state["players"]}
    return {
        "round": hand,
        "dealer": dealer,
        "done": done,
        "scores": {p: r["points"] for p, r in results.items()},
        "breakdown": {p: r["breakdown"] for p, r in results.items()},
        "sets": {p: r["sets"] for p, r in results.items()},
        "card_points": {p: r["card_points"] for p, r in results.items()},
        "grids": {p: list(grids[p]) for p in state["players"]},
    }


def _over(state: dict, hand: int) -> bool:
    """N9-7, N9-9: whether the game ends at the end of ``hand`` with the totals as they are."""
    fixed = state["options"].get("hands")
    return hand >= fixed if fixed else max(state["totals"].values()) >= state["options"]["target"]


def _score_hand(state: dict, grids: dict | None, points: dict | None = None) -> None:
    entry = _hand_entry(state, state["hand"], state["dealer"], state.get("done"), grids, points)
    for p, points in entry["scores"].items():
        state["totals"][p] += points
    state["rounds"].append({**entry, "totals": dict(state["totals"])})
    if _over(state, state["hand"]):  # N9-7, N9-9
        best = min(state["totals"].values())
        state.update({"phase": "finished", "to_play": None, "grids": _final_grids(state, grids),
                      "winners": [p for p in state["players"] if state["totals"][p] == best],
                      "reveals_pending": [], "final_order": []})
        return
    state["hand"] += 1
    state["dealer"] = left_of(state["players"], state["dealer"])  # N9-8
    _start_hand(state)


def _final_grids(state: dict, grids: dict | None) -> dict:
    """The grids the finished table shows: the last hand's, face down where it was entered as points."""
    return {p: list((grids or {}).get(p) or [None] * CELLS) for p in state["players"]}


# ---------------------------------------------------------------- the table's corrections (T-1, T-2)

def _correct_hand(state: dict, move: dict) -> None:
    """T-1: a finished hand scored again from every final grid, as a hand result is (N9-1, N9-2,
    N9-5, N9-6); the totals follow, and then the end of the game (``_settle``)."""
    index = round_index(state, move["round"], state["hand"], what=N_("Hand"))
    old = state["rounds"][index]
    entry = (_hand_entry(state, old["round"], old["dealer"], old["done"], None, _whole_points(state, move["points"]))
             if "points" in move else
             _hand_entry(state, old["round"], old["dealer"], old["done"], _whole_hand(state, move["grids"])))
    for p, points in replace_round(state, index, entry, move["reason"], what=N_("Hand")).items():
        state["totals"][p] += points
    _settle(state)


def _adjust(state: dict, player: str, points: int) -> int:
    """T-2: penalty points, like a hand's: the lowest total wins (N9-7)."""
    state["totals"][player] += points
    _settle(state)
    return state["totals"][player]


def _settle(state: dict) -> None:
    """N9-7 judges the totals at the end of a hand: a correction or an adjustment made during a
    hand counts at its end; one made between hands (before the next deal) or after the end is
    judged at once against the end of the last hand: the game ends there, or (the table having
    said so, T-1/T-2) goes on with the next hand."""
    if not state["rounds"] or state["phase"] not in ("deal", "finished"):
        return
    last = state["rounds"][-1]
    if _over(state, last["round"]):
        if state["phase"] == "deal":
            state["events"].append({"rule": "N9-7", "text": T("With this change a total reaches the target at the "
                                                              "end of hand {hand}: the game is over.",
                                                              hand=last["round"])})
        best = min(state["totals"].values())
        state.update({"phase": "finished", "to_play": None, "hand": last["round"], "dealer": last["dealer"],
                      "done": last["done"], "grids": _final_grids(state, last["grids"]),
                      "winners": [p for p in state["players"] if state["totals"][p] == best],
                      "reveals_pending": [], "final_order": []})
    elif state["phase"] == "finished":
        state.update(winners=[], hand=last["round"] + 1, dealer=left_of(state["players"], last["dealer"]))
        _start_hand(state)
        state["events"].append({"rule": "N9-7", "text": T("With this change no total reaches the target: the game "
                                                          "goes on with hand {hand}.", hand=state["hand"])})


# ---------------------------------------------------------------- views

def standings(state: dict) -> dict:
    return dict(state["totals"])


def public_view(state: dict) -> dict:
    pile = state["discard_pile"]
    return {
        "round": state["hand"],
        "hand": state["hand"],
        "to_play": state["to_play"],
        "standings": standings(state),
        "rounds": copy.deepcopy(state["rounds"]),
        "grids": copy.deepcopy(state["grids"]),
        "discard_top": pile[-1] if pile else None,
        "discard_pile": list(pile),
        "discard_pile_size": len(pile),
        "draw_pile": state["stock"],
        "reshuffles": state["reshuffles"],
        "done": state["done"],
        "final_turns_left": list(state["final_order"]),  # N9-4: who still has a final turn, in order
        "reveals_pending": list(state["reveals_pending"]),
        "dealer": state["dealer"],
        "decks": state["options"]["decks"],
        "target": state["options"]["target"],
    }


_GRID_SHOWN = {"type": "array", "minItems": CELLS, "maxItems": CELLS, "items": {"type": "string", "nullable": True}}
VIEW = (
    shown("hand", {"type": "integer"}, "The hand in progress (the same as round)."),
    shown("grids", {"type": "object", "additionalProperties": _GRID_SHOWN},
          "Each player's grid, positions 0-8 row by row: a card face up, null face down (N9-2)."),
    vocabulary.discard_top(),
    shown("discard_pile", {"type": "array", "items": {"type": "string"}}, "The discard pile, bottom first: every card "
          "in it is face up (N9-3)."),
    vocabulary.discard_pile_size(),
    vocabulary.DRAW_PILE,
    shown("reshuffles", {"type": "integer"}, "How often the stock was remade from the discard pile this hand (N9-8)."),
    shown("done", {"type": "string"}, "The player whose nine cards are face up, or null (N9-4).", nullable=True),
    shown("final_turns_left", vocabulary.PLAYER_NAMES, "Who still has a final turn, in order (N9-4)."),
    shown("reveals_pending", vocabulary.PLAYER_NAMES, "Who must still turn their grid face up (N9-4)."),
    vocabulary.DEALER,
    shown("decks", {"type": "integer"}, "The decks in play (N9-1)."),
    vocabulary.TARGET,
)


def outcome(state: dict):
    if state["phase"] == "finished":
        if state["options"].get("hands"):
            return finished(state["winners"], T("{n} hands have been played; the lowest total wins.",
                                                n=state["options"]["hands"]), "N9-9")
        return finished(state["winners"], N_("A total reached the target at the end of a hand; the lowest "
                                             "total wins."), "N9-7")
    return in_progress()


# ---------------------------------------------------------------- who may move, and with what

_TABLE = ("adjust", "correct_round")  # the table's own moves, in every phase and after the end (T-1, T-2)
PHASES = {"deal": ("deal", "hand_result", *_TABLE), "play": ("turn", *_TABLE),
          "reveal": ("reveal", "reveal_all", *_TABLE), "final": ("turn", *_TABLE), "finished": _TABLE}


def actors(state: dict, kind: str) -> list[str] | None:
    if kind == "reveal":
        return list(state["reveals_pending"])  # N9-4: in any order
    return [state["to_play"]] if state["to_play"] else []


def refuse_phase(state: dict, kind: str) -> IllegalMove:
    phase = state["phase"]
    if kind == "turn" and phase == "deal":
        return IllegalMove("N9-2", T("Hand {hand} has not been dealt yet: {dealer} records the deal.",
                                     hand=state["hand"], dealer=state["dealer"]))
    if kind == "turn":
        return IllegalMove("N9-4", T("{player} is done: first every other player turns all their cards face up "
                                     "(still to reveal: {players}).", player=state["done"],
                                     players=", ".join(state["reveals_pending"])),
                           legal=moves_instead(GAME, state, ("reveal", "reveal_all")))
    if kind == "deal":
        return IllegalMove("N9-2", T("Hand {hand} has already been dealt.", hand=state["hand"]))
    if kind in ("reveal", "reveal_all"):
        return IllegalMove("N9-4", N_("Grids are revealed only once a player is done, before the final turns."))
    return IllegalMove("N9-4", T("Hand {hand} is being played move by move: it is scored when its final turns are "
                                 "over.", hand=state["hand"]))


def refuse_actor(state: dict, kind: str, player: str) -> IllegalMove:
    if kind == "reveal":
        detail = (T("{player} is done: their grid is face up.", player=player) if player == state["done"] else
                  T("{player} has already revealed: their grid is face up.", player=player))
        return IllegalMove("N9-4", detail, legal={"player": list(state["reveals_pending"])})
    legal = {"player": [state["to_play"]]}
    if state["phase"] == "final":
        if player == state["done"]:
            return IllegalMove("N9-4", T("{player} is done and has no more turns this hand.", player=player),
                               legal=legal)
        if player not in state["final_order"]:
            return IllegalMove("N9-4", T("{player} has had their last turn of this hand.", player=player),
                               legal=legal)
        return IllegalMove("N9-4", T("Final turns go from {done}'s left: it is {to_play}'s turn.", done=state["done"],
                                     to_play=state["to_play"]), legal=legal)
    if state.get("turns", 0) == 0:
        return IllegalMove("N9-8", T("The player to {dealer}'s left plays first: {to_play}.", dealer=state["dealer"],
                                     to_play=state["to_play"]), legal=legal)
    return IllegalMove("G-1", T("It is {to_play}'s turn (play passes left).", to_play=state["to_play"]), legal=legal)


def choices(state: dict, kind: str) -> dict:
    """N9-3: a turn takes the top of a pile (the stock only while it holds cards) and puts the card
    at any grid position, or discards it (null)."""
    if kind != "turn":
        return {}
    sources = (["stock"] if state["stock"] or len(state["discard_pile"]) > 1 else []) + ["discard"]
    return {"source": sources, "position": [*range(CELLS), None]}


def facts(state: dict, kind: str) -> dict:
    """N9-3: a turn's ``face_down`` positions, whose card the move must name in ``replaced``."""
    if kind != "turn":
        return {}
    grid = state["grids"][state["to_play"]]
    return {"face_down": [i for i, card in enumerate(grid) if card is None]}


def _says_turn(move: dict, show=str) -> str:
    if move.get("position") is None:
        where = N_("discards it")
    elif move.get("replaced"):
        where = T("puts it at {position}, turning up {card}", position=move.get("position"),
                  card=show(move["replaced"]))
    else:
        where = T("puts it at {position}", position=move.get("position"))
    source = _SOURCES.get(move.get("source"), move.get("source"))
    return T("{player} takes {card} from the {source} and {where}", player=move.get("player"),
             card=show(move.get("card")), source=source, where=where)


_SOURCES: dict[Any, Text] = {"stock": N_("stock"), "discard": N_("discard")}


_POSITIONS = {"type": "object", "additionalProperties": {"type": "string"}, "description": "Position (\"0\"-\"8\"): card.",
              "example": {"0": "5H", "4": "KS", "8": "X"}}
_GRID = {"description": "9 card codes row by row, or 3 rows of 3.",
         "oneOf": [{"type": "array", "minItems": 9, "maxItems": 9, "items": {"type": "string"}},
                   {"type": "array", "minItems": 3, "maxItems": 3,
                    "items": {"type": "array", "minItems": 3, "maxItems": 3, "items": {"type": "string"}}}]}
_HAND_RESULT = (Shaped("grids", required=False, shape={"type": "object", "additionalProperties": _GRID,
                                                      "description": "Every player's final grid: {name: grid}."},
                       read=_read_grids),
                Shaped("points", required=False,
                       shape={"type": "object", "additionalProperties": {"type": "integer"},
                              "description": "Or every player's points for the hand: {name: points} (T-4).",
                              "example": {"Ann": 12, "Bob": -3}},
                       read=_read_points))


def _one_hand_form(move: dict) -> None:
    if ("grids" in move) == ("points" in move):
        raise InvalidInput(N_("A hand is entered with every player's final grid ('grids') or every player's points "
                              "('points'): one of the two."))


def _inside_hand(state: dict) -> Text | None:
    """T-4: a dealt hand is finished as it began, move by move."""
    if state["phase"] == "deal":
        return None
    return T("hand {hand} has been dealt: finish it move by move.", hand=state["hand"])


def _correctable(state: dict) -> dict | None:
    """The finished hands a correction may replace (T-1)."""
    done = [entry["round"] for entry in state["rounds"]]
    return {"round": done} if done else None


MOVES = {
    "deal": Move(
        _deal, (Player("player", required=False, description=N_("Whoever records the deal (G-2: the service "
                                                                 "never deals).")),
                Card("discard", read=_card, example="7D"),
                Shaped("revealed", shape={"type": "object", "additionalProperties": _POSITIONS,
                                          "description": "Each player's three face-up cards: {name: {position "
                                                         "0-8: card}}."}, read=_read_revealed)),
        N_("Each player's three face-up cards (positions 0-8, row by row) and the first discard."), ("N9-2",),
        label=N_("Deal"), says=lambda move, show: T("Deal: first discard {card}", card=show(move.get("discard"))),
        actor=None),
    "turn": Move(
        _turn, (Player("player"), Choice("source", choices=("stock", "discard")), Card("card", read=_card, example="QH"),
                Int("position", lo=0, hi=CELLS - 1, required=False, nullable=True,
                    description=N_("Where the card goes, 0-8 row by row; null: it is discarded.")),
                Card("replaced", read=_card, required=False, nullable=True,
                     description=N_("The card that the position held face down (it is discarded face up)."))),
        N_("The card taken, where it went (null: discarded), and the card it replaced when that position was "
           "face down."), ("N9-3", "N9-4", "N9-8"), label=N_("Take a card"), says=_says_turn),
    "reveal": Move(
        _reveal, (Player("player"), Shaped("grid", shape=_GRID, read=lambda value, state: parse_grid(value))),
        N_("Once someone is done, each other player's full grid, agreeing with every card already known."),
        ("N9-4",), label=N_("Reveal a grid"), says=N_("{player} reveals their grid")),
    "reveal_all": Move(
        _reveal_all, (Shaped("grids", shape={"type": "object", "additionalProperties": _GRID,
                                             "description": "The full grid of every player still to reveal."},
                             read=_read_grids),),
        N_("Once someone is done, every other player's full grid in one entry."), ("N9-4",),
        label=N_("Reveal every grid"), says=N_("Every other grid turned face up"), actor=None),
    "hand_result": Move(
        _hand_result, _HAND_RESULT,
        N_("A whole hand, recorded instead of its deal and turns: scored from the final grids, or every "
           "player's points as the table counted them (T-4)."), ("N9-5", "N9-6", "T-4"),
        label=N_("Hand result"), says=lambda move, show: (N_("Hand result from the points") if "points" in move else
                                                          N_("Hand result from the final grids")),
        actor=None, check=_one_hand_form),
    "correct_round": correction_move(
        _correct_hand, _HAND_RESULT,
        N_("A finished hand's result entered wrong, replaced: the hand (round), why, and every player's final "
           "grid or points as a hand result gives them; the totals follow (T-1)."),
        ("N9-1", "N9-2", "N9-5", "N9-6", "N9-7"), _correctable, 10_000, what=N_("Hand"), check=_one_hand_form),
    "switch_record": record_move(_inside_hand),
    "adjust": adjust_move(_adjust, N_("A point is a penalty point, as a hand scores them: the lowest total wins; "
                                      "the target is judged at the end of a hand (N9-7)."),
                          round_of=lambda state: state["hand"]),
}



# ---------------------------------------------------------------- dispute verdict

# N9-1 for a verdict with no game: the decks of the most players the service seats, unless the
# request names the decks in play.
VERDICT_DECKS = default_decks(PLAYERS[1])


def _answer_grid(values: dict) -> dict:
    check_copies(values["grid"], _copies(values["decks"]), rule="N9-1")  # no more copies than the decks hold
    scored = score_grid(values["grid"], values["joker_points"])
    sets = [T("{line} is a set of {rank}s", line=_line_name(found["cells"]), rank=found["rank"])
            for found in scored["sets"]]
    says = (T("This grid scores {points}: {sets}, 0 points (N9-5); the other cards count their points (N9-6).",
              points=scored["points"], sets=and_names(sets)) if sets else
            T("This grid scores {points}: no row or column is a set (N9-5), so every card counts its points (N9-6).",
              points=scored["points"]))
    return {**scored, "says": says}


_CODES = {"type": "array", "minItems": 9, "maxItems": 9, "items": {"type": "string"}}
_ROWS = {"type": "array", "minItems": 3, "maxItems": 3,
         "items": {"type": "array", "minItems": 3, "maxItems": 3, "items": {"type": "string"}}}
_BREAKDOWN = {"type": "array", "items": {"type": "object", "required": ["rule", "points", "detail"],
                                         "properties": {"rule": {"type": "string"}, "points": {"type": "integer"},
                                                        "detail": {"type": "string"}}}}
JUDGES = {
    "grid": Judge(
        _answer_grid,
        N_("Score one full Nines grid: sets in rows and columns, points per card (N9-5, N9-6)."),
        fields=(
            Shaped("grid", N_("9 card codes row by row, or 3 rows of 3."), shape={"oneOf": [_CODES, _ROWS]},
                   read=lambda value, state: parse_grid(check_type("grid", value, list)), title=N_("Grid")),
            Int("decks", T("Decks in play: the grid may hold no more copies of a card than they do (N9-1). Omitted: "
                           "{decks}, the decks N9-1 gives the most players a game seats ({players}).",
                           decks=VERDICT_DECKS, players=PLAYERS[1]),
                required=False, lo=1, hi=20, default=VERDICT_DECKS, rule="N9-1", title=N_("Decks")),
            Choice("joker_points", N_("A Joker's points (N9-9)."), required=False, choices=(-3, -2, -5),
                   default=JOKER_POINTS, rule="N9-9", title=N_("A Joker's points")),
        ),
        response={"type": "object", "required": ["points", "sets", "card_points", "breakdown", "says"],
                  "properties": {
                      "says": SAYS,
                      "points": {"type": "integer"},
                      "sets": {"type": "array", "items": {
                          "type": "object", "required": ["cells", "rank"],
                          "properties": {"cells": {"type": "array", "items": {"type": "integer"}},
                                         "rank": {"type": "string"}}}},
                      "card_points": {"type": "array", "items": {"type": "integer"}},
                      "breakdown": _BREAKDOWN}},
        example={"grid": [["KH", "2S", "KD"], ["3C", "KC", "4C"], ["5C", "KS", "6C"]]},
    ),
}


# ---------------------------------------------------------------- the group's stats

def count_figures(final: dict, steps) -> dict:
    """Sets in the final grids (N9-5): a card in a row and a column set counts in both sets."""
    return {p: {"sets_made": sum(len((r.get("sets") or {}).get(p) or []) for r in final["rounds"])}
            for p in final["players"]}


FIGURES = Figures(count_figures, labels={"sets_made": N_("Sets made")})


GAME = Game(module=__name__, name=NAME, title=TITLE, players=PLAYERS, options=OPTIONS, rulings=RULINGS, moves=MOVES,
            phases=PHASES, judges=JUDGES, view=VIEW, new_game=new_game, public_view=public_view, standings=standings,
            outcome=outcome, first_deal=FIRST_DEAL, whole_round=WHOLE_ROUND, round_label=ROUND_LABEL,
            lower_is_better=LOWER_IS_BETTER, actors=actors, choices=choices, facts=facts, refuse_phase=refuse_phase,
            refuse_actor=refuse_actor,
            figures=FIGURES)
