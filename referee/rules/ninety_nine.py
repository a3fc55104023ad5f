"""Ninety-nine: the pile total, tokens lost at 33, 66 and 99, eliminations (rulings N99-1..N99-8).

A table records every card as it is played (``record``: ``moves``, refereed in full) or each round
whole when it ends (``rounds``: ``round_result``, the tokens each player lost and who ended it,
checked as far as tokens tell, T-4). A round entered whole may be entered again (``correct_round``,
T-1); one refereed card by card may not: its tokens follow from the cards (``adjust``, T-2)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from referee.cards import STANDARD_RANKS, STANDARD_SUITS, parse_standard, rank_of
from referee.rules.base import (
    SAYS, ADJUST_LIMIT, IllegalMove, InvalidInput, Judge, Move, adjust_move, and_names, Game,
    between, check_players, correction_move, finished, get_field, in_deck, in_progress,
    moves_instead, player_option, record_move, RECORD_OPTION, declared_options, replace_round, resolve_options, round_index, shared,
)
from referee.rules import vocabulary
from referee.rules.vocabulary import shown
from referee.rules.fields import Card, Choice, Int, Player, Shaped
from referee.rules.base import Example, Figures
from referee.texts import N_, T, Text, joined

NAME = "ninety-nine"
TITLE = "Ninety-nine"
PLAYERS = (2, 16)
HAND = 3  # N99-2: three cards each
FIRST_DEAL = ("first_player", 0)  # the option naming who starts, and its default seat (N99-2, G-2)
OPTIONS = declared_options(
    Int("tokens", N_("Tokens each player starts with (N99-1)."), lo=1, hi=99, default=9, rule="N99-1"),
    Choice("decks", N_("1 or 2 standard decks; default 2 with more than five players, else 1 (N99-1)."),
           choices=(1, 2), rule="N99-1"),
    Player("first_player", N_("Who plays first in round 1; default the first player listed (N99-2)."), rule="N99-2"),
    Int("hand_size", N_("House rule: the cards dealt to each player, 1 to 5 (N99-9; the sheet deals 3, N99-2)."),
        lo=1, hi=5, default=HAND, rule="N99-9"),
    RECORD_OPTION,
)
WHOLE_ROUND = "round_result"  # a round entered whole (T-4)
RULINGS = {
    **shared("G-1", "G-2"),
    "N99-1": N_("One 52-card deck, or two (default two with more than five players); two to sixteen "
                "players, 9 tokens each (the table's choice)."),
    "N99-2": N_("Three cards each, an empty pile (no top card) with total 0, clockwise; the first "
                "player is the table's choice (default the first listed), and each round starts one "
                "seat further left, skipping eliminated players."),
    "N99-3": N_("3-8 face value (4 reverses), 9 adds 0, J Q K add 10 (J skips the next player), 10 is "
                "+10 or -10, A is +1 or +11, a 2 halves an even total over 49 and doubles otherwise; "
                "the total may go below 0."),
    "N99-4": N_("With two players a J gives another turn and a 4 does not reverse; eliminated players are skipped."),
    "N99-5": N_("Only going up counts. A play from t to u that lands on a limit L, 33 or 66, from below "
                "(t < L = u) costs every other player a token; one that passes it (t < L < u) costs the "
                "player a token; 99 wins the round (every other player loses two); over 99 loses the "
                "round and two tokens. The losses of one play add up (53 doubled to 106 passes 66 and "
                "99: three tokens); going down, back to 66 included, costs nobody anything."),
    "N99-6": N_("A player with no tokens is out at once, mid-round too (one put out by their own play "
                "does not draw); the last player in wins."),
    "N99-7": N_("A player who forgot to draw plays on with one card fewer; no card on your turn ends the "
                "round and costs three tokens."),
    "N99-8": N_("When the draw pile runs out the played cards but the top one are reshuffled; the total stays."),
    "N99-9": N_("House rule: the table may deal 1 to 5 cards to each player instead of 3; N99-7 counts from it."),
    **shared("T-1", "T-2", "T-4"),
}
LIMITS = (33, 66)
_card = in_deck(parse_standard, "N99-1")  # G-3: a card outside the deck cites the deck's ruling
DECLARED = {"10": (10, -10), "A": (1, 11)}  # N99-3: the values a 10 and an A may be declared as
TARGET = 99
DECK = tuple(rank + suit for suit in STANDARD_SUITS for rank in STANDARD_RANKS)  # N99-1: one standard deck


# ---------------------------------------------------------------- the effect of one card

@dataclass
class Effect:
    """What one card does to a total: shared by the game and the dispute verdict."""

    total: int
    player_loses: int = 0
    others_lose: int = 0
    round_over: bool = False
    won_round: bool = False
    skip_next: bool = False
    reverse: bool = False
    passed: list[int] = field(default_factory=list)   # limits passed going up (N99-5)
    rules: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)

    def note(self, rule: str, text: str) -> None:
        if rule not in self.rules:
            self.rules.append(rule)
        self.reasons.append(text)


def card_value(card: str, value: int | None) -> int | None:
    """The declared value for a 10 or an A, checked (N99-3); None for every other card."""
    rank = rank_of(card)
    choices = DECLARED.get(rank)
    if choices is None:
        if value is not None:
            raise IllegalMove("N99-3", T("{card} has a fixed value: do not declare one.", card=card))
        return None
    # Only a whole number declares (10.0 == 10 and True == 1 in Python, but they are not numbers here).
    if type(value) is not int or value not in choices:
        raise IllegalMove("N99-3", T("{card} must be declared as {a} or {b}.", card=card, a=choices[0], b=choices[1]),
                          legal={"value": list(choices)})
    return value


def play_effect(total: int, card: str, value: int | None, players: int) -> Effect:
    """Apply N99-3..N99-5 to ``total``; ``players`` is the number still in the game."""
    rank = rank_of(card)
    value = card_value(card, value)
    if rank == "2":
        new = total // 2 if total % 2 == 0 and total > 49 else total * 2
        how = N_("halves") if total % 2 == 0 and total > 49 else N_("doubles")
    elif rank in ("10", "A") and value is not None:  # (always declared: card_value)
        new, how = total + value, T("counts {value:+d}", value=value)
    elif rank == "9":
        new, how = total, T("adds {n}", n=0)
    elif rank in ("J", "Q", "K"):
        new, how = total + 10, T("adds {n}", n=10)
    else:
        new, how = total + int(rank), T("adds {n}", n=rank)
    effect = Effect(total=new)
    effect.note("N99-3", T("{card} {how}: {before} -> {after}.", card=card, how=how, before=total, after=new))

    if rank == "4":
        if players > 2:
            effect.reverse = True
            effect.note("N99-3", N_("A 4 reverses the direction of play."))
        else:
            effect.note("N99-4", N_("With two players a 4 does not change the direction."))
    if rank == "J":
        effect.skip_next = True
        if players > 2:
            effect.note("N99-3", N_("A J makes the next player skip a turn."))
        else:
            effect.note("N99-4", N_("With two players a J gives the same player another turn."))

    # N99-5: only going up costs tokens; every loss of one play adds up.
    for limit in LIMITS:
        if total < limit and new == limit:
            effect.others_lose += 1
            effect.note("N99-5", T("Reaching exactly {limit}: every other player loses a token.", limit=limit))
        elif total < limit < new:
            effect.player_loses += 1
            effect.passed.append(limit)
            effect.note("N99-5", T("Passing {limit}: the player loses a token.", limit=limit))
    if new < total and any(new <= limit < total for limit in LIMITS):
        effect.note("N99-5", N_("Going down never costs a token."))
    if new == TARGET:
        effect.round_over = effect.won_round = True
        effect.others_lose += 2
        effect.note("N99-5", N_("Reaching exactly 99 wins the round: every other player loses two tokens."))
    elif new > TARGET:
        effect.round_over = True
        effect.player_loses += 2
        effect.note("N99-5", N_("Going over 99 loses the round and two tokens."))
    return effect


# ---------------------------------------------------------------- game setup

def _decks(options: dict, players: int) -> int:
    decks = options["decks"]
    return (2 if players > 5 else 1) if decks is None else decks   # N99-1 (checked by resolve_options)


def new_game(players: list[str], options: dict | None = None) -> dict:
    players = check_players(players, *PLAYERS, rule="N99-1")
    options = resolve_options(OPTIONS, options)   # each value checked, citing its ruling (G-3)
    tokens = options["tokens"]
    options["decks"] = _decks(options, len(players))
    hand = options["hand_size"]
    if hand * len(players) >= 52 * options["decks"]:
        # N99-1: one deck, or two when there are many players; the deal must leave a draw pile
        raise InvalidInput(T("Too many players for the deck: {n} hands of {hand} cards need two decks (N99-1).",
                             n=len(players), hand=hand) if options["decks"] == 1 else
                           T("Too many players for the deck: {n} hands of {hand} cards need fewer cards each "
                             "(N99-1, N99-9).", n=len(players), hand=hand),
                           rule="N99-1", legal={"decks": [2]} if options["decks"] == 1 else None)
    first = player_option(options, "first_player", players, rule="N99-2")
    if first is None:
        first = players[0]
    options["first_player"] = first
    state = {
        "players": players,
        "options": options,
        "record": options["record"],
        "tokens": {p: tokens for p in players},
        "out": [],
        "round": 0,
        "rounds": [],
        "winners": [],
        "events": [],
    }
    _start_round(state, first)
    state["events"] = [{"text": T("Round {round}: {player} plays first", round=1, player=first), "rule": "N99-2"}]
    return state


def _hand(state: dict) -> int:
    """The cards dealt to each player (N99-2; N99-9 house rule). Older games lack the option."""
    return state["options"].get("hand_size") or HAND


def _active(state: dict) -> list[str]:
    return [p for p in state["players"] if p not in state["out"]]


def _start_round(state: dict, starter: str) -> None:
    active = _active(state)
    state.update(
        round=state["round"] + 1,
        phase="play",
        total=0,
        direction="clockwise",
        to_play=starter,
        starter=starter,
        hand_sizes={p: (_hand(state) if p in active else 0) for p in state["players"]},
        played_this_round=[],
        missed_draws={},
        # Card accounting (N99-8): cards on the pile since the last shuffle, and the draw pile.
        pile=[],
        top=None,  # N99-2: each round starts with an empty pile, no top card
        draw_pile=52 * state["options"]["decks"] - _hand(state) * len(active),
        round_losses={p: 0 for p in state["players"]},
        round_notes={p: [] for p in state["players"]},
    )


def _seat_after(state: dict, name: str, direction: str) -> str:
    """The next player still in the game from ``name``'s seat (N99-4: skip the eliminated)."""
    players = state["players"]
    step = 1 if direction == "clockwise" else -1
    i = players.index(name)
    for _ in range(len(players)):
        i = (i + step) % len(players)
        if players[i] not in state["out"]:
            return players[i]
    return name


