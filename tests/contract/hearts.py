"""Hearts: a seventh game that lives only in the tests, written against the engine contract alone
(``referee/rules/base.py``) as a new engineer would write one under ``referee/rules/``; the tests
register it for the whole run (``tests/conftest.py``), so that every test that covers "every game"
covers it too. Its rules prose is ``hearts.md`` beside it.

Three to five players take tricks; each heart taken is a penalty point and the Q♠ thirteen, 26 in
every hand. A hand runs through these phases (``state["phase"]``):

``deal``      before the hand's first trick: the cards are dealt and passed at the table, which the
              referee does not see (HE-2). The table records the first ``trick`` (led with the
              lowest club, HE-3), or the whole hand as each player's points (``hand_result``, T-4).
``play``      tricks, each led by the last trick's winner (HE-3), until every card is played.
``finished``  a hand ended with a total at or over the target (HE-7).

Who holds which card is never seen, so following suit is not judged (HE-4): what the referee
checks is what lies face up, each card once per hand (HE-1), the first lead, who leads, and that a
hand's points add up to 26 (HE-5). Shooting the moon (HE-6) scores as the table's house rule says
(HE-8).
"""
from __future__ import annotations

import copy
import random
from typing import Any

from referee.cards import STANDARD_RANKS, STANDARD_SUITS, parse_standard, rank_of, suit_of
from referee.rules import vocabulary
from referee.rules.base import (
    SAYS, IllegalMove, InvalidInput, Judge, Move, adjust_move, Game, check_players,
    correction_move, finished, get_field, in_deck, in_progress, left_of, moves_instead, record_move,
    RECORD_OPTION, declared_options, replace_round, resolve_options, round_index, shared,
)
from referee.rules.fields import Cards, Choice, Int, Player, Shaped, check_type
from referee.rules.vocabulary import shown
from referee.texts import N_, T, Text

NAME = "hearts"
TITLE = "Hearts"
PLAYERS = (3, 5)
HAND_POINTS = 26  # HE-5: thirteen hearts and the Q♠
QUEEN = "QS"
RANK_ORDER = STANDARD_RANKS[1:] + ("A",)  # HE-4: ace high
REMOVED = {3: ("2D",), 4: (), 5: ("2D", "2C")}  # HE-1: what leaves the deck so that it deals out evenly
MOON_SCORING = ("add", "subtract", "none")
PASSES = {4: ("left", "right", "across", "hold")}  # HE-2; three or five players pass left, right, hold
OPTIONS = declared_options(
    Int("target", N_("The game ends at the end of the hand in which a total reaches this (HE-7)."),
        lo=20, hi=1000, default=100, rule="HE-7"),
    Choice("moon", N_("House rule: how shooting the moon scores: 'add', every other player takes 26 "
                      "(HE-6); 'subtract', 26 come off the shooter's total instead; 'none', the 26 "
                      "count like any points (HE-8)."), choices=tuple(MOON_SCORING), default="add", rule="HE-8"),
    RECORD_OPTION,
)
WHOLE_ROUND = "hand_result"  # a hand entered whole (T-4)
ROUND_LABEL = "hand"
LOWER_IS_BETTER = True  # penalty points (HE-7)
RULINGS = {
    **shared("G-1"),
    "HE-1": "One standard 52-card deck, each card once a hand; three to five players: with three the 2D leaves the "
            "deck, with five the 2D and the 2C, so that it deals out evenly.",
    "HE-2": "Before each hand every player passes three cards: left, right, across (four players only), then no "
            "pass, in turn. Nobody sees them: the referee records no deal and no pass.",
    "HE-3": "The holder of the lowest club in the deck (2C, or 3C with five players) leads it to the first trick; "
            "the winner of each trick leads the next.",
    "HE-4": "Each player plays one card to a trick, clockwise from the leader, following suit if able; the highest "
            "card of the suit led (ace high) takes it. Hands are unseen, so the referee does not judge following "
            "suit: a revoke the table finds is settled with an adjustment (T-2).",
    "HE-5": "Each heart taken is 1 point, the QS 13: 26 in every hand. A hand entered whole gives every player's "
            "points, which add up to 26.",
    "HE-6": "Shooting the moon: a player who takes all 26 points scores 0 and every other player 26.",
    "HE-7": "The game ends at the end of the hand in which a total reaches the target (default 100); the lowest "
            "total wins, ties share.",
    "HE-8": "House rule: shooting the moon takes 26 off the shooter's total instead, or does not count at all "
            "(option moon).",
    **shared("T-1", "T-2", "T-4"),
}


