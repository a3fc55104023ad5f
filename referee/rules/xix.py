"""XIX: an 18-card trick game for two, with strikes, rising stakes, a draft and a strike-row trade.

Rules: ``shared/rules/xix.md`` and rulings X19-1 to X19-8 (plus G-1, G-2, and the table's T-1 to T-4).

The service never deals (G-2). It records what the table makes public (X19-7): the open hands,
the size of each closed hand, the strike row (each slot face down, or its face-up card), the
cards of the current exchange, and it refuses any claim that contradicts what it knows.
Besides the public record it keeps what moves have named but the table has not shown: a card
put face down into the strike row from a closed hand, and a face-down strike card named by the
player who took it. ``public_view`` never shows those.

Hands never run out: an exchange ends at the latest after five tricks (two strikes each, then a
third for someone), each player holds six cards at the start of every exchange, and the draft
gives each player back exactly as many cards as they played; the trade is one for one.

A table may record by exchanges instead (T-4, option ``record``): an ``exchange_result`` gives each
player's strikes (and, in version 1.0, who abandoned), checked as far as counts allow (X19-3,
X19-4, X19-8). Nobody told the referee which cards such an exchange moved, so from then on the
hands are no longer known (``hands_known`` false): X19-7 then refuses only a card known to be
elsewhere (played in the exchange under way, drafted, put into the strike row since), never one
that may be true. Only such an exchange can be corrected whole (T-1).
"""
from __future__ import annotations

from copy import deepcopy
from typing import Any

from referee.cards import parse_xix
from referee.rules.base import (
    ADJUST_LIMIT, RECORD_MOVE, SAYS, IllegalMove, InvalidInput, Judge, Move, adjust_move, between, Game,
    check_players, correction_move, finished, get_field, in_deck, in_progress, moves_instead,
    player_option, record_move, RECORD_OPTION, declared_options, replace_round, resolve_options, round_index, shared,
)
from referee.rules import vocabulary
from referee.rules.vocabulary import shown
from referee.rules.fields import Card, Choice, Int, Player, Shaped, check_type
from referee.rules.base import Figures
from referee.texts import N_, T, Text

NAME = "xix"
TITLE = "XIX"
PLAYERS = (2, 2)
ROUND_LABEL = "exchange"  # what XIX calls a round (the shared vocabulary's round_label)

DECK = tuple(range(1, 19))          # X19-1: one card of each value 1-18
HAND_SIZE = 6                       # X19-1: six cards to each closed hand
ROW_SIZE = 5                        # X19-1: five face down in the strike row
SLOT_NAMES = "ABCDE"                # slots 0-4, lettered from the first player's left (the pages)
TRICK_SUM = 19                      # X19-2
STRIKES_OUT = 3                     # X19-3: the third strike forces abandon
TARGET = 19                         # X19-5
STAKES = {0: 0, 1: 1, 2: 2, 3: 3, 4: 5, 5: 8}   # X19-4: total strikes -> stakes
STAKES_2 = {3: 3, 4: 5, 5: 8}                    # X19-8: version 2.0, an exchange ends at a third strike
VERSIONS = ("1.0", "2.0")
SOURCES = ("closed", "open")
_parse = in_deck(parse_xix, "X19-1")  # G-3: a card outside the deck cites the deck's ruling

FIRST_DEAL = ("first_leader", 0)  # the option naming who starts, and its default seat (X19-1, G-2)
OPTIONS = declared_options(
    Player("first_leader", N_("Who leads the first trick (X19-1, the table's choice); "
                              "default: the first player listed (G-2)."), rule="X19-1"),
    Choice("rules", N_("House rule: '2.0' plays the designer's version 2.0 (one hand, no raise or abandon, "
                       "stakes 3/5/8, first to 19 or more wins) (X19-8)."), choices=VERSIONS, default="1.0",
           rule="X19-8"),
    RECORD_OPTION,
)
WHOLE_ROUND = "exchange_result"  # an exchange entered whole (T-4)

RULINGS = {
    **shared("G-1", "G-2"),
    "X19-1": N_("Cards 1-18, each once; exactly two players; 6 + 6 closed, 5 face down in the strike row, "
                "1 discarded unseen; the table chooses who leads first."),
    "X19-2": N_("Each player plays one card from either hand; if the two add up to 19 the lower card takes "
                "the trick, otherwise the higher; the taker leads next, across exchanges too."),
    "X19-3": N_("The player who did not take the trick receives a strike and chooses abandon or raise; "
                "a third strike in an exchange forces abandon."),
    "X19-4": N_("Stakes by total strikes in the exchange: 1->1, 2->2, 3->3, 4->5, 5->8; the winner of "
                "the exchange scores the stakes."),
    "X19-5": N_("The game ends when exactly 19 points have been awarded (fewer points wins) or a player "
                "has 19 or more (more points wins); at 19-0 the exactly-19 rule decides."),
    "X19-6": N_("Otherwise the exchange's cards are drafted alternately into the open hands, loser "
                "first; then the loser trades one card of either hand for one strike-row card: from the "
                "closed hand it goes in face down, from the open hand face up; a face-down strike card "
                "joins the closed hand, a face-up one the open hand."),
    "X19-7": N_("The referee tracks what is public; a card must be in the open hand to be played from it, "
                "and a card known to be elsewhere cannot come from a closed hand."),
    "X19-8": N_("House rule: version 2.0: each player has one hand, no open hand, no raise or abandon; "
                "a third strike ends the exchange, stakes 3/5/8; the game ends after an exchange in "
                "which a player reaches 19 or more, more points winning; the draft goes into the one "
                "hand, loser first, and the loser's traded card goes into the row face down."),
    **shared("T-1", "T-2", "T-4"),
}


# ------------------------------------------------------------------ the trick (X19-2)