# ---------------------------------------------------------------- moves

def _play(state: dict, move: dict) -> None:
    player, card, value = move["player"], move["card"], move.get("value")
    copies = state["options"]["decks"]
    if state["pile"].count(card) >= copies:
        raise IllegalMove("N99-8", T("{card} cannot be played: every copy of it ({copies}) is already on the pile "
                                     "since the last shuffle.", card=card, copies=copies))
    active = _active(state)
    effect = play_effect(state["total"], card, value, len(active))
    before = state["total"]
    state["total"] = effect.total
    state["pile"].append(card)
    state["played_this_round"].append(player)
    state["top"] = card
    _event(state, "N99-3", T("{player} plays {card}: {before} -> {after}", player=player, card=card, before=before,
                             after=effect.total))
    _charge(state, player, effect)
    if effect.reverse:
        state["direction"] = "counterclockwise" if state["direction"] == "clockwise" else "clockwise"
    if _game_over(state):
        return
    if effect.round_over:
        _end_round(state)
        return
    if player not in state["out"]:  # N99-6: a player who is out at once does not draw
        _draw(state, player)
    _advance(state, player, effect.skip_next)


def _charge(state: dict, player: str, effect: Effect) -> None:
    """Token losses of one play (N99-5), then eliminations (N99-6)."""
    total = effect.total
    others = [p for p in _active(state) if p != player]
    if effect.others_lose:
        for p in others:
            _lose(state, p, effect.others_lose, "N99-5")
        what = N_("reached 99 and wins the round") if effect.won_round else T("reached {total}", total=total)
        lost = _tokens(effect.others_lose)
        _event(state, "N99-5", T("{player} {what}: {name} loses {tokens}", player=player, what=what, name=others[0],
                                 tokens=lost) if len(others) == 1 else
               T("{player} {what}: {names} lose {tokens}", player=player, what=what, names=and_names(others),
                 tokens=lost))
    if effect.player_loses:
        _lose(state, player, effect.player_loses, "N99-5")
        parts = [T("passed {limit}", limit=limit) for limit in effect.passed]
        if effect.round_over:
            parts.append(N_("went over 99 and loses the round"))
        what = parts[0]
        for part in parts[1:]:
            what = T("{first} and {then}", first=what, then=part)
        _event(state, "N99-5", T("{player} {what}: {player} loses {tokens}", player=player, what=what,
                                 tokens=_tokens(effect.player_loses)))
    _eliminate(state)