# ---------------------------------------------------------------- the deck and the tricks (HE-1, HE-3, HE-4)

def deck(players: int) -> list[str]:
    """The hand's cards for ``players`` players (HE-1)."""
    return [rank + suit for suit in STANDARD_SUITS for rank in STANDARD_RANKS if rank + suit not in REMOVED[players]]


def lowest_club(players: int) -> str:
    """The card that leads the first trick (HE-3)."""
    return next(rank + "C" for rank in RANK_ORDER if rank + "C" not in REMOVED[players])


def card_points(card: str) -> int:
    """HE-5: a heart 1, the Q♠ 13, any other card 0."""
    return 13 if card == QUEEN else 1 if suit_of(card) == "H" else 0


def trick_winner(cards: list[str]) -> int:
    """The position (0 = the lead) of the card that takes the trick: the highest of the suit led (HE-4)."""
    led = suit_of(cards[0])
    return max((i for i, card in enumerate(cards) if suit_of(card) == led),
               key=lambda i: RANK_ORDER.index(rank_of(cards[i])))


def _check_trick(cards: list[str], players: int) -> None:
    """One card from each player, each once, all in the deck (HE-1, HE-4)."""
    if len(cards) != players:
        raise IllegalMove("HE-4", T("A trick holds one card from each of the {n} players, not {count}.", n=players,
                                    count=len(cards)))
    removed = [card for card in cards if card in REMOVED[players]]
    if removed:
        raise IllegalMove("HE-1", T("{card} leaves the deck with {n} players.", card=removed[0], n=players))
    twice = next((card for card in cards if cards.count(card) > 1), None)
    if twice is not None:
        raise IllegalMove("HE-1", T("{card} is in the trick twice: the deck holds it once.", card=twice))


# ---------------------------------------------------------------- a game

def new_game(players: list[str], options: dict | None = None) -> dict:
    players = check_players(players, *PLAYERS, rule="HE-1")
    opts = resolve_options(OPTIONS, options)  # each value checked, citing its ruling (G-3)
    state = {"players": players, "options": opts, "record": opts["record"], "hand": 1,
             "totals": {p: 0 for p in players}, "rounds": [], "winners": [], "events": []}
    _start_hand(state)
    return state


def _start_hand(state: dict) -> None:
    state.update(phase="deal", to_play=None, tricks=[], played=[], taken={p: 0 for p in state["players"]})


def _cards_each(state: dict) -> int:
    return len(deck(len(state["players"]))) // len(state["players"])


def _pass(state: dict) -> str:
    """This hand's pass (HE-2)."""
    cycle = PASSES.get(len(state["players"]), ("left", "right", "hold"))
    return cycle[(state["hand"] - 1) % len(cycle)]


def _trick(state: dict, move: dict) -> None:
    leader, cards = move["leader"], move["cards"]
    _check_trick(cards, len(state["players"]))
    again = [card for card in cards if card in state["played"]]
    if again:
        raise IllegalMove("HE-1", T("{card} has already been played in this hand.", card=again[0]))
    first = lowest_club(len(state["players"]))
    if not state["tricks"] and cards[0] != first:
        raise IllegalMove("HE-3", T("The first trick of a hand is led with {card}, not {lead}.", card=first,
                                    lead=cards[0]))
    seats = [left_of(state["players"], leader, i) for i in range(len(cards))]  # clockwise (G-1)
    winner = seats[trick_winner(cards)]
    points = sum(card_points(card) for card in cards)
    state["taken"][winner] += points
    state["played"] = [*state["played"], *cards]
    state["tricks"] = [*state["tricks"], {"leader": leader, "cards": list(cards), "winner": winner, "points": points}]
    state["events"].append({"rule": "HE-4", "text": T("{player} takes the trick with {card}: {points} points.",
                                                      player=winner, card=cards[seats.index(winner)],
                                                      points=points)})
    if len(state["tricks"]) == _cards_each(state):
        _score_hand(state, dict(state["taken"]), "tricks")
    else:
        state.update(phase="play", to_play=winner)  # HE-3: the winner leads