def trick_winner(lead: int, follow: int) -> str:
    """``"lead"`` or ``"follow"``: on a sum of 19 the lower card takes the trick, else the higher."""
    if lead == follow:
        raise IllegalMove("X19-1", T("There is only one {card} in the deck: both cards cannot be {card}.", card=lead))
    if lead + follow == TRICK_SUM:
        return "lead" if lead < follow else "follow"
    return "lead" if lead > follow else "follow"


def _trick_explanation(lead: int, follow: int) -> str:
    total = lead + follow
    if total == TRICK_SUM:
        return T("{lead} + {follow} = 19, so the lower card ({card}) takes the trick.", lead=lead, follow=follow,
                 card=min(lead, follow))
    return T("{lead} + {follow} = {total}, not 19, so the higher card ({card}) takes the trick.", lead=lead,
             follow=follow, total=total, card=max(lead, follow))


def _answer_trick(values: dict) -> dict:
    lead, follow = values["lead"], values["follow"]
    winner = trick_winner(lead, follow)
    says = (T("The card led, {card}, takes the trick (X19-2): {why}", card=lead, why=_trick_explanation(lead, follow))
            if winner == "lead" else
            T("The card that followed, {card}, takes the trick (X19-2): {why}", card=follow,
              why=_trick_explanation(lead, follow)))
    return {"winner": winner, "rule": "X19-2", "explanation": _trick_explanation(lead, follow), "says": says}


def _judged_card(name: str, title: str, description: str) -> Shaped:
    """A card of a verdict's request: a number of the deck, 1 to 18 (X19-1), written as a number
    or a text (as a move's card), offered as a number."""
    return Shaped(name, description, shape={"type": "integer", "minimum": 1, "maximum": 18},
                  read=lambda value, state: _parse(check_type(name, value, (int, str))), title=title)


JUDGES = {
    "trick": Judge(
        _answer_trick,
        N_("Who takes a trick: on a sum of 19 the lower card, otherwise the higher (X19-2)."),
        fields=(_judged_card("lead", N_("Card led"), N_("The card led.")),
                _judged_card("follow", N_("Card that followed"), N_("The card that followed."))),
        response={"type": "object", "required": ["winner", "rule", "explanation", "says"], "properties": {
            "says": SAYS,
            "winner": {"type": "string", "enum": ["lead", "follow"]},
            "rule": {"type": "string"},
            "explanation": {"type": "string"},
        }},
        example={"lead": 10, "follow": 9},
    ),
}


# ------------------------------------------------------------------ setup

def new_game(players: Any, options: Any = None) -> dict:
    names = check_players(players, *PLAYERS, rule="X19-1")
    opts = resolve_options(OPTIONS, options)   # each value checked, citing its ruling (G-3): 'rules' X19-8
    # X19-1 / G-2: the table's choice, else the first player listed
    leader = player_option(opts, "first_leader", names, rule="X19-1") or names[0]
    opts["first_leader"] = leader
    return {
        "players": names,
        "options": opts,
        "record": opts["record"],    # T-4: move by move, or each exchange whole
        "hands_known": True,         # False once an exchange went unseen (entered whole, T-4)
        "phase": "trick",
        "to_play": leader,
        "leader": leader,
        "exchange": 1,
        "trick": [],                 # plays of the trick in progress
        "tricks": [],                # completed tricks of this exchange
        "exchange_cards": [],        # cards of this exchange still on the table (the draft pool)
        "strikes": {n: 0 for n in names},
        "points": {n: 0 for n in names},
        "open_hands": {n: [] for n in names},
        "closed_sizes": {n: HAND_SIZE for n in names},
        "closed_known": {n: [] for n in names},   # named by a move, not shown publicly
        # "card" of a face-down slot is what a move named (None if never named); never shown
        "strike_row": [{"face": "down", "card": None} for _ in range(ROW_SIZE)],
        "exchange_winner": None,
        "exchange_loser": None,
        "rounds": [],
        "winners": [],
        "end": None,
    }


# ------------------------------------------------------------------ move parsing

def _version_2(state: dict) -> bool:
    return state["options"].get("rules") == "2.0"


def _check_source(state: dict, source: str) -> None:
    if source == "open" and _version_2(state):
        raise IllegalMove("X19-8", N_("Version 2.0 has one hand and no open hand: a card comes from the hand "
                                      "('from': 'closed')."), legal={"from": ["closed"]})


def _other(state: dict, name: str) -> str:
    first, second = state["players"]
    return second if name == first else first


# ---- where a card is known to be (X19-7)

_ELSEWHERE = N_("already placed by an earlier move (where stays unseen, G-5)")


def _known_location(state: dict, card: int, except_closed_of: str | None = None) -> str | None:
    """Where the service knows ``card`` is, or None if it could be in any hidden place. A place
    nobody at the table can see (a closed hand, a face-down slot) is never named (G-5)."""
    for name in state["players"]:
        if card in state["open_hands"][name]:
            return T("in {player}'s open hand", player=name)
        if card in state["closed_known"][name] and name != except_closed_of:
            return _ELSEWHERE
    for index, slot in enumerate(state["strike_row"]):
        if slot["card"] == card:
            return T("face up in strike-row slot {slot}", slot=index) if slot["face"] == "up" else _ELSEWHERE
    if card in state["exchange_cards"]:
        return N_("already played in this exchange")
    return None


def _unknown_closed(state: dict, name: str) -> int:
    return state["closed_sizes"][name] - len(state["closed_known"][name])


def _hands_known(state: dict) -> bool:
    """False once an exchange was entered whole (T-4): its cards moved unseen by the referee."""
    return state.get("hands_known", True)  # a state stored before T-4 knew every hand