def _lose(state: dict, player: str, tokens: int, rule: str) -> None:
    lost = min(tokens, state["tokens"][player])
    state["tokens"][player] -= lost
    state["round_losses"][player] += lost
    state["round_notes"][player].append({"rule": rule, "points": -lost, "detail": T("lost {tokens}", tokens=_tokens(lost))})


def _eliminate(state: dict) -> None:
    for p in state["players"]:
        if state["tokens"][p] == 0 and p not in state["out"]:
            state["out"].append(p)
            state["hand_sizes"][p] = 0
            _event(state, "N99-6", T("{player} has no tokens left and is out of the game", player=p))


def _game_over(state: dict, entry: dict | None = None) -> bool:
    """N99-6: with one player left the game ends, and the round with it (``entry``: the round as
    the table entered it whole, else as refereed)."""
    active = _active(state)
    if len(active) > 1:
        return False
    state["winners"] = active
    state["to_play"] = None
    state["phase"] = "finished"
    _record_round(state, entry)
    _event(state, "N99-6", T("{player} is the last player in and wins the game", player=active[0]))
    return True


def _draw(state: dict, player: str) -> None:
    """The player draws a fresh card; reshuffle the pile but its top card when needed (N99-8)."""
    if state["draw_pile"] == 0:
        state["draw_pile"] = len(state["pile"]) - 1
        state["pile"] = state["pile"][-1:]
        _event(state, "N99-8", T("The draw pile ran out: the played cards but the top one are shuffled into a new "
                                 "draw pile ({n} cards)", n=state["draw_pile"]))
    if state["draw_pile"] > 0:
        state["draw_pile"] -= 1
    else:  # nothing left anywhere to draw: the hand simply shrinks, as for a missed draw
        state["hand_sizes"][player] -= 1


def _advance(state: dict, player: str, skip: bool) -> None:
    active = _active(state)
    direction = state["direction"]
    if skip and player in active and len(active) == 2:
        nxt = player  # N99-4: with two players a J gives another turn
        _event(state, "N99-4", T("{player} plays again", player=player))
    else:
        nxt = _seat_after(state, player, direction)
        if skip:
            _event(state, "N99-3", T("{player} skips a turn", player=nxt))
            nxt = _seat_after(state, nxt, direction)
    state["to_play"] = nxt
    _check_empty_hand(state)


def _check_empty_hand(state: dict) -> None:
    """N99-7: a player whose turn comes with no card ends the round and loses three tokens."""
    player = state["to_play"]
    if player is None or state["hand_sizes"][player] > 0:
        return
    _lose(state, player, 3, "N99-7")
    _event(state, "N99-7", T("{player} has no card to play: the round ends and {player} loses {tokens}",
                             player=player, tokens=_tokens(3)))
    _eliminate(state)
    if not _game_over(state):
        _end_round(state)


def _missed_draw(state: dict, move: dict) -> None:
    player = move["player"]
    missed = state["missed_draws"]
    missed[player] = missed.get(player, 0) + 1
    state["hand_sizes"][player] -= 1
    state["draw_pile"] += 1  # the card was never taken
    left = state["hand_sizes"][player]
    _event(state, "N99-7", T("{player} forgot to draw and plays on with 1 card", player=player) if left == 1 else
           T("{player} forgot to draw and plays on with {n} cards", player=player, n=left))
    _check_empty_hand(state)