def _read_points(value: Any, state: dict) -> dict[str, int]:
    """``{name: points}``: what each player took in a hand entered whole (T-4)."""
    points = {}
    for name, given in get_field({"points": value}, "points", dict).items():
        if name not in state["players"]:
            raise InvalidInput(T("'{player}' is not a player in this game.", player=name))
        if type(given) is not int:
            raise InvalidInput(T("Field '{field}' must be {kind}.", field=f"points.{name}", kind=N_("an integer")))
        points[name] = given
    return points


def _whole_points(state: dict, points: dict) -> dict:
    """Every player's points of a hand entered whole, from 0 to 26 and 26 in all (HE-5)."""
    missing = [p for p in state["players"] if p not in points]
    if missing:
        raise IllegalMove("HE-5", T("Every player's points are needed; missing: {players}.",
                                    players=", ".join(missing)))
    wrong = next((p for p in state["players"] if not 0 <= points[p] <= HAND_POINTS), None)
    if wrong is not None:
        raise IllegalMove("HE-5", T("{player} cannot take {points} points: a hand holds 0 to {most} (HE-5).",
                                    player=wrong, points=points[wrong], most=HAND_POINTS),
                          legal={"points": {wrong: {"minimum": 0, "maximum": HAND_POINTS}}})
    total = sum(points.values())
    if total != HAND_POINTS:
        raise IllegalMove("HE-5", T("The points of a hand add up to {most} (the hearts and the QS), not {total}.",
                                    most=HAND_POINTS, total=total))
    return {p: points[p] for p in state["players"]}


def _hand_result(state: dict, move: dict) -> None:
    _score_hand(state, _whole_points(state, move["points"]), "whole")


def _hand_entry(state: dict, hand: int, taken: dict, entered: str) -> dict:
    """A scored hand as ``rounds`` keeps it (its ``totals`` added by the caller): the points taken
    (HE-5) and what shooting the moon makes of them (HE-6, HE-8)."""
    shooter = next((p for p, points in taken.items() if points == HAND_POINTS), None)
    moon = state["options"]["moon"]
    breakdown = {p: [{"rule": "HE-5", "points": taken[p], "detail": T("took {points} points", points=taken[p])}]
                 for p in state["players"]}
    if shooter is not None and moon == "add":
        breakdown[shooter].append({"rule": "HE-6", "points": -HAND_POINTS, "detail": N_("shot the moon")})
        for p in state["players"]:
            if p != shooter:
                breakdown[p].append({"rule": "HE-6", "points": HAND_POINTS,
                                     "detail": T("{player} shot the moon", player=shooter)})
    elif shooter is not None and moon == "subtract":
        breakdown[shooter].append({"rule": "HE-8", "points": -2 * HAND_POINTS,
                                   "detail": N_("shot the moon: 26 off instead")})
    return {"round": hand, "entered": entered, "taken": dict(taken),
            "moon": shooter if moon != "none" else None,
            "scores": {p: sum(line["points"] for line in breakdown[p]) for p in state["players"]},
            "breakdown": breakdown}


def _over(state: dict) -> bool:
    return max(state["totals"].values()) >= state["options"]["target"]  # HE-7


def _score_hand(state: dict, taken: dict, entered: str) -> None:
    entry = _hand_entry(state, state["hand"], taken, entered)
    for p, points in entry["scores"].items():
        state["totals"][p] += points
    state["rounds"] = [*state["rounds"], {**entry, "totals": dict(state["totals"])}]
    if entry["moon"]:
        state["events"].append({"rule": "HE-8" if state["options"]["moon"] == "subtract" else "HE-6",
                                "text": T("{player} shot the moon.", player=entry["moon"])})
    if _over(state):
        _finish(state)
        return
    state["hand"] += 1
    _start_hand(state)


def _finish(state: dict) -> None:
    best = min(state["totals"].values())
    state.update(phase="finished", to_play=None,
                 winners=[p for p in state["players"] if state["totals"][p] == best])