def _take_from_hand(state: dict, name: str, card: int, source: str) -> None:
    """Remove ``card`` from ``name``'s open or closed hand, refusing what cannot be true (X19-7).
    Once the hands are no longer known (T-4), only a card known to be elsewhere is refused."""
    _check_source(state, source)
    known = _hands_known(state)
    if source == "open":
        hand = state["open_hands"][name]
        if card in hand:
            hand.remove(card)
        elif known:
            raise IllegalMove("X19-7", T("{card} is not in {player}'s open hand.", card=card, player=name),
                              legal={"card": list(hand)})
        else:
            where = _known_location(state, card)
            if where:
                raise IllegalMove("X19-7", T("{card} cannot come from {player}'s open hand: it is {where}.",
                                             card=card, player=name, where=where))
        return
    if known and state["closed_sizes"][name] == 0:
        raise IllegalMove("X19-7", T("{player} has no cards in their closed hand.", player=name))
    if card in state["closed_known"][name]:
        state["closed_known"][name].remove(card)
    else:
        where = _known_location(state, card)
        if where:
            raise IllegalMove("X19-7", T("{card} cannot come from {player}'s closed hand: it is {where}.", card=card,
                                         player=name, where=where))
        if known and _unknown_closed(state, name) == 0:
            raise IllegalMove("X19-7", T("{card} cannot come from {player}'s closed hand: every card in it is already "
                                         "known, and {card} is not one of them.", card=card, player=name))
    _grow_closed(state, name, -1)


def _grow_closed(state: dict, name: str, by: int) -> None:
    if state["closed_sizes"][name] is not None:  # None: not known since an exchange entered whole (T-4)
        state["closed_sizes"][name] += by


def _forget_hands(state: dict) -> None:
    """T-4: the cards of an exchange the referee did not see (entered whole, or its draft and trade
    skipped) went somewhere unseen: every hand, and the strike row, are no longer known. What is
    seen from here on is known again (a draft pick, a card put into the row)."""
    if _hands_known(state):
        _event(state, "T-4", N_("The referee did not see this exchange's cards: from now on it knows only the "
                                "cards seen since, and refuses only a card known to be elsewhere (X19-7)."))
    names = state["players"]
    state["hands_known"] = False
    state["open_hands"] = {n: [] for n in names}
    state["closed_sizes"] = {n: None for n in names}
    state["closed_known"] = {n: [] for n in names}
    state["exchange_cards"] = []
    # version 2.0 puts every card into the row face down (X19-8); in 1.0 the faces are unknown too
    face = "down" if _version_2(state) else None
    state["strike_row"] = [{"face": face, "card": None} for _ in range(ROW_SIZE)]


# ---- play and the end of a trick (X19-2, X19-3)

def _play(state: dict, move: dict) -> None:
    _take_from_hand(state, move["player"], move["card"], move["from"])
    state["trick"].append({"player": move["player"], "card": move["card"]})
    state["exchange_cards"].append(move["card"])
    if len(state["trick"]) == 1:
        state["to_play"] = _other(state, move["player"])
    else:
        _finish_trick(state)


def _finish_trick(state: dict) -> None:
    lead, follow = state["trick"]
    taker = (lead if trick_winner(lead["card"], follow["card"]) == "lead" else follow)["player"]
    struck = _other(state, taker)
    state["tricks"].append({"lead": lead, "follow": follow, "winner": taker, "rule": "X19-2",
                            "explanation": _trick_explanation(lead["card"], follow["card"])})
    state["trick"] = []
    state["leader"] = taker                       # X19-2: the taker leads next, across exchanges
    state["strikes"][struck] += 1                 # X19-3
    _event(state, "X19-2", T("{player} takes the trick: {why}", player=taker,
                             why=_trick_explanation(lead["card"], follow["card"])))
    _event(state, "X19-3", T("{player} receives strike {n}.", player=struck, n=state["strikes"][struck]))
    if state["strikes"][struck] >= STRIKES_OUT:   # X19-3: the third strike forces abandon
        _end_exchange(state, winner=taker, how="third strike")
    elif _version_2(state):                       # X19-8: no raise or abandon, the taker leads
        state["phase"] = "trick"
        state["to_play"] = taker
    else:
        state["phase"] = "decision"
        state["to_play"] = struck


def _decide(state: dict, move: dict) -> None:
    if move["choice"] == "raise":
        state["phase"] = "trick"
        state["to_play"] = state["leader"]
    else:
        _end_exchange(state, winner=_other(state, move["player"]), how="abandoned")


# ---- the end of an exchange (X19-4, X19-5)

def _exchange_entry(state: dict, number: int, winner: str, how: str, strikes: dict, tricks: list) -> dict:
    """A finished exchange as ``rounds`` keeps it (its ``totals`` added by the caller): the winner
    scores the stakes for the strikes received by both (X19-4; X19-8 in version 2.0)."""
    loser = _other(state, winner)
    total_strikes = sum(strikes.values())
    stakes = (STAKES_2 if _version_2(state) else STAKES)[total_strikes]
    if _version_2(state):
        cause = T("{player} received a third strike (X19-8)", player=loser)
    else:
        cause = (T("{player} received a third strike and had to abandon (X19-3)", player=loser)
                 if how == "third strike" else T("{player} abandoned the exchange", player=loser))
    strikes_said = N_("1 strike") if total_strikes == 1 else T("{n} strikes", n=total_strikes)
    detail = T("Won exchange {n}: {cause}; {strikes} in total, stakes {stakes}.", n=number, cause=cause,
               strikes=strikes_said, stakes=stakes)
    return {
        "round": number,
        "scores": {winner: stakes, loser: 0},
        "breakdown": {winner: [{"rule": "X19-4", "points": stakes, "detail": detail}], loser: []},
        "winner": winner,
        "loser": loser,
        "ended_by": how,
        "strikes": dict(strikes),
        "stakes": stakes,
        "tricks": tricks,
    }


