"""Ninety-nine: the pile total, tokens lost at 33, 66 and 99, eliminations (rulings N99-1..N99-8)."""
from __future__ import annotations

from dataclasses import dataclass, field

from referee.cards import parse_standard, rank_of
from referee.rules.base import (
    ADJUST_LIMIT, TABLE_RULINGS, IllegalMove, InvalidInput, Judge, Move, adjust_move, and_names, bind, check_keys,
    check_players, finished, get_field, get_int, in_deck, in_progress, player_option, resolve_options,
)
from referee.rules.fields import Card, Player, Shaped
from referee.texts import N_, T, joined

NAME = "ninety-nine"
TITLE = "Ninety-nine"
PLAYERS = (2, 16)
HAND = 3  # N99-2: three cards each
FIRST_DEAL = ("first_player", 0)  # the option naming who starts, and its default seat (N99-2, G-2)
OPTIONS = {
    "tokens": {"default": 9, "schema": {"type": "integer", "minimum": 1, "maximum": 99}, "rule": "N99-1",
               "description": N_("Tokens each player starts with (N99-1).")},
    "decks": {"default": None, "schema": {"type": "integer", "enum": [1, 2]}, "rule": "N99-1",
              "description": N_("1 or 2 standard decks; default 2 with more than five players, else 1 (N99-1).")},
    "first_player": {"default": None, "schema": {"type": "string"}, "rule": "N99-2",
                     "description": N_("Who plays first in round 1; default the first player listed (N99-2).")},
    "hand_size": {"default": HAND, "schema": {"type": "integer", "minimum": 1, "maximum": 5}, "rule": "N99-9",
                  "description": N_("House rule: the cards dealt to each player, 1 to 5 (N99-9; the sheet "
                                    "deals 3, N99-2).")},
}
RULINGS = {
    "G-1": "Players are listed in seat order; clockwise is the order of the list.",
    "G-2": "The service never deals; the table records what becomes public.",
    "N99-1": "One 52-card deck, or two (default two with more than five players); two to sixteen "
             "players, 9 tokens each (the table's choice).",
    "N99-2": "Three cards each, an empty pile (no top card) with total 0, clockwise; the first "
             "player is the table's choice (default the first listed), and each round starts one "
             "seat further left, skipping eliminated players.",
    "N99-3": "3-8 face value (4 reverses), 9 adds 0, J Q K add 10 (J skips the next player), 10 is "
             "+10 or -10, A is +1 or +11, a 2 halves an even total over 49 and doubles otherwise; "
             "the total may go below 0.",
    "N99-4": "With two players a J gives another turn and a 4 does not reverse; eliminated players are skipped.",
    "N99-5": "Only going up counts. A play from t to u that lands on a limit L, 33 or 66, from below "
             "(t < L = u) costs every other player a token; one that passes it (t < L < u) costs the "
             "player a token; 99 wins the round (every other player loses two); over 99 loses the "
             "round and two tokens. The losses of one play add up (53 doubled to 106 passes 66 and "
             "99: three tokens); going down, back to 66 included, costs nobody anything.",
    "N99-6": "A player with no tokens is out at once, mid-round too (one put out by their own play "
             "does not draw); the last player in wins.",
    "N99-7": "A player who forgot to draw plays on with one card fewer; no card on your turn ends the "
             "round and costs three tokens.",
    "N99-8": "When the draw pile runs out the played cards but the top one are reshuffled; the total stays.",
    "N99-9": "House rule: the table may deal 1 to 5 cards to each player instead of 3; N99-7 counts from it.",
    **TABLE_RULINGS,
}
LIMITS = (33, 66)
_card = in_deck(parse_standard, "N99-1")  # G-3: a card outside the deck cites the deck's ruling
DECLARED = {"10": (10, -10), "A": (1, 11)}  # N99-3: the values a 10 and an A may be declared as
TARGET = 99


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
                          legal=list(choices))
    return value


def play_effect(total: int, card: str, value: int | None, players: int) -> Effect:
    """Apply N99-3..N99-5 to ``total``; ``players`` is the number still in the game."""
    rank = rank_of(card)
    value = card_value(card, value)
    if rank == "2":
        new = total // 2 if total % 2 == 0 and total > 49 else total * 2
        how = N_("halves") if total % 2 == 0 and total > 49 else N_("doubles")
    elif rank in ("10", "A"):
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