# ---------------------------------------------------------------- the table's own moves (T-1, T-2, T-4)

def _correctable(state: dict) -> dict | None:
    """T-1: the hands the table entered whole; one the referee scored trick by trick is adjusted (T-2)."""
    whole = [entry["round"] for entry in state["rounds"] if entry["entered"] == "whole"]
    return {"round": whole} if whole else None


def _correct_hand(state: dict, move: dict) -> None:
    index = round_index(state, move["round"], state["hand"] if state["phase"] != "finished" else None,
                        what=N_("Hand"))
    old = state["rounds"][index]
    if old["entered"] != "whole":
        raise IllegalMove("T-1", T("Hand {hand} was scored trick by trick by the referee: the table adjusts a score "
                                   "instead (T-2).", hand=old["round"]), legal=_correctable(state) or {"round": []})
    entry = _hand_entry(state, old["round"], _whole_points(state, move["points"]), "whole")
    for p, points in replace_round(state, index, entry, move["reason"], what=N_("Hand")).items():
        state["totals"][p] += points
    _settle(state)


def _adjust(state: dict, player: str, points: int) -> int:
    """T-2: penalty points, like a hand's: the lowest total wins (HE-7)."""
    state["totals"][player] += points
    _settle(state)
    return state["totals"][player]


def _settle(state: dict) -> None:
    """HE-7 is judged at the end of a hand: a change made during one counts at its end; one made
    between hands or after the end is judged at once against the end of the last hand, which ends
    the game there or (the table having said so, T-3) lets it go on with the next hand."""
    if not state["rounds"] or state["phase"] == "play":
        return
    last = state["rounds"][-1]["round"]
    if _over(state):
        if state["phase"] == "deal":
            state["events"].append({"rule": "HE-7", "text": T("With this change a total reaches the target at the "
                                                              "end of hand {hand}: the game is over.", hand=last)})
        state["hand"] = last
        _finish(state)
    elif state["phase"] == "finished":
        state.update(hand=last + 1, winners=[])
        _start_hand(state)
        state["events"].append({"rule": "HE-7", "text": T("With this change no total reaches the target: the game "
                                                          "goes on with hand {hand}.", hand=state["hand"])})


def _inside_hand(state: dict) -> Text | None:
    """T-4: a hand begun trick by trick is finished trick by trick."""
    if state["phase"] != "play":
        return None
    return T("hand {hand} is under way ({n} tricks recorded): finish it trick by trick.", hand=state["hand"],
             n=len(state["tricks"]))


# ---------------------------------------------------------------- views and the outcome

def standings(state: dict) -> dict:
    return dict(state["totals"])


def public_view(state: dict) -> dict:
    return {"round": state["hand"], "hand": state["hand"], "to_play": state["to_play"],
            "standings": standings(state), "rounds": copy.deepcopy(state["rounds"]),
            "tricks": copy.deepcopy(state["tricks"]), "taken": dict(state["taken"]), "pass": _pass(state),
            "target": state["options"]["target"]}


_TRICK_SHOWN = {"type": "object", "required": ["leader", "cards", "winner", "points"],
                "properties": {"leader": {"type": "string"}, "cards": {"type": "array", "items": {"type": "string"}},
                               "winner": {"type": "string"}, "points": {"type": "integer"}}}
VIEW = (
    shown("hand", {"type": "integer"}, "The hand in progress (the same as round)."),
    shown("tricks", {"type": "array", "items": _TRICK_SHOWN},
          "This hand's tricks so far: who led, the cards from the leader clockwise, who took it and its points "
          "(HE-4, HE-5)."),
    shown("taken", vocabulary.PER_PLAYER_COUNT, "The points each player has taken in this hand so far (HE-5)."),
    shown("pass", {"type": "string", "enum": ["left", "right", "across", "hold"]},
          "Where this hand's three cards are passed (HE-2)."),
    vocabulary.TARGET,
)


def outcome(state: dict):
    if state["phase"] != "finished":
        return in_progress()
    return finished(state["winners"], T("A total reached the target ({target}) at the end of hand {hand}; the "
                                        "lowest total wins.", target=state["options"]["target"], hand=state["hand"]),
                    "HE-7")