def _end_exchange(state: dict, winner: str, how: str, entered: dict | None = None) -> None:
    """The exchange is over: its stakes scored, the end judged (X19-5), then the draft (X19-6); or,
    for an exchange ``entered`` whole (T-4), the next exchange at once, the hands no longer known."""
    loser = _other(state, winner)
    entry = _exchange_entry(state, state["exchange"], winner, how, state["strikes"], deepcopy(state["tricks"]))
    if entered is not None:
        entry.update(entered)
    state["points"][winner] += entry["stakes"]
    state["exchange_winner"], state["exchange_loser"] = winner, loser
    state["rounds"].append({**entry, "totals": dict(state["points"])})
    detail = entry["breakdown"][winner][0]["detail"]
    _event(state, "X19-4", T("{player} won exchange {n}: {cause}; {strikes} in total, stakes {stakes}.",
                             player=winner, **detail.params))
    if entered is not None:
        state["leader"] = winner  # X19-2: the winner took the last trick (the loser received the last strike)
        _forget_hands(state)
    if _game_over(state):
        return
    if entered is not None:
        _next_exchange(state)     # T-4: the draft and the trade went unrecorded
        return
    state["phase"] = "draft"                      # X19-6: the loser picks first
    state["to_play"] = loser


def _between_exchanges(state: dict) -> bool:
    """No exchange under way: the draft or the trade of the last one, or the next one before its
    first card (T-2, T-4)."""
    phase = state["phase"]
    return phase in ("draft", "trade") or phase == "trick" and not state["trick"] and not state["tricks"]


def _inside_exchange(state: dict) -> Text | None:
    """T-4: an exchange begun move by move is finished move by move."""
    if state["phase"] == "finished" or _between_exchanges(state):
        return None
    return T("exchange {n} was begun move by move: finish it move by move.", n=state["exchange"])


def _game_over(state: dict) -> bool:
    """X19-5, the exactly-19 rule first (so it also decides 19-0); X19-8: 19 or more only."""
    points = state["points"]
    awarded = sum(points.values())
    exactly = awarded == TARGET and not _version_2(state)
    if exactly:
        winner = min(points, key=points.get)
        detail = T("exactly {target} points have been awarded, so the player with fewer points, {player}, wins.",
                   target=TARGET, player=winner)
    elif max(points.values()) >= TARGET:
        winner = max(points, key=points.get)
        detail = T("{player} has {points} points ({target} or more) and wins with more points.", player=winner,
                   points=points[winner], target=TARGET)
    else:
        return False
    state["phase"] = "finished"
    state["to_play"] = None
    state["winners"] = [winner]
    state["end"] = {"rule": "X19-5", "reason": "exactly 19 awarded" if exactly else "19 or more",
                    "winner": winner, "detail": detail}
    _event(state, "X19-5", T("The game is over: {reason}", reason=detail))
    return True


def _event(state: dict, rule: str, text: str) -> None:
    state["events"].append({"text": text, "rule": rule})


def _adjust(state: dict, player: str, points: int) -> int:
    """T-2: a point counts toward the end like an exchange's stakes, at once; the end is judged as
    ``_settle`` says."""
    held = state["points"][player]
    if held + points < 0:
        raise IllegalMove("T-2", T("{player} has {points} points: an adjustment can take at most that many.",
                                   player=player, points=held),
                          legal={"points": between(-held, ADJUST_LIMIT)})
    state["points"][player] += points
    _settle(state)
    return state["points"][player]


def _settle(state: dict) -> None:
    """X19-5 (X19-8) after the table changed a total (T-1, T-2), judged where it judges: during an
    exchange (its tricks, a decision), or before the first exchange has ended, at the exchange's
    end (``_end_exchange``); between exchanges (the draft, a trade, the next exchange before its
    first card) at once, as part of the exchange just finished, the table as it was kept should the
    table take the end back; after the end again, the game going on where it stopped (with the
    table's say-so, ``change_result``) when nobody has won any more."""
    if state["phase"] == "finished":
        if not _game_over(state):
            _reopen(state)
    elif state["rounds"] and _between_exchanges(state):
        where = {"phase": state["phase"], "to_play": state["to_play"]}
        if _game_over(state):
            state["resume"] = where


def _reopen(state: dict) -> None:
    """The game goes on where it stopped: where an adjustment ended it, else after the exchange that
    ended it: its draft, loser first (X19-6), or, for one entered whole, the next exchange (T-4)."""
    back = state.pop("resume", None)
    state.update(winners=[], end=None)
    if back:
        state.update(phase=back["phase"], to_play=back["to_play"])
    elif state["rounds"][-1].get("recorded") == "rounds":
        _next_exchange(state)
    else:
        state.update(phase="draft", to_play=state["exchange_loser"])
    _event(state, "X19-5", T("With this change nobody has won: the game goes on."))


# ---- the draft and the trade (X19-6)

def _draft(state: dict, move: dict) -> None:
    pool = state["exchange_cards"]
    if move["card"] not in pool:
        raise IllegalMove("X19-6", T("{card} is not among the cards left to draft.", card=move["card"]),
                          legal={"card": sorted(pool)})
    pool.remove(move["card"])
    if _version_2(state):                         # X19-8: one hand; the table saw the pick
        _grow_closed(state, move["player"], 1)
        state["closed_known"][move["player"]].append(move["card"])
    else:
        _add_open(state, move["player"], move["card"])
    if pool:
        state["to_play"] = _other(state, move["player"])
    else:
        state["phase"] = "trade"
        state["to_play"] = state["exchange_loser"]


def _trade(state: dict, move: dict) -> None:
    name, card, index = move["player"], move["card"], move["slot"]
    _take_from_hand(state, name, card, move["from"])
    slot = state["strike_row"][index]
    taken = _strike_card(state, slot, index, move.get("strike_card"), card)
    if slot["face"] == "up":                      # a face-up strike card (known: taken) joins the open hand
        _add_open(state, name, slot["card"])
    elif slot["face"] == "down":                  # a face-down one joins the closed hand
        _grow_closed(state, name, 1)
        if taken is not None:
            state["closed_known"][name].append(taken)
    # else the slot's face went unseen (T-4): which hand the card joins is not known
    # the hand card goes in face down from the closed hand, face up from the open hand
    state["strike_row"][index] = {"face": "down" if move["from"] == "closed" else "up", "card": card}
    _next_exchange(state)