def _game_over(state: dict) -> bool:
    active = _active(state)
    if len(active) > 1:
        return False
    state["winners"] = active
    state["to_play"] = None
    state["phase"] = "finished"
    _record_round(state, ended_by=None)
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


def _end_round(state: dict) -> None:
    _record_round(state, ended_by=state["played_this_round"][-1] if state["played_this_round"] else None)
    # N99-2: the next round starts one seat further left than this one did.
    starter = _seat_after(state, state["starter"], "clockwise")
    _start_round(state, starter)
    _event(state, "N99-2", T("Round {round}: {player} plays first", round=state["round"], player=starter))


def _record_round(state: dict, ended_by: str | None) -> None:
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


# ---------------------------------------------------------------- views

def standings(state: dict) -> dict[str, int]:
    return dict(state["tokens"])


def public_view(state: dict) -> dict:
    return {
        "round": state["round"],
        "to_play": state["to_play"],
        "total": state["total"],
        "direction": state["direction"],
        "top": state.get("top"),
        "tokens": dict(state["tokens"]),
        "out": list(state["out"]),
        "hand_sizes": dict(state["hand_sizes"]),
        "draw_pile": state["draw_pile"],
        "standings": standings(state),
        "rounds": state["rounds"],
    }


def outcome(state: dict):
    if state["winners"]:
        return finished(state["winners"], T("{player} won it: the last player in.", player=state["winners"][0]),
                        "N99-6")
    return in_progress()


# ---------------------------------------------------------------- who may move, and with what

PHASES = {"play": ("play", "missed_draw", "adjust"), "finished": ("adjust",)}  # adjust: any time (T-2)


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
                           legal=state["to_play"])
    return IllegalMove("N99-7", _may_miss_draw(state, player))


def choices(state: dict, kind: str) -> dict:
    """N99-3: the values a 10 or an A may be declared as (every other card has a fixed value)."""
    return {"value": {rank: list(values) for rank, values in DECLARED.items()}} if kind == "play" else {}


def _adjust(state: dict, player: str, points: int) -> int:
    """T-2: a point is a token (N99-1): given back, or taken as a penalty. A player left with none
    is out at once (N99-6), which may end the game; one who is out stays out."""
    held = state["tokens"][player]
    if player in state["out"]:
        raise IllegalMove("T-2", T("{player} is out of the game (N99-6): an adjustment does not bring a player "
                                   "back.", player=player), legal={"player": _active(state)})
    if held + points < 0:
        raise IllegalMove("T-2", T("{player} holds {tokens}: an adjustment can take at most that many.",
                                   player=player, tokens=_tokens(held)), legal={"points": [-held, ADJUST_LIMIT]})
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
    "adjust": adjust_move(_adjust, N_("A point is a token (N99-1): a positive adjustment gives tokens back, a "
                                      "negative one takes them; a player left with none is out (N99-6)."),
                          who=lambda state: _active(state)),
}

apply, allowed = bind(__name__)


# ---------------------------------------------------------------- dispute verdict

def judge_play(body: dict) -> dict:
    check_keys(body, {"total", "card", "value", "players"}, what="request")
    total = get_int(body, "total", lo=-10_000, hi=10_000)
    card = _card(get_field(body, "card", str))
    value = body.get("value")  # checked with the card (N99-3)
    players = get_int(body, "players", lo=2, hi=PLAYERS[1], required=False, default=3, rule="N99-1")
    effect = play_effect(total, card, value, players)
    return {
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
        fn=judge_play,
        summary=N_("What one card does to a pile total: new total, tokens lost, skip and reverse."),
        request={
            "type": "object",
            "required": ["total", "card"],
            "additionalProperties": False,
            "properties": {
                "total": {"type": "integer", "minimum": -10000, "maximum": 10000},
                "card": {"type": "string", "example": "2S"},
                "value": {"type": "integer", "nullable": True,
                          "description": N_("10 or -10 for a 10, 1 or 11 for an A")},
                "players": {"type": "integer", "minimum": 2, "maximum": PLAYERS[1], "default": 3},
            },
        },
        response={
            "type": "object",
            "properties": {
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
    ),
}
