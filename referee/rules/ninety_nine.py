"""Ninety-nine: the pile total, tokens lost at 33, 66 and 99, eliminations (rulings N99-1..N99-8)."""
from __future__ import annotations

from dataclasses import dataclass, field

from referee.cards import parse_standard, rank_of
from referee.rules.base import (
    IllegalMove, InvalidInput, Judge, Move, bind, check_keys, check_players, finished, get_field, get_int,
    in_deck, in_progress, player_option, resolve_options,
)
from referee.rules.fields import Card, Player, Shaped

NAME = "ninety-nine"
TITLE = "Ninety-nine"
PLAYERS = (2, 16)
HAND = 3  # N99-2: three cards each
OPTIONS = {
    "tokens": {"default": 9, "schema": {"type": "integer", "minimum": 1, "maximum": 99}, "rule": "N99-1",
               "description": "Tokens each player starts with (N99-1)."},
    "decks": {"default": None, "schema": {"type": "integer", "enum": [1, 2]}, "rule": "N99-1",
              "description": "1 or 2 standard decks; default 2 with more than five players, else 1 (N99-1)."},
    "first_player": {"default": None, "schema": {"type": "string"}, "rule": "N99-2",
                     "description": "Who plays first in round 1; default the first player listed (N99-2)."},
    "hand_size": {"default": HAND, "schema": {"type": "integer", "minimum": 1, "maximum": 5}, "rule": "N99-9",
                  "description": "House rule: the cards dealt to each player, 1 to 5 (N99-9; the sheet "
                                 "deals 3, N99-2)."},
}
RULINGS = {
    "G-1": "Players are listed in seat order; clockwise is the order of the list.",
    "G-2": "The service never deals; the table records what becomes public.",
    "N99-1": "One 52-card deck, or two (default two with more than five players); 9 tokens each.",
    "N99-2": "Three cards each, an empty pile (no top card) with total 0, clockwise; each round starts one seat further left.",
    "N99-3": "3-8 face value (4 reverses), 9 adds 0, J Q K add 10 (J skips the next player), "
             "10 is +10 or -10, A is +1 or +11, a 2 halves an even total over 49 and doubles otherwise.",
    "N99-4": "With two players a J gives another turn and a 4 does not reverse; eliminated players are skipped.",
    "N99-5": "Reaching 33 or 66 costs every other player a token; passing them costs the player one; "
             "99 wins the round (others lose two); over 99 loses the round and two tokens.",
    "N99-6": "A player with no tokens is out at once; the last player in wins.",
    "N99-7": "A player who forgot to draw plays on with one card fewer; no card on your turn ends the "
             "round and costs three tokens.",
    "N99-8": "When the draw pile runs out the played cards but the top one are reshuffled; the total stays.",
    "N99-9": "House rule: the table may deal 1 to 5 cards to each player instead of 3; N99-7 counts from it.",
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
            raise IllegalMove("N99-3", f"{card} has a fixed value: do not declare one.")
        return None
    # Only a whole number declares (10.0 == 10 and True == 1 in Python, but they are not numbers here).
    if type(value) is not int or value not in choices:
        raise IllegalMove("N99-3", f"{card} must be declared as {choices[0]} or {choices[1]}.",
                          legal=list(choices))
    return value


def play_effect(total: int, card: str, value: int | None, players: int) -> Effect:
    """Apply N99-3..N99-5 to ``total``; ``players`` is the number still in the game."""
    rank = rank_of(card)
    value = card_value(card, value)
    if rank == "2":
        new = total // 2 if total % 2 == 0 and total > 49 else total * 2
        how = "halves" if total % 2 == 0 and total > 49 else "doubles"
    elif rank in ("10", "A"):
        new, how = total + value, f"counts {value:+d}"
    elif rank == "9":
        new, how = total, "adds 0"
    elif rank in ("J", "Q", "K"):
        new, how = total + 10, "adds 10"
    else:
        new, how = total + int(rank), f"adds {rank}"
    effect = Effect(total=new)
    effect.note("N99-3", f"{card} {how}: {total} -> {new}.")

    if rank == "4":
        if players > 2:
            effect.reverse = True
            effect.note("N99-3", "A 4 reverses the direction of play.")
        else:
            effect.note("N99-4", "With two players a 4 does not change the direction.")
    if rank == "J":
        effect.skip_next = True
        if players > 2:
            effect.note("N99-3", "A J makes the next player skip a turn.")
        else:
            effect.note("N99-4", "With two players a J gives the same player another turn.")

    # N99-5: only going up costs tokens; every loss of one play adds up.
    for limit in LIMITS:
        if total < limit and new == limit:
            effect.others_lose += 1
            effect.note("N99-5", f"Reaching exactly {limit}: every other player loses a token.")
        elif total < limit < new:
            effect.player_loses += 1
            effect.passed.append(limit)
            effect.note("N99-5", f"Passing {limit}: the player loses a token.")
    if new < total and any(new <= limit < total for limit in LIMITS):
        effect.note("N99-5", "Going down never costs a token.")
    if new == TARGET:
        effect.round_over = effect.won_round = True
        effect.others_lose += 2
        effect.note("N99-5", "Reaching exactly 99 wins the round: every other player loses two tokens.")
    elif new > TARGET:
        effect.round_over = True
        effect.player_loses += 2
        effect.note("N99-5", "Going over 99 loses the round and two tokens.")
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
        raise InvalidInput(f"Too many players for the deck: {len(players)} hands of {hand} cards need "
                           + ("two decks (N99-1)." if options["decks"] == 1 else "fewer cards each (N99-1, N99-9)."),
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
    state["events"] = [{"text": f"Round 1: {first} plays first", "rule": "N99-2"}]
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
        raise IllegalMove("N99-8", f"{card} cannot be played: every copy of it ({copies}) is already "
                                   "on the pile since the last shuffle.")
    active = _active(state)
    effect = play_effect(state["total"], card, value, len(active))
    before = state["total"]
    state["total"] = effect.total
    state["pile"].append(card)
    state["played_this_round"].append(player)
    state["top"] = card
    _event(state, "N99-3", f"{player} plays {card}: {before} -> {effect.total}")
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
        what = "reached 99 and wins the round" if effect.won_round else f"reached {total}"
        names = _join(others)
        _event(state, "N99-5", f"{player} {what}: {names} lose{'s' if len(others) == 1 else ''} "
                               f"{_tokens(effect.others_lose)}")
    if effect.player_loses:
        _lose(state, player, effect.player_loses, "N99-5")
        parts = [f"passed {limit}" for limit in effect.passed]
        if effect.round_over:
            parts.append("went over 99 and loses the round")
        _event(state, "N99-5", f"{player} {' and '.join(parts)}: {player} loses "
                               f"{_tokens(effect.player_loses)}")
    _eliminate(state)


def _lose(state: dict, player: str, tokens: int, rule: str) -> None:
    lost = min(tokens, state["tokens"][player])
    state["tokens"][player] -= lost
    state["round_losses"][player] += lost
    state["round_notes"][player].append({"rule": rule, "points": -lost, "detail": f"lost {_tokens(lost)}"})


def _eliminate(state: dict) -> None:
    for p in state["players"]:
        if state["tokens"][p] == 0 and p not in state["out"]:
            state["out"].append(p)
            state["hand_sizes"][p] = 0
            _event(state, "N99-6", f"{p} has no tokens left and is out of the game")


def _game_over(state: dict) -> bool:
    active = _active(state)
    if len(active) > 1:
        return False
    state["winners"] = active
    state["to_play"] = None
    state["phase"] = "finished"
    _record_round(state, ended_by=None)
    _event(state, "N99-6", f"{active[0]} is the last player in and wins the game")
    return True


def _draw(state: dict, player: str) -> None:
    """The player draws a fresh card; reshuffle the pile but its top card when needed (N99-8)."""
    if state["draw_pile"] == 0:
        state["draw_pile"] = len(state["pile"]) - 1
        state["pile"] = state["pile"][-1:]
        _event(state, "N99-8", "The draw pile ran out: the played cards but the top one are "
                               f"shuffled into a new draw pile ({state['draw_pile']} cards)")
    if state["draw_pile"] > 0:
        state["draw_pile"] -= 1
    else:  # nothing left anywhere to draw: the hand simply shrinks, as for a missed draw
        state["hand_sizes"][player] -= 1


def _advance(state: dict, player: str, skip: bool) -> None:
    active = _active(state)
    direction = state["direction"]
    if skip and player in active and len(active) == 2:
        nxt = player  # N99-4: with two players a J gives another turn
        _event(state, "N99-4", f"{player} plays again")
    else:
        nxt = _seat_after(state, player, direction)
        if skip:
            _event(state, "N99-3", f"{nxt} skips a turn")
            nxt = _seat_after(state, nxt, direction)
    state["to_play"] = nxt
    _check_empty_hand(state)


def _check_empty_hand(state: dict) -> None:
    """N99-7: a player whose turn comes with no card ends the round and loses three tokens."""
    player = state["to_play"]
    if player is None or state["hand_sizes"][player] > 0:
        return
    _lose(state, player, 3, "N99-7")
    _event(state, "N99-7", f"{player} has no card to play: the round ends and {player} loses "
                           f"{_tokens(3)}")
    _eliminate(state)
    if not _game_over(state):
        _end_round(state)


def _missed_draw(state: dict, move: dict) -> None:
    player = move["player"]
    missed = state["missed_draws"]
    missed[player] = missed.get(player, 0) + 1
    state["hand_sizes"][player] -= 1
    state["draw_pile"] += 1  # the card was never taken
    _event(state, "N99-7", f"{player} forgot to draw and plays on with "
                           f"{state['hand_sizes'][player]} card{'s' if state['hand_sizes'][player] != 1 else ''}")
    _check_empty_hand(state)


def _end_round(state: dict) -> None:
    _record_round(state, ended_by=state["played_this_round"][-1] if state["played_this_round"] else None)
    # N99-2: the next round starts one seat further left than this one did.
    starter = _seat_after(state, state["starter"], "clockwise")
    _start_round(state, starter)
    _event(state, "N99-2", f"Round {state['round']}: {starter} plays first")


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
    return "a token" if n == 1 else f"{n} tokens"


def _join(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


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
        return finished(state["winners"], f"{state['winners'][0]} won it: the last player in.", "N99-6")
    return in_progress()


# ---------------------------------------------------------------- who may move, and with what

PHASES = {"play": ("play", "missed_draw")}


def _may_miss_draw(state: dict, player: str) -> str | None:
    """Why ``player`` cannot record a missed draw now (N99-7), or None when they can."""
    if player in state["out"]:
        return f"{player} is out of the game."
    played = state["played_this_round"].count(player)
    if not played:
        return f"{player} has not played a card this round, so cannot have forgotten to draw."
    if state["hand_sizes"][player] == 0:
        return f"{player} has no card left in hand."
    if state["missed_draws"].get(player, 0) >= played:
        return f"{player} has played {played} card(s) this round and already missed as many draws."
    return None


def actors(state: dict, kind: str) -> list[str]:
    if kind == "play":
        return [state["to_play"]] if state["to_play"] else []
    return [p for p in state["players"] if _may_miss_draw(state, p) is None]


def refuse_actor(state: dict, kind: str, player: str) -> IllegalMove:
    if player in state["out"]:
        return IllegalMove("N99-6", f"{player} is out of the game.")
    if kind == "play":
        return IllegalMove("N99-2", f"It is {state['to_play']}'s turn, not {player}'s.", legal=state["to_play"])
    return IllegalMove("N99-7", _may_miss_draw(state, player))


def choices(state: dict, kind: str) -> dict:
    """N99-3: the values a 10 or an A may be declared as (every other card has a fixed value)."""
    return {"value": {rank: list(values) for rank, values in DECLARED.items()}} if kind == "play" else {}


def _says_play(move: dict, show=str) -> str:
    value = f" as {move['value']:+d}" if type(move.get("value")) is int else ""
    return f"{move.get('player')} plays {show(move.get('card'))}{value}"


MOVES = {
    "play": Move(
        _play, (Player("player"), Card("card", read=_card, example="KS"),
                Shaped("value", required=False, nullable=True, shape={"type": "integer", "enum": [-10, 1, 10, 11]},
                       description="Only for a 10 (10 or -10) or an A (1 or 11), N99-3.")),
        "Play a card on the pile; a 10 or an A declares its value.", ("N99-2", "N99-3", "N99-5"),
        label="Play a card", says=_says_play),
    "missed_draw": Move(
        _missed_draw, (Player("player"),),
        "The player forgot to draw after playing and keeps one card fewer for the rest of the round.",
        ("N99-7",), label="Forgot to draw", says="{player} forgot to draw"),
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
        "explanation": " ".join(effect.reasons),
    }


JUDGES = {
    "play": Judge(
        fn=judge_play,
        summary="What one card does to a pile total: new total, tokens lost, skip and reverse.",
        request={
            "type": "object",
            "required": ["total", "card"],
            "additionalProperties": False,
            "properties": {
                "total": {"type": "integer", "minimum": -10000, "maximum": 10000},
                "card": {"type": "string", "example": "2S"},
                "value": {"type": "integer", "nullable": True, "description": "10 or -10 for a 10, 1 or 11 for an A"},
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