def _strike_card(state: dict, slot: dict, index: int, named: int | None, hand_card: int) -> int | None:
    """The card taken from ``slot``: its known card, or the one named, or None (unknown)."""
    if named is None:
        return slot["card"]
    if slot["card"] is not None:
        if named != slot["card"]:
            raise IllegalMove("X19-7", T("Strike-row slot {slot} holds {card} face up, not {named}.", slot=index,
                                         card=slot["card"], named=named) if slot["face"] == "up" else
                              T("Strike-row slot {slot} holds a different card (recorded when it was put there face "
                                "down), not {named}.", slot=index, named=named))
        return named
    where = N_("the card being traded away") if named == hand_card else _known_location(state, named)
    if where:
        raise IllegalMove("X19-7", T("Strike-row slot {slot} cannot hold {named}: it is {where}.", slot=index,
                                     named=named, where=where))
    return named


def _add_open(state: dict, name: str, card: int) -> None:
    state["open_hands"][name] = sorted(state["open_hands"][name] + [card])


def _next_exchange(state: dict) -> None:
    state["exchange"] += 1
    state["strikes"] = {n: 0 for n in state["players"]}
    state["tricks"] = []
    state["exchange_winner"] = state["exchange_loser"] = None
    state["phase"] = "trick"
    state["to_play"] = state["leader"]            # X19-2: the last trick's taker leads


# ---- an exchange entered whole (T-4), its correction (T-1), and the switch between the two

def _read_strikes(value: Any, state: dict) -> dict[str, int]:
    """``{name: strikes}``: the strikes each player received in the exchange."""
    strikes = {}
    for name, given in get_field({"strikes": value}, "strikes", dict).items():
        if name not in state["players"]:
            raise InvalidInput(T("'{player}' is not a player in this game.", player=name))
        strikes[name] = get_field({"strikes": given}, "strikes", int)
    return strikes


def _whole_exchange(state: dict, strikes: dict, abandoned: str | None) -> dict:
    """The outcome of an exchange entered whole, as far as the strikes tell (T-4): who lost it, how,
    and the strikes in seat order. Version 1.0 (X19-3, X19-4): it ends when a struck player
    abandons, at the latest at their third strike; 2.0 (X19-8): at a player's third strike."""
    rule = "X19-8" if _version_2(state) else "X19-3"
    names = state["players"]
    missing = [n for n in names if n not in strikes]
    if missing:
        raise IllegalMove("X19-4", T("Both players' strikes are needed: the stakes count the strikes received by "
                                     "both; missing: {players}.", players=", ".join(missing)))
    if abandoned is not None and _version_2(state):
        raise IllegalMove("X19-8", N_("Version 2.0 has no abandon: an exchange ends at a player's third strike, so "
                                      "leave 'abandoned' out."))
    for name in names:
        if not 0 <= strikes[name] <= STRIKES_OUT:
            raise IllegalMove(rule, T("{player} cannot have received {n} strikes: a player receives 0 to {most} in "
                                      "an exchange, the third ending it.", player=name, n=strikes[name],
                                      most=STRIKES_OUT),
                              legal={"strikes": {name: between(0, STRIKES_OUT)}})
    out = [n for n in names if strikes[n] == STRIKES_OUT]
    if len(out) > 1:
        raise IllegalMove(rule, N_("Both players cannot have received a third strike: the first third strike ends "
                                   "the exchange."))
    struck = [n for n in names if strikes[n] > 0]
    if _version_2(state):
        if not out:
            raise IllegalMove("X19-8", N_("In version 2.0 an exchange ends only at a player's third strike: one "
                                          "player has 3 strikes."))
        loser = out[0]
    elif out:
        loser = out[0]
        if abandoned not in (None, loser):
            raise IllegalMove("X19-3", T("{player} received a third strike and had to abandon (X19-3): {other} "
                                         "cannot have abandoned.", player=loser, other=abandoned),
                              legal={"abandoned": [loser]})
    elif not struck:
        raise IllegalMove("X19-3", N_("An exchange ends when a player who has just received a strike abandons: "
                                      "at least one strike was received."),
                          legal={"strikes": {abandoned: between(1, STRIKES_OUT)}} if abandoned in names else None)
    elif abandoned is None:
        raise IllegalMove("X19-3", N_("Nobody received a third strike, so someone abandoned: say who "
                                      "('abandoned')."), legal={"abandoned": struck})
    elif abandoned not in struck:
        raise IllegalMove("X19-3", T("{player} received no strike: a player abandons just after receiving one "
                                     "(the exchange's last).", player=abandoned), legal={"abandoned": struck})
    else:
        loser = abandoned
    entered = {"recorded": "rounds"}  # what the table entered, to fill a correction with (T-1)
    if not _version_2(state):
        entered["abandoned"] = loser
    return {"winner": _other(state, loser), "how": "third strike" if strikes[loser] == STRIKES_OUT else "abandoned",
            "strikes": {n: strikes[n] for n in names}, "entered": entered}


def _exchange_result(state: dict, move: dict) -> None:
    why = _inside_exchange(state)
    if why is not None:
        raise IllegalMove("T-4", T("An exchange is entered whole between exchanges, never inside one: {why}",
                                   why=why), legal=moves_instead(GAME, state, ("play", "decide")))
    result = _whole_exchange(state, move["strikes"], move.get("abandoned"))
    state["strikes"] = result["strikes"]
    _end_exchange(state, result["winner"], result["how"], entered=result["entered"])