def _end_round(state: dict, entry: dict | None = None) -> None:
    _record_round(state, entry)
    _next_round(state, state["starter"])


def _next_round(state: dict, starter: str) -> None:
    """N99-2: the next round starts one seat further left than ``starter``'s round did."""
    starter = _seat_after(state, starter, "clockwise")
    _start_round(state, starter)
    _event(state, "N99-2", T("Round {round}: {player} plays first", round=state["round"], player=starter))


def _record_round(state: dict, entry: dict | None = None) -> None:
    """The finished round in ``rounds``: as refereed card by card, or ``entry``, entered whole (T-4)."""
    if entry is not None:
        state["rounds"].append({**entry, "totals": dict(state["tokens"])})
        return
    state["rounds"].append({
        "round": state["round"],
        "scores": {p: -state["round_losses"][p] for p in state["players"]},
        "totals": dict(state["tokens"]),
        "breakdown": {p: state["round_notes"][p] for p in state["players"]},
        "final_total": state["total"],
    })


def _event(state: dict, rule: str, text: str) -> None:
    state["events"].append({"text": text, "rule": rule})


def _tokens(n: int) -> str:
    return N_("a token") if n == 1 else T("{n} tokens", n=n)


# ---------------------------------------------------------------- a round entered whole (T-4), corrected (T-1)

# How a round ends, as its entry says it (``ending``), and the ruling its ender's loss cites (N99-5, N99-7).
ENDINGS = ("reached_99", "passed_99", "no_card")
_HOW = {"reached_99": (N_("reached 99 and won the round"), "N99-5"),
        "passed_99": (N_("went over 99 and lost the round"), "N99-5"),
        "no_card": (N_("had no card to play"), "N99-7"),
        None: (N_("ended the round"), "T-4")}


def _inside_round(state: dict) -> Text | None:
    """T-4: a round in which a card has been played is finished as it began, card by card."""
    played = len(state["played_this_round"])
    if state["phase"] != "play" or not played:
        return None
    return T("round {round} is under way ({n} card(s) played): finish it card by card.", round=state["round"],
             n=played)


def _read_lost(value: Any, state: dict) -> dict[str, int]:
    """``{name: tokens lost}``: whole numbers, checked against the tokens by ``_check_round``."""
    lost = {}
    for name, given in get_field({"lost": value}, "lost", dict).items():
        if name not in state["players"]:
            raise InvalidInput(T("'{player}' is not a player in this game.", player=name))
        lost[name] = Int(f"lost.{name}").parse(given, state)
    return lost


def _least(start: dict[str, int], player: str, tokens: int) -> int:
    """What a charge of ``tokens`` takes at least: all the player holds, when that is fewer (N99-6)."""
    return min(tokens, start[player])


def _check_round(players: list[str], start: dict[str, int], entered: dict[str, int], ended_by: str,
                 ending: str | None) -> dict[str, int]:
    """Every player's loss in a round entered whole, checked as far as tokens tell (T-4) against
    the tokens held when it began (``start``): a round only takes tokens (N99-5), never more than a
    player holds nor from one already out, and leaves one player in (N99-6); its ender was in it,
    and the way it ended costs what N99-5 and N99-7 say. Without ``ending``, the losses must fit
    one way to end. The cards and the order of the losses are not in the entry: not guessed."""
    seated = [p for p in players if start[p] > 0]
    lost = {p: 0 for p in players}
    for name, tokens in entered.items():
        if tokens < 0:
            raise IllegalMove("N99-5", T("{player} cannot have lost {tokens} tokens: a round only takes tokens, it "
                                         "never gives any back.", player=name, tokens=tokens),
                              legal={"lost": {name: between(0, start[name])}})
        if tokens and name not in seated:
            raise IllegalMove("N99-6", T("{player} was already out of the game: they lost nothing in this round.",
                                         player=name), legal={"lost": {name: [0]}})
        if tokens > start[name]:
            raise IllegalMove("N99-6", T("{player} held {tokens} when the round began: a round takes no more than "
                                         "that (a player is out at 0).", player=name, tokens=_tokens(start[name])),
                              legal={"lost": {name: between(0, start[name])}})
        lost[name] = tokens
    if ended_by not in seated:
        raise IllegalMove("N99-6", T("{player} was already out of the game and cannot have ended the round.",
                                     player=ended_by), legal={"ended_by": seated})
    left = [p for p in seated if lost[p] < start[p]]
    if not left:
        raise IllegalMove("N99-6", N_("Nobody would be left in the game: play stops when one player is left, who "
                                      "wins the game."))
    others = [p for p in seated if p != ended_by]
    short = [p for p in others if lost[p] < _least(start, p, 2)]
    others_left = [p for p in others if p in left]
    if ending == "reached_99":
        if ended_by not in left:
            raise IllegalMove("N99-5", T("{player} reached 99 and won the round, which costs them nothing: they are "
                                         "still in the game, so they cannot have lost all {tokens}.", player=ended_by,
                                         tokens=_tokens(start[ended_by])),
                              legal={"lost": {ended_by: between(0, start[ended_by] - 1)}})
        if short:
            raise IllegalMove("N99-5", T("{player} reached 99: every other player still in lost two tokens then (or "
                                         "their last one), so {names} cannot have lost so few.", player=ended_by,
                                         names=and_names(short)),
                              legal={"lost": {p: between(_least(start, p, 2), start[p]) for p in short}})
    elif ending in ("passed_99", "no_card"):
        rule, least = ("N99-5", 2) if ending == "passed_99" else ("N99-7", 3)
        if lost[ended_by] < _least(start, ended_by, least):
            raise IllegalMove(rule, T("{player} went over 99, which costs two tokens: they lost at least {tokens}.",
                                      player=ended_by, tokens=_tokens(_least(start, ended_by, least)))
                              if ending == "passed_99" else
                              T("{player} had no card on their turn, which costs three tokens: they lost at least "
                                "{tokens}.", player=ended_by, tokens=_tokens(_least(start, ended_by, least))),
                              legal={"lost": {ended_by: between(_least(start, ended_by, least), start[ended_by])}})
        if not others_left:
            raise IllegalMove("N99-6", T("Everyone but {player} was out before {player}'s last turn: the game had "
                                         "ended there, {player} the last player in.", player=ended_by))
    elif not (len(left) == 1 or (ended_by in left and not short)
              or (lost[ended_by] >= _least(start, ended_by, 2) and others_left)):
        raise IllegalMove("N99-5", T("No way for a round to end fits these losses: reaching 99 costs every other "
                                     "player two tokens, going over 99 costs the player two (N99-5), having no card "
                                     "costs three (N99-7), and a round that leaves one player in ends the game "
                                     "(N99-6). Say how it ended ('ending') to have the entry checked against that."),
                          legal={"ending": list(ENDINGS)})
    return lost