# ---------------------------------------------------------------- who may move

_TABLE = ("adjust", "correct_round")  # the table's own moves, in every phase and after the end (T-1, T-2)
PHASES = {"deal": ("trick", "hand_result", *_TABLE), "play": ("trick", *_TABLE), "finished": _TABLE}


def actors(state: dict, kind: str) -> list[str]:
    """HE-3: whoever holds the lowest club leads the first trick; the last trick's winner the others."""
    return list(state["players"]) if not state["tricks"] else [state["to_play"]]


def refuse_actor(state: dict, kind: str, player: str) -> IllegalMove:
    return IllegalMove("HE-3", T("{leader} took the last trick and leads this one, not {player}.",
                                 leader=state["to_play"], player=player), legal={"leader": [state["to_play"]]})


def refuse_phase(state: dict, kind: str) -> IllegalMove:
    return IllegalMove("T-4", T("Hand {hand} is being recorded trick by trick ({n} so far): it is scored when its last "
                                "trick is recorded.", hand=state["hand"], n=len(state["tricks"])),
                       legal=moves_instead(GAME, state, ("trick",)))


def facts(state: dict, kind: str) -> dict:
    """HE-3: the card that leads the first trick."""
    if kind != "trick" or state["tricks"]:
        return {}
    return {"first_lead": lowest_club(len(state["players"]))}


_POINTS = Shaped("points", shape={"type": "object", "additionalProperties": {"type": "integer", "minimum": 0,
                                                                             "maximum": HAND_POINTS},
                                  "description": "The points each player took in the hand, 26 in all: "
                                                 "{name: points} (HE-5).",
                                  "example": {"Ann": 13, "Bob": 5, "Cid": 8}}, read=_read_points)
_CARD = in_deck(parse_standard, "HE-1")

MOVES = {
    "trick": Move(
        _trick, (Player("leader", description=N_("Who led the trick (HE-3).")),
                 Cards("cards", read=_CARD, max_items=PLAYERS[1], example=["2C", "9C", "KC", "5C"],
                       description=N_("The trick's cards in the order played, from the leader clockwise (G-1)."))),
        N_("One trick: who led it and every player's card from the leader clockwise; the referee says who takes it "
           "and its points."), ("HE-3", "HE-4", "HE-5"), label=N_("Record a trick"), actor="leader",
        says=lambda move, show: T("{player} leads {cards}", player=move.get("leader"),
                                  cards=" ".join(show(card) for card in move.get("cards") or []))),
    "hand_result": Move(
        _hand_result, (_POINTS,),
        N_("A whole hand, recorded instead of its tricks: the points each player took (T-4)."),
        ("HE-5", "HE-6", "T-4"), label=N_("Hand result"), actor=None, says=N_("Hand result from the points")),
    "correct_round": correction_move(
        _correct_hand, (_POINTS,),
        N_("A hand entered whole with the wrong points, replaced: the hand (round), why, and the points each player "
           "took; the totals follow (T-1)."), ("HE-5", "HE-6", "HE-7"), _correctable, 10_000, what=N_("Hand")),
    "switch_record": record_move(_inside_hand),
    "adjust": adjust_move(_adjust, N_("A point is a penalty point, as a hand scores them: the lowest total wins; the "
                                      "target is judged at the end of a hand (HE-7)."),
                          round_of=lambda state: state["hand"]),
}



# ---------------------------------------------------------------- dispute verdict

def _answer_trick(values: dict) -> dict:
    """Who takes a trick and its points (HE-4, HE-5): the cards in the order played, the lead first."""
    cards = values["cards"]
    if not PLAYERS[0] <= len(cards) <= PLAYERS[1]:
        raise IllegalMove("HE-1", T("A trick holds one card from each of {lo} to {hi} players, not {n}.",
                                    lo=PLAYERS[0], hi=PLAYERS[1], n=len(cards)))
    _check_trick(cards, len(cards))
    position = trick_winner(cards)
    points = sum(card_points(card) for card in cards)
    says = T("Card {n} ({card}) takes the trick, the highest {suit} (HE-4): {points} points (HE-5).", n=position + 1,
             card=cards[position], suit=suit_of(cards[0]), points=points)
    return {"position": position + 1, "card": cards[position], "points": points, "rule": "HE-4",
            "breakdown": [{"rule": "HE-5", "points": card_points(card), "detail": card} for card in cards
                          if card_points(card)], "says": says}