def _correct_exchange(state: dict, move: dict) -> None:
    """T-1: an exchange entered whole, entered again and scored as an exchange result is (X19-3,
    X19-4, X19-8); the totals follow, then the end of the game (``_settle``) and, for the last
    exchange, who leads the next one (X19-2)."""
    index = round_index(state, move["round"], state["exchange"], what=N_("Exchange"))
    old = state["rounds"][index]
    if old.get("recorded") != "rounds":
        raise IllegalMove("T-1", T("Exchange {n} was refereed move by move: its result follows from its tricks, "
                                   "so there is no entry to replace; a score the table disputes is changed with an "
                                   "adjustment ('adjust', T-2).", n=old["round"]),
                          legal={"type": ["adjust"], "round": (_correctable(state) or {}).get("round", [])})
    result = _whole_exchange(state, move["strikes"], move.get("abandoned"))
    entry = {**_exchange_entry(state, old["round"], result["winner"], result["how"], result["strikes"], []),
             **result["entered"]}
    for name, points in replace_round(state, index, entry, move["reason"], what=N_("Exchange")).items():
        state["points"][name] += points
    last = index == len(state["rounds"]) - 1
    if last and state["phase"] == "finished":
        state["leader"] = result["winner"]
        state["exchange_winner"], state["exchange_loser"] = result["winner"], _other(state, result["winner"])
        if (state.get("resume") or {}).get("phase") == "trick":  # ended by an adjustment before the next exchange
            state["resume"] = {**state["resume"], "to_play": result["winner"]}
    elif last and _between_exchanges(state) and state["phase"] == "trick":
        state["leader"] = state["to_play"] = result["winner"]   # X19-2: the next exchange not begun yet
    _settle(state)


def _correctable(state: dict) -> dict | None:
    """The exchanges a correction may replace: those entered whole (T-1)."""
    done = [entry["round"] for entry in state["rounds"] if entry.get("recorded") == "rounds"]
    return {"round": done} if done else None


def _switched(state: dict, mode: str) -> None:
    """T-4: a table that records by exchanges from the draft or the trade on skips them; nobody
    tells the referee where those cards go."""
    if mode == "rounds" and state["phase"] in ("draft", "trade"):
        _event(state, "T-4", T("The draft and the trade of exchange {n} are not recorded.", n=state["exchange"]))
        _forget_hands(state)
        _next_exchange(state)


# ------------------------------------------------------------------ views

def standings(state: dict) -> dict:
    return dict(state["points"])


def _public_slot(slot: dict) -> dict:
    return {"face": slot["face"], "card": slot["card"] if slot["face"] == "up" else None}


def public_view(state: dict) -> dict:
    visible = set(state["exchange_cards"])
    for name in state["players"]:
        visible.update(state["open_hands"][name])
    visible.update(s["card"] for s in state["strike_row"] if s["face"] == "up")
    return {
        "round": state["exchange"],
        "to_play": state["to_play"],
        "standings": standings(state),
        "rounds": deepcopy(state["rounds"]),
        "exchange": state["exchange"],
        "leader": state["leader"],
        "trick": deepcopy(state["trick"]),
        "tricks": deepcopy(state["tricks"]),
        "exchange_cards": sorted(state["exchange_cards"]),
        "strikes": dict(state["strikes"]),
        "stakes": STAKES[sum(state["strikes"].values())],
        "points": dict(state["points"]),
        "open_hands": {n: list(h) for n, h in state["open_hands"].items()},
        "hand_sizes": dict(state["closed_sizes"]),
        "strike_row": [_public_slot(s) for s in state["strike_row"]],
        "exchange_winner": state["exchange_winner"],
        "exchange_loser": state["exchange_loser"],
        # cards nobody can see: closed hands, face-down strike cards and the discard
        "unseen": [c for c in DECK if c not in visible],
        "end": deepcopy(state["end"]),
        "rules": state["options"].get("rules") or "1.0",
        # false once an exchange went unseen (T-4): open hands then list only the cards seen since,
        # closed sizes are null and a strike-row slot's face may be null (not known)
        "hands_known": _hands_known(state),
    }


_PLAYED = {"type": "object", "properties": {"player": {"type": "string"}, "card": vocabulary.card_schema(True)}}
_CARDS = {"type": "array", "items": vocabulary.card_schema(True)}
_PER_PLAYER = {"type": "object", "additionalProperties": {"type": "integer"}}
VIEW = (
    shown("exchange", {"type": "integer"}, "The exchange in progress (the same as round)."),
    shown("leader", {"type": "string"}, "Who leads the next trick (X19-1, X19-2).", nullable=True),
    shown("trick", {"type": "array", "items": _PLAYED}, "The trick in progress: the cards played so far (X19-2)."),
    shown("tricks", {"type": "array", "items": {"type": "object", "properties": {
        "lead": _PLAYED, "follow": _PLAYED, "winner": {"type": "string"}, "rule": {"type": "string"},
        "explanation": {"type": "string"}}}}, "The tricks of this exchange, each with who took it and why (X19-2)."),
    shown("exchange_cards", _CARDS, "The cards played in this exchange (X19-6 drafts them)."),
    shown("strikes", _PER_PLAYER, "The strikes each player received in this exchange (X19-3)."),
    shown("stakes", {"type": "integer"}, "What the exchange is worth now, by its strikes (X19-4, X19-8)."),
    shown("points", _PER_PLAYER, "Each player's points (the standings) (X19-5)."),
    shown("open_hands", {"type": "object", "additionalProperties": _CARDS},
          "Each player's open hand (X19-6, X19-7; none in 2.0); once hands are unknown, the cards seen since."),
    vocabulary.HAND_SIZES,
    shown("strike_row", {"type": "array", "items": {"type": "object", "properties": {
        "face": {"type": "string", "enum": ["up", "down", None], "nullable": True},
        "card": {**vocabulary.card_schema(True), "nullable": True}}}},
          "The five strike-row slots A-E: face up with its card, face down (G-5), or face unknown (null)."),
    shown("exchange_winner", {"type": "string"}, "Who won the last exchange, or null.", nullable=True),
    shown("exchange_loser", {"type": "string"}, "Who lost the last exchange (drafts first, trades), or null.",
          nullable=True),
    shown("unseen", _CARDS, "The cards nobody at the table can see: closed hands, face-down strike cards, the "
          "discard (G-5)."),
    shown("end", {"type": "object", "properties": {"rule": {"type": "string"}, "reason": {"type": "string"},
                                                   "winner": {"type": "string"}, "detail": {"type": "string"}}},
          "How the game ended (X19-5, X19-8), or null.", nullable=True),
    shown("rules", {"type": "string", "enum": list(VERSIONS)}, "The rules version in play (X19-8)."),
    shown("hands_known", {"type": "boolean"}, "False once an exchange went unseen (entered whole, T-4): the "
          "service then checks only what it saw since (X19-7)."),
)