def _whole_entry(number: int, starter: str, start: dict[str, int], lost: dict[str, int], move: dict) -> dict:
    """A round entered whole as ``rounds`` keeps it (its totals are added when recorded): the
    tokens lost, and what the table entered, from which a correction starts again (T-1)."""
    ended_by, ending = move["ended_by"], move.get("ending")
    how, rule = _HOW[ending]
    breakdown = {}
    for p, tokens in lost.items():
        notes = ([{"rule": "T-4", "points": -tokens, "detail": T("lost {tokens}", tokens=_tokens(tokens))}]
                 if tokens else [])
        if p == ended_by:
            notes = [{"rule": rule, "points": -tokens, "detail": T("{how}: lost {tokens}", how=how,
                                                                   tokens=_tokens(tokens)) if tokens else how}]
        breakdown[p] = notes
    return {"round": number, "recorded": "rounds", "scores": {p: -tokens for p, tokens in lost.items()},
            "breakdown": breakdown, "final_total": None, "starter": starter,
            "lost": {p: lost[p] for p in lost if start[p] > 0}, "ended_by": ended_by, "ending": ending}


def _round_result(state: dict, move: dict) -> None:
    """T-4: a whole round, entered before any card of it is played: the tokens fall, who has none is
    out (N99-6), then the next round starts one seat further left (N99-2) or the game ends (N99-6)."""
    why = _inside_round(state)
    if why is not None:
        raise IllegalMove("T-4", T("A round is entered whole only before its first card: {why}", why=why),
                          legal=moves_instead(GAME, state, ("play", "missed_draw")))
    start = dict(state["tokens"])
    lost = _check_round(state["players"], start, move["lost"], move["ended_by"], move.get("ending"))
    entry = _whole_entry(state["round"], state["starter"], start, lost, move)
    for p in state["players"]:
        state["tokens"][p] -= lost[p]
    losses = [T("{player} loses {tokens}", player=p, tokens=_tokens(n)) for p, n in lost.items() if n]
    _event(state, "T-4", T("Round {round} entered whole: {player} {how}; {losses}", round=entry["round"],
                           player=move["ended_by"], how=_HOW[move.get("ending")][0], losses=joined(losses, ", ")))
    _eliminate(state)
    if not _game_over(state, entry):
        _end_round(state, entry)


def _whole_rounds(state: dict) -> list[int]:
    return [entry["round"] for entry in state["rounds"] if entry.get("recorded") == "rounds"]


def _correctable(state: dict) -> dict | None:
    """The rounds a correction may replace: those entered whole (T-1)."""
    rounds = _whole_rounds(state)
    return {"round": rounds} if rounds else None


def _correct_round(state: dict, move: dict) -> None:
    """T-1: a round entered whole, entered again and checked as the first entry was, from the tokens
    held when it began; the tokens move by the difference. The last finished round's correction
    settles again who is out, the game's end and the next round (``_settle``); an earlier one must
    leave every round since as it was played (``_keep_later``)."""
    index = round_index(state, move["round"], state["round"])
    old = state["rounds"][index]
    if old.get("recorded") != "rounds":
        raise IllegalMove("T-1", T("Round {round} was refereed card by card: its tokens follow from the cards "
                                   "played, so it is not entered again. The table gives or takes a disputed token "
                                   "with an adjustment ('adjust', T-2).", round=old["round"]),
                          legal={"type": ["adjust"], "round": _whole_rounds(state)})
    start = {p: old["totals"][p] - old["scores"][p] for p in state["players"]}  # scores are the tokens lost, negative
    lost = _check_round(state["players"], start, move["lost"], move["ended_by"], move.get("ending"))
    entry = _whole_entry(old["round"], old["starter"], start, lost, move)
    last = index == len(state["rounds"]) - 1 and _inside_round(state) is None
    delta = replace_round(state, index, entry, move["reason"])
    for p, points in delta.items():
        state["tokens"][p] += points
    if last:
        _settle(state, entry)
    else:
        _keep_later(state, index, delta)