JUDGES = {
    "trick": Judge(
        _answer_trick, N_("Who takes a trick, and its points (HE-4, HE-5)."),
        fields=(Shaped("cards", N_("The trick's cards in the order played, the lead first."),
                       shape={"type": "array", "minItems": PLAYERS[0], "maxItems": PLAYERS[1],
                              "items": {"type": "string"}, "example": ["5H", "QS", "KH", "2H"]},
                       read=lambda value, state: [_CARD(card) for card in check_type("cards", value, list)],
                       title=N_("Cards")),),
        example={"cards": ["5H", "QS", "KH", "2H"]},
        response={"type": "object", "required": ["position", "card", "points", "rule", "breakdown", "says"],
                  "properties": {"says": SAYS, "position": {"type": "integer", "minimum": 1},
                                 "card": {"type": "string"}, "points": {"type": "integer"},
                                 "rule": {"type": "string"},
                                 "breakdown": {"type": "array", "items": {"type": "object"}}}},
    ),
}


# ---------------------------------------------------------------- the tests' random player
# What the tests need to play it (tests/rules/players finds it here, as it finds the five games'
# players there): a well-formed move of every type, and a random move drawn from ``allowed``.

SAMPLES = {
    "trick": {"type": "trick", "leader": "Ann", "cards": ["2C", "9C", "KC"]},
    "hand_result": {"type": "hand_result", "points": {"Ann": 13, "Bob": 5, "Cid": 8}},
    "correct_round": {"type": "correct_round", "round": 1, "reason": "Bob's hearts were Cid's",
                      "points": {"Ann": 13, "Bob": 0, "Cid": 13}},
    "switch_record": {"type": "switch_record", "record": "rounds"},
    "adjust": {"type": "adjust", "player": "Ann", "points": 2, "reason": "A revoke"},
}


def _random_points(players: list[str], rng: random.Random) -> dict:
    """A hand's points as a table would take them: each heart and the QS to someone, now and then
    all of them to one player (HE-6)."""
    if rng.random() < 0.1:
        shooter = rng.choice(players)
        return {p: HAND_POINTS if p == shooter else 0 for p in players}
    points = {p: 0 for p in players}
    for card_value in [1] * 13 + [13]:
        points[rng.choice(players)] += card_value
    return points


def random_move(state: dict, allowed: dict, rng: random.Random) -> dict:
    from players import adjustment, switch  # the shared table moves of tests/rules/players

    table = adjustment(allowed, state["totals"], rng) or switch(allowed, rng)
    if table:
        return table
    players = state["players"]
    if "correct_round" in allowed and rng.random() < 0.02:
        return {"type": "correct_round", "round": rng.choice(allowed["correct_round"]["choices"]["round"]),
                "reason": "entered wrong", "points": _random_points(players, rng)}
    if "hand_result" in allowed and (state["record"] == "rounds" or rng.random() < 0.2):
        return {"type": "hand_result", "points": _random_points(players, rng)}
    leader = rng.choice(allowed["trick"]["players"])
    unplayed = [card for card in deck(len(players)) if card not in state["played"]]
    first = (allowed["trick"].get("facts") or {}).get("first_lead")
    if first:
        unplayed.remove(first)
    cards = ([first] if first else []) + rng.sample(unplayed, len(players) - bool(first))
    return {"type": "trick", "leader": leader, "cards": cards}


GAME = Game(module=__name__, name=NAME, title=TITLE, players=PLAYERS, options=OPTIONS, rulings=RULINGS, moves=MOVES,
            phases=PHASES, judges=JUDGES, view=VIEW, new_game=new_game, public_view=public_view, standings=standings,
            outcome=outcome, whole_round=WHOLE_ROUND, round_label=ROUND_LABEL, lower_is_better=LOWER_IS_BETTER,
            actors=actors, facts=facts, refuse_phase=refuse_phase, refuse_actor=refuse_actor)