def outcome(state: dict):
    if state["phase"] == "finished":
        return finished(state["winners"], state["end"]["detail"], "X19-5")
    return in_progress()


# ------------------------------------------------------------------ who may move, and with what

_TABLE = ("adjust", "correct_round")  # the table's own moves, in every phase and after the end (T-1, T-2)
PHASES = {"trick": ("play", "exchange_result", *_TABLE), "decision": ("decide", *_TABLE), "draft": ("draft", *_TABLE),
          "trade": ("trade", *_TABLE), "finished": _TABLE}
_NOW = {  # what the table must do in each phase, and the ruling that says so
    "trick": ("X19-2", N_("A trick is being played: {player} is to play a card.")),
    "decision": ("X19-3", N_("{player} received a strike and must first choose to raise or abandon.")),
    "draft": ("X19-6", N_("The exchange is over and its cards are being drafted: {player} picks next.")),
    "trade": ("X19-6", N_("{player} must first trade a card with the strike row.")),
}


def refuse_phase(state: dict, kind: str) -> IllegalMove:
    # a decision is always about X19-3, the draft and the trade about X19-6; a play out of time
    # cites what the table must do first
    rule, now = _NOW[state["phase"]]
    if kind == "exchange_result":
        return _refuse_whole(state)
    rule = {"decide": "X19-3", "draft": "X19-6", "trade": "X19-6"}.get(kind, rule)
    if kind == "decide" and _version_2(state):
        return IllegalMove("X19-8", N_("Version 2.0 has no raise or abandon: a third strike ends the exchange."))
    return IllegalMove(rule, T("A '{move}' move is not possible now. {now}", move=kind,
                               now=T(now, player=state["to_play"])),
                       legal=moves_instead(GAME, state, PHASES[state["phase"]]))


def _refuse_whole(state: dict) -> IllegalMove:
    """An exchange entered whole during a decision (T-4: inside an exchange) or before the draft and
    the trade of the last one are done (X19-6)."""
    if state["phase"] in ("draft", "trade"):
        return IllegalMove("X19-6", T("Exchange {n} is over, but its cards are being redistributed: record the draft "
                                      "and the trade first, or switch to recording by exchanges ('switch_record'), "
                                      "which skips them.", n=state["exchange"]),
                           legal=moves_instead(GAME, state, (state["phase"], RECORD_MOVE)))
    return IllegalMove("T-4", T("An exchange is entered whole between exchanges, never inside one: {why}",
                                why=_inside_exchange(state)),
                       legal=moves_instead(GAME, state, ("play", "decide")))


def refuse_actor(state: dict, kind: str, player: str) -> IllegalMove:
    to_play = state["to_play"]
    rule, why = {
        "play": ("X19-2", T("{player} is to follow (the taker of the last trick leads the next).", player=to_play)
                 if state["trick"] else
                 T("{player} is to lead (the taker of the last trick leads the next).", player=to_play)),
        "decide": ("X19-3", T("{player} received the strike and decides.", player=to_play)),
        "draft": ("X19-6", T("the loser of the exchange picks first and picks alternate; {player} picks now.",
                             player=to_play)),
        "trade": ("X19-6", T("only the loser of the exchange, {player}, trades.", player=to_play)),
    }[kind]
    return IllegalMove(rule, T("It is not {player}'s turn: {why}", player=player, why=why),
                       legal={"player": [to_play]})


def _sources(state: dict) -> list[str]:
    """The hands a card can come from; once the hands are no longer known (T-4), either hand
    (but an open one in version 2.0)."""
    name = state["to_play"]
    blind = not _hands_known(state)
    closed = state["closed_sizes"][name] is None or state["closed_sizes"][name] > 0
    opened = bool(state["open_hands"][name]) or blind and not _version_2(state)
    return [source for source, has in (("closed", closed), ("open", opened)) if has]


def choices(state: dict, kind: str) -> dict | None:
    """The hands a card can come from (X19-7), the answers to a strike (X19-3), the cards left to
    draft and the strike-row slots a trade can use (X19-6)."""
    if kind == "play":
        return {"from": _sources(state)}
    if kind == "decide":
        return {"choice": ["raise", "abandon"]}
    if kind == "draft":
        return {"card": sorted(state["exchange_cards"])}
    if kind == "exchange_result":  # T-4: between exchanges only
        if _inside_exchange(state) is not None:
            return None
        return {} if _version_2(state) else {"abandoned": list(state["players"])}
    return {"from": _sources(state), "slot": list(range(ROW_SIZE))}


def facts(state: dict, kind: str) -> dict:
    """What a play or a trade is made from besides its fields' values: the cards of the open hand
    (``open_hand``: a card played or traded 'from': 'open' is one of them, X19-7) and, for a trade,
    the strike-row cards face up (``face_up``: slot, as a string, to card; X19-6)."""
    if kind not in ("play", "trade"):
        return {}
    known: dict[str, Any] = {"open_hand": list(state["open_hands"][state["to_play"]])}
    if kind == "trade":
        known["face_up"] = {str(i): slot["card"] for i, slot in enumerate(state["strike_row"]) if slot["face"] == "up"}
    return known


def _says_trade(move: dict, show) -> str:
    """A closed card goes into the strike row face down: the log does not name it (X19-7)."""
    slot = move.get("slot")
    name = SLOT_NAMES[slot] if type(slot) is int and 0 <= slot < ROW_SIZE else slot
    if move.get("from") == "open":
        return T("{player} trades {card} from the open hand with strike-row slot {slot}", player=move.get("player"),
                 card=show(move.get("card")), slot=name)
    return T("{player} trades a closed card with strike-row slot {slot}", player=move.get("player"), slot=name)