def _settle(state: dict, entry: dict) -> None:
    """After the last finished round is corrected (T-1), as if it had been entered so: a player who
    holds tokens is in the game (back, when the first entry put them out), one with none is out
    (N99-6); with one player left the game ends, else the next round, not begun yet, starts again
    one seat left of this round's first player, among the players now in (N99-2)."""
    below = [p for p in state["players"] if state["tokens"][p] < 0]
    if below:
        raise IllegalMove("T-1", T("With this correction {names} would hold fewer than no tokens: the adjustments "
                                   "made since round {round} took more than it leaves.", names=and_names(below),
                                   round=entry["round"]))
    before = _active(state)
    back = [p for p in state["out"] if state["tokens"][p] > 0]
    state["out"] = [p for p in state["out"] if p not in back]
    for p in back:
        _event(state, "T-1", T("{player} holds {tokens} again and is back in the game", player=p,
                               tokens=_tokens(state["tokens"][p])))
    _eliminate(state)
    active = _active(state)
    if active == before:
        return  # the same players in: the game's end, or the next round, stand as they were
    state.update(round=entry["round"], winners=[])
    if len(active) == 1:
        state.update(winners=active, to_play=None, phase="finished")
        _event(state, "N99-6", T("{player} is the last player in and wins the game", player=active[0]))
    else:
        _next_round(state, entry["starter"])


def _raised(state: dict, player: str, number: int) -> int:
    """The tokens given to ``player`` by adjustments made in round ``number`` (T-2)."""
    return sum(a["points"] for a in state.get("adjustments") or []
               if a["player"] == player and a["round"] == number and a["points"] > 0)


def _keep_later(state: dict, index: int, delta: dict[str, int]) -> None:
    """T-1: an earlier round's correction stands only when every round since stays as it was
    played: nobody whose tokens it changes has gone out since, nor would have run out on the way
    (N99-6; tokens only fall between adjustments, so a round's lowest point is at least its end
    less what adjustments gave back in it). Then who is in stays the same throughout, and so do the
    seats, the game's end and every later round: a round's tokens depend on the tokens held only
    where a player runs out (N99-5, N99-6, N99-7)."""
    rounds, number = state["rounds"], state["rounds"][index]["round"]
    for p, points in delta.items():
        if p in state["out"] and points:
            raise IllegalMove("T-1", T("{player} has gone out of the game since round {round}: changing their tokens "
                                       "there would change the rounds played since. Only the last finished round may "
                                       "change who is out.", player=p, round=number))
        if points >= 0:
            continue
        lows = [(number, rounds[index]["totals"][p])]
        lows += [(r["round"], r["totals"][p] - _raised(state, p, r["round"])) for r in rounds[index + 1:]]
        lows.append((state["round"], state["tokens"][p] - (_raised(state, p, state["round"])
                                                           if state["phase"] != "finished" else 0)))
        gone = next((r for r, tokens in lows if tokens < 1), None)
        if gone is not None:
            raise IllegalMove("T-1", T("With {tokens} fewer, {player} would have run out of tokens by round {round} "
                                       "and gone out (N99-6), yet played on: only the last finished round may change "
                                       "who is out.", tokens=_tokens(-points), player=p, round=gone))


# ---------------------------------------------------------------- views

def standings(state: dict) -> dict[str, int]:
    return dict(state["tokens"])


def public_view(state: dict) -> dict:
    return {
        "round": state["round"],
        "to_play": state["to_play"],
        "total": state["total"],
        "direction": state["direction"],
        "discard_top": state.get("top"),
        "tokens": dict(state["tokens"]),
        "out": list(state["out"]),
        "hand_sizes": dict(state["hand_sizes"]),
        "draw_pile": state["draw_pile"],
        "standings": standings(state),
        "rounds": state["rounds"],
    }