def _says_play(move: dict, show) -> str:
    if move.get("from") == "open":
        return T("{player} plays {card} from the open hand", player=move.get("player"), card=show(move.get("card")))
    if move.get("from") == "closed":
        return T("{player} plays {card} from the closed hand", player=move.get("player"), card=show(move.get("card")))
    return T("{player} plays {card} from the {source} hand", player=move.get("player"), card=show(move.get("card")),
             source=move.get("from"))


def _says_decide(move: dict, show) -> str:
    if move.get("choice") == "raise":
        return T("{player} chooses to raise", player=move.get("player"))
    if move.get("choice") == "abandon":
        return T("{player} chooses to abandon", player=move.get("player"))
    return T("{player} chooses to {choice}", player=move.get("player"), choice=move.get("choice"))


def _xix_card(name: str, **kwargs) -> Card:
    return Card(name, read=_parse, numbers=True, example=7, **kwargs)


def _says_exchange(move: dict, show) -> str:
    strikes = move.get("strikes")
    counts = (", ".join(f"{name} {n}" for name, n in strikes.items()) if isinstance(strikes, dict)
              else str(strikes))
    if move.get("abandoned"):
        return T("Exchange result: strikes {strikes}; {player} abandoned", strikes=counts, player=move["abandoned"])
    return T("Exchange result: strikes {strikes}", strikes=counts)


_FROM = Choice("from", choices=SOURCES, description=N_("The hand the card comes from (X19-7)."))
_EXCHANGE_RESULT = (
    Shaped("strikes", shape={"type": "object", "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 3},
                             "description": "The strikes each player received in the exchange: {name: 0-3}.",
                             "example": {"Ann": 1, "Bob": 3}},
           read=_read_strikes),
    Player("abandoned", required=False,
           description=N_("Version 1.0: who abandoned (X19-3); may be left out when a player received a third "
                          "strike. Version 2.0 has no abandon (X19-8).")),
)
MOVES = {
    "play": Move(_play, (Player("player"), _xix_card("card"), _FROM),
                 N_("Lead or follow a trick with a card from either hand."), ("X19-2", "X19-7"),
                 label=N_("Play a card"), says=_says_play),
    "decide": Move(_decide, (Player("player"), Choice("choice", choices=("raise", "abandon"))),
                   N_("After receiving a strike: raise or abandon (a third strike abandons by itself)."), ("X19-3",),
                   label=N_("Raise or abandon"), says=_says_decide),
    "draft": Move(_draft, (Player("player"), _xix_card("card")),
                  N_("One pick of the draft into the picker's open hand; the exchange's loser picks first, then "
                     "picks alternate."), ("X19-6",), label=N_("Draft a card"), says=N_("{player} drafts {card}")),
    "trade": Move(
        _trade, (Player("player"), _xix_card("card"), _FROM,
                 Int("slot", lo=0, hi=ROW_SIZE - 1,
                     description=N_("0-4 from the first player's left (the pages letter them A-E); the second "
                                    "player, sitting opposite, sees slot 0 at their right.")),
                 _xix_card("strike_card", required=False, nullable=True,
                           description=N_("The slot's card, or null for a face-down card left unnamed."))),
        N_("The loser's trade: a hand card for the card in one strike-row slot."), ("X19-6", "X19-7"),
        label=N_("Trade with the strike row"), says=lambda move, show: _says_trade(move, show),
        private=lambda move: ("card", "strike_card") if move.get("from") == "closed" else ("strike_card",)),
    "adjust": adjust_move(_adjust, N_("A point counts toward the end at once, like an exchange's stakes; the end is "
                                      "judged at the end of the exchange in progress (X19-5), or at once between "
                                      "exchanges: an adjustment never ends an exchange early."),
                          round_of=lambda state: state["exchange"]),
    "exchange_result": Move(
        _exchange_result, _EXCHANGE_RESULT,
        N_("A whole exchange, recorded instead of its tricks, decisions, draft and trade: the strikes each player "
           "received and, in version 1.0, who abandoned; the other player scores the stakes, and the winner "
           "leads next (T-4)."), ("X19-3", "X19-4", "X19-8", "T-4"), label=N_("Exchange result"),
        says=_says_exchange, actor=None),
    "correct_round": correction_move(
        _correct_exchange, _EXCHANGE_RESULT,
        N_("An exchange entered whole with a wrong result, replaced: the exchange (round), why, and the strikes "
           "(and who abandoned) as an exchange result gives them; the totals follow (T-1). An exchange refereed "
           "move by move is changed with an adjustment (T-2)."),
        ("X19-3", "X19-4", "X19-5", "X19-8"), _correctable, 10_000, what=N_("Exchange")),
    "switch_record": record_move(_inside_exchange, _switched),
}


# ---------------------------------------------------------------- the group's stats

def count_figures(final: dict, steps) -> dict:
    """Exchanges won (X19-4) and strikes received (X19-3)."""
    return {p: {"exchanges_won": sum(1 for r in final["rounds"] if r.get("winner") == p),
                "strikes": sum((r.get("strikes") or {}).get(p, 0) for r in final["rounds"])}
            for p in final["players"]}


FIGURES = Figures(count_figures, labels={"exchanges_won": N_("Exchanges won"), "strikes": N_("Strikes received")})


GAME = Game(module=__name__, name=NAME, title=TITLE, players=PLAYERS, options=OPTIONS, rulings=RULINGS, moves=MOVES,
            phases=PHASES, judges=JUDGES, view=VIEW, new_game=new_game, public_view=public_view, standings=standings,
            outcome=outcome, first_deal=FIRST_DEAL, whole_round=WHOLE_ROUND, round_label=ROUND_LABEL, choices=choices,
            facts=facts, refuse_phase=refuse_phase, refuse_actor=refuse_actor,
            figures=FIGURES)