VIEW = (
    shown("total", {"type": "integer"}, "The pile's total (N99-3); it may go below zero."),
    shown("direction", {"type": "string", "enum": ["clockwise", "counterclockwise"]},
          "Which way play goes (N99-2; a 4 reverses it, N99-3)."),
    vocabulary.discard_top(),
    shown("tokens", {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
          "Each player's tokens (N99-1); the standings."),
    shown("out", vocabulary.PLAYER_NAMES, "Who is out of the game, in the order they went out (N99-6)."),
    vocabulary.HAND_SIZES,
    vocabulary.DRAW_PILE,
)


def outcome(state: dict):
    if state["winners"]:
        return finished(state["winners"], T("{player} won it: the last player in.", player=state["winners"][0]),
                        "N99-6")
    return in_progress()


# ---------------------------------------------------------------- who may move, and with what

# adjust, correct_round: any time (T-1, T-2); a round entered whole: before its first card (T-4)
PHASES = {"play": ("play", "missed_draw", "round_result", "adjust", "correct_round"),
          "finished": ("adjust", "correct_round")}


def _may_miss_draw(state: dict, player: str) -> str | None:
    """Why ``player`` cannot record a missed draw now (N99-7), or None when they can."""
    if player in state["out"]:
        return T("{player} is out of the game.", player=player)
    played = state["played_this_round"].count(player)
    if not played:
        return T("{player} has not played a card this round, so cannot have forgotten to draw.", player=player)
    if state["hand_sizes"][player] == 0:
        return T("{player} has no card left in hand.", player=player)
    if state["missed_draws"].get(player, 0) >= played:
        return T("{player} has played {n} card(s) this round and already missed as many draws.", player=player,
                 n=played)
    return None


def actors(state: dict, kind: str) -> list[str]:
    if kind == "play":
        return [state["to_play"]] if state["to_play"] else []
    return [p for p in state["players"] if _may_miss_draw(state, p) is None]


def refuse_actor(state: dict, kind: str, player: str) -> IllegalMove:
    if player in state["out"]:
        return IllegalMove("N99-6", T("{player} is out of the game.", player=player))
    if kind == "play":
        return IllegalMove("N99-2", T("It is {to_play}'s turn, not {player}'s.", to_play=state["to_play"], player=player),
                           legal={"player": [state["to_play"]] if state["to_play"] else []})
    why = _may_miss_draw(state, player)
    assert why is not None  # refused: not among the actors, who are those without a reason
    return IllegalMove("N99-7", why)


def choices(state: dict, kind: str) -> dict | None:
    """The cards that can still be played (N99-8: not every copy on the pile); N99-3: the values a
    card may be declared as (a 10 or an A only; null for every other card, whose value is fixed);
    who may have ended a round entered whole, before any card of it is
    played (T-4)."""
    if kind == "play":  # a card with a copy not yet on the pile since the last shuffle (N99-8)
        on_pile, copies = Counter(state["pile"]), state["options"]["decks"]
        return {"card": [card for card in DECK if on_pile[card] < copies],
                "value": [value for values in DECLARED.values() for value in values] + [None]}
    if kind == "round_result":
        return None if _inside_round(state) else {"ended_by": _active(state)}
    return {}


def facts(state: dict, kind: str) -> dict:
    """N99-3: which values go with which card (``declared``: by rank, a 10 or an A)."""
    if kind == "play":
        return {"declared": {rank: list(values) for rank, values in DECLARED.items()}}
    return {}


def _adjust(state: dict, player: str, points: int) -> int:
    """T-2: a point is a token (N99-1): given back, or taken as a penalty. A player left with none
    is out at once (N99-6), which may end the game; one who is out stays out."""
    held = state["tokens"][player]
    if player in state["out"]:
        raise IllegalMove("T-2", T("{player} is out of the game (N99-6): an adjustment does not bring a player "
                                   "back.", player=player), legal={"player": _active(state)})
    if held + points < 0:
        raise IllegalMove("T-2", T("{player} holds {tokens}: an adjustment can take at most that many.",
                                   player=player, tokens=_tokens(held)), legal={"points": between(-held, ADJUST_LIMIT)})
    if held + points == 0 and _active(state) == [player]:
        raise IllegalMove("T-2", T("{player} is the last player in: taking their last token would leave nobody in "
                                   "the game (N99-6).", player=player))
    state["tokens"][player] = held + points
    if state["tokens"][player] == 0:
        _eliminate(state)
        if not _game_over(state) and state["to_play"] == player:
            state["to_play"] = _seat_after(state, player, state["direction"])
            _check_empty_hand(state)
    return state["tokens"][player]


def _says_play(move: dict, show=str) -> str:
    if type(move.get("value")) is int:
        return T("{player} plays {card} as {value:+d}", player=move.get("player"), card=show(move.get("card")),
                 value=move["value"])
    return T("{player} plays {card}", player=move.get("player"), card=show(move.get("card")))


def _says_round(move: dict, show=str) -> str:
    lost = move.get("lost")
    if not isinstance(lost, dict):
        lost = {}
    losses = ", ".join(f"{p} -{n}" for p, n in lost.items() if n)
    return T("Round result: {player} {how}; {losses}", player=move.get("ended_by"),
             how=_HOW.get(move.get("ending"), _HOW[None])[0], losses=losses or "0")


_ROUND_RESULT = (
    Shaped("lost", shape={"type": "object", "additionalProperties": {"type": "integer", "minimum": 0},
                          "description": "The tokens each player lost in the round: {name: tokens}; a player "
                                         "left out lost none.", "example": {"Ann": 2, "Bob": 1}},
           read=_read_lost),
    Player("ended_by", description=N_("Who ended the round: reached 99, went over it, had no card on their turn, "
                                      "or played the card that left one player in.")),
    Choice("ending", choices=ENDINGS, required=False, nullable=True,
           description=N_("How it ended, if the table says: reached_99, passed_99 (went over 99) or no_card (no card "
                          "on their turn, N99-7); each is checked against the tokens lost (N99-5, N99-7).")),
)


MOVES = {
    "play": Move(
        _play, (Player("player"), Card("card", read=_card, example="KS"),
                Shaped("value", required=False, nullable=True, shape={"type": "integer", "enum": [-10, 1, 10, 11]},
                       description=N_("Only for a 10 (10 or -10) or an A (1 or 11), N99-3."))),
        N_("Play a card on the pile; a 10 or an A declares its value."), ("N99-2", "N99-3", "N99-5"),
        label=N_("Play a card"), says=_says_play),
    "missed_draw": Move(
        _missed_draw, (Player("player"),),
        N_("The player forgot to draw after playing and keeps one card fewer for the rest of the round."),
        ("N99-7",), label=N_("Forgot to draw"), says=N_("{player} forgot to draw")),
    "round_result": Move(
        _round_result, _ROUND_RESULT,
        N_("A whole round entered when it is over, in place of its cards (T-4): the tokens each player lost (a "
           "player left out lost none), who ended it and, if the table says, how. It is checked as far as tokens "
           "tell; then the next round starts or the game ends. Not once a card of the round is recorded."),
        ("N99-2", "N99-5", "N99-6", "N99-7", "T-4"),
        label=N_("Round result"), says=_says_round, actor=None),
    "correct_round": correction_move(
        _correct_round, _ROUND_RESULT,
        N_("A round entered whole and entered wrong, replaced: the round, why, and the round again as a round result "
           "gives it, checked against the tokens held when it began; the tokens follow, and who is out with them "
           "when it is the last finished round (T-1). A round refereed card by card is not corrected (adjust, T-2)."),
        ("N99-2", "N99-5", "N99-6", "N99-7"), _correctable, 10_000),
    "switch_record": record_move(_inside_round),
    "adjust": adjust_move(_adjust, N_("A point is a token (N99-1): a positive adjustment gives tokens back, a "
                                      "negative one takes them; a player left with none is out (N99-6)."),
                          who=lambda state: _active(state)),
}



# ---------------------------------------------------------------- dispute verdict

def _answer_play(values: dict) -> dict:
    effect = play_effect(values["total"], values["card"], values["value"], values["players"])
    rules = ", ".join(effect.rules)
    if effect.player_loses and effect.others_lose:
        counted = T("In all the player loses {player}, and every other player {others} ({rules}).",
                    player=_tokens(effect.player_loses), others=_tokens(effect.others_lose), rules=rules)
    elif effect.player_loses:
        counted = T("In all the player loses {player} ({rules}).", player=_tokens(effect.player_loses), rules=rules)
    elif effect.others_lose:
        counted = T("In all every other player loses {others} ({rules}).", others=_tokens(effect.others_lose),
                    rules=rules)
    else:
        counted = T("No token is lost ({rules}).", rules=rules)
    return {
        "says": joined([*effect.reasons, counted], " "),  # what a player reads aloud
        "total": effect.total,
        "player_loses": effect.player_loses,
        "others_lose": effect.others_lose,
        "round_over": effect.round_over,
        "skip_next": effect.skip_next,
        "reverse": effect.reverse,
        "rule": effect.rules,
        "explanation": joined(effect.reasons),
    }


JUDGES = {
    "play": Judge(
        answer=_answer_play,
        summary=N_("What one card does to a pile total: new total, tokens lost, skip and reverse."),
        fields=(
            Int("total", lo=-10_000, hi=10_000, title=N_("Total before")),
            Card("card", read=_card, example="2S", title=N_("Card played")),
            # checked with the card (N99-3): whether a value is declared, and which, depends on it
            Shaped("value", N_("10 or -10 for a 10, 1 or 11 for an A"), required=False, nullable=True,
                   shape={"type": "integer"}, title=N_("Value")),
            Int("players", lo=2, hi=PLAYERS[1], required=False, default=3, rule="N99-1",
                title=N_("Players in the game")),
        ),
        response={
            "type": "object",
            "required": ["says", "total", "player_loses", "others_lose", "round_over", "skip_next", "reverse", "rule",
                         "explanation"],
            "properties": {
                "says": SAYS,
                "total": {"type": "integer"},
                "player_loses": {"type": "integer"},
                "others_lose": {"type": "integer"},
                "round_over": {"type": "boolean"},
                "skip_next": {"type": "boolean"},
                "reverse": {"type": "boolean"},
                "rule": {"type": "array", "items": {"type": "string"}},
                "explanation": {"type": "string"},
            },
        },
        example={"total": 53, "card": "2S"},
    ),
}
judge_play = JUDGES["play"].fn  # a request as a client sends it


# ---------------------------------------------------------------- the group's stats

def count_figures(final: dict, steps) -> dict:
    """Tokens lost in rounds (N99-5, N99-7); rounds won by reaching exactly 99 (N99-5): the play
    that closed a round whose pile ended on 99."""
    figures = {p: {"tokens_lost": -sum(r["scores"].get(p, 0) for r in final["rounds"]), "rounds_won": 0}
               for p in final["players"]}
    for move, before, after in steps:
        if (move["type"] == "play" and len(after["rounds"]) > len(before["rounds"])
                and after["rounds"][-1].get("final_total") == 99):
            figures[move["player"]]["rounds_won"] += 1
    return figures


def placing(final: dict, steps) -> dict:
    """The losers all end with no tokens: whoever was eliminated later placed ahead (players put out
    by the same move share a place)."""
    out_at = {}
    for index, (_move, before, after) in enumerate(steps):
        for p in after["out"][len(before["out"]):]:
            out_at[p] = index
    return {p: -out_at.get(p, len(steps)) for p in final["players"]}


FIGURES = Figures(count_figures, needs_steps=True, placing=placing,
                  labels={"tokens_lost": N_("Tokens lost"), "rounds_won": N_("Rounds won at 99")})


# The short game the API's documentation plays (referee.api.examples).
EXAMPLE = Example(
    players=("Ann", "Bob", "Cid"),
    moves=({"type": "play", "player": "Ann", "card": "KS"}, {"type": "play", "card": "10H", "value": -10},
           {"type": "play", "card": "7D"}),
    illegal={"type": "play", "player": "Ann", "card": "5S"},  # Cid's turn
    options={"tokens": 1, "record": "rounds"},
    round={"type": "round_result", "lost": {"Bob": 1, "Cid": 1}, "ended_by": "Bob", "ending": "passed_99"},
    wrong_round={"type": "round_result", "lost": {"Bob": 2, "Cid": 1}, "ended_by": "Bob", "ending": "passed_99"},
    refused_verdict=("play", {"total": 53, "card": "2X"}))


GAME = Game(module=__name__, name=NAME, title=TITLE, players=PLAYERS, options=OPTIONS, rulings=RULINGS, moves=MOVES,
            phases=PHASES, judges=JUDGES, view=VIEW, new_game=new_game, public_view=public_view, standings=standings,
            outcome=outcome, first_deal=FIRST_DEAL, whole_round=WHOLE_ROUND, actors=actors, choices=choices,
            facts=facts, refuse_actor=refuse_actor,
            figures=FIGURES, example=EXAMPLE)
