"""69: sets with flips and specials, capture and steal, Scramble, bonus scoring.

Rule sheet ``sixty-nine.txt`` with rulings S69-1..S69-13, G-1, G-2, and the table's own T-1, T-2,
T-4 (a round may be refereed move by move or entered whole). The package is split into
``sets`` (card accounting, set reading), ``scoring`` (round score) and ``game`` (game flow);
this module is the engine interface and the dispute verdicts.
"""
from __future__ import annotations

from typing import Any

from referee import cards as card_codes
from referee.rules import base
from referee.rules.base import (ADJUST_LIMIT, IllegalMove, InvalidInput, Judge, Move, adjust_move,
                                between, Game, correction_move, finished, in_progress, moves_instead, record_move,
                                RECORD_OPTION, declared_options, replace_round, round_index, shared)
from referee.rules import vocabulary
from referee.rules.fields import Card, Cards, Flag, Int, Player, Shaped, check_type
from referee.rules.vocabulary import shown
from referee.rules.sixty_nine import game
from referee.rules.sixty_nine.scoring import MOST_POINTS, score_round
from referee.rules.sixty_nine.sets import COMPLETE_AT, DECK_SIZE, check_captured, check_copies, read_set
from referee.rules.base import Figures
from referee.rules.sixty_nine import scoring
from referee.rules.sixty_nine.sets import copies_of as copies_of  # shown to the game's page
from referee.rules.sixty_nine.sets import is_special
from referee.texts import N_, T, Text, joined

NAME = "sixty-nine"
TITLE = "69"
PLAYERS = (2, 6)

FIRST_DEAL = ("dealer", -1)  # the option naming the first dealer, and its default seat (G-2)
OPTIONS = declared_options(
    Player("dealer", N_("First dealer (G-2); default the last player listed."), rule="G-2"),
    Int("target", N_("Points that end the game; every player at or over it after a round wins (S69-12)."),
        lo=1, default=69, rule="S69-12"),
    Flag("single_winner", N_("House rule: when several players reach the target, only the one with "
                             "the most points wins; a tie for most shares (S69-13)."), default=False,
         rule="S69-13"),
    RECORD_OPTION,
)
WHOLE_ROUND = "round_result"  # a round entered whole (T-4)

RULINGS = {
    # 69's own wording of G-1: its sheet speaks of 'left' (chances, turns and the deal pass left)
    "G-1": N_("Players are listed in seat order; 'left' is the next player in the list."),
    **shared("G-2"),
    "S69-1": N_("Deck of 69: number cards 0-9 in six suits A-F once each, three each of Wild, Lock, Scramble."),
    "S69-2": N_("A set: different suits; values all equal or distinct and consecutive; no special kind "
                "twice; 6/9 either way; 0 as 0 or 10, no wrap; specials any suit and value; at most six cards."),
    "S69-3": N_("A play puts cards from one hand into exactly one set on the table; plays never start "
                "sets; the set's cards may be read again (6/9, 0 high or low, specials) while the set "
                "stays legal."),
    "S69-4": N_("Three or more cards complete a set; the completer claims it with a count; chances pass "
                "left; adding at least the count takes the claim; back at the claimer, they capture."),
    "S69-5": N_("Lock: once a set holding a Lock is complete its claim no longer changes (no steals); "
                "the round of chances still goes on, players may still add cards to get rid of them."),
    "S69-6": N_("A set that reaches six cards is captured at once by its current claimer."),
    "S69-7": N_("After a capture the capturer flips and the player to their left plays; otherwise the "
                "turn passes left; a pass flips a card to start a new set."),
    "S69-8": N_("With the deck empty a flip comes from a random card of the right-hand neighbour's hand."),
    "S69-9": N_("Scramble: whoever brought it acts next and no one else: they rearrange the whole table "
                "(plus cards from the hand; every set keeps a table card) or decline; every set of 3+ "
                "is claimed with count 1; chances on any or all complete sets; each claim ends "
                "independently; once all are captured, the last capturer flips and the player to their "
                "left plays. A Scramble flipped at the deal is the dealer's; one added on a chance is a "
                "plain special."),
    "S69-10": N_("The round ends as soon as any hand is empty, after the capture and chances in progress."),
    "S69-11": N_("Score: +1 per captured card, +2 per set with a printed 6 and 9, +3 per set with Wild, "
                 "Lock and Scramble, +6 per six-card set, +10 per 0-9 collection among the number cards "
                 "captured this round (a 6 or 9 fills either, specials fill nothing), -1 per card in "
                 "hand; a round below 0 counts 0."),
    "S69-12": N_("Next dealer: left of the player whose hand emptied; the game ends at the end of the "
                 "round after which anyone has 69 or more; every such player wins, ranked by points. 2-6 "
                 "players."),
    "S69-13": N_("House rule: a single winner, the one at or over the target with the most points; a tie for "
                 "most shares."),
    **shared("T-1", "T-2", "T-4"),
}


def new_game(players, options=None) -> dict:
    if isinstance(players, list) and not PLAYERS[0] <= len(players) <= PLAYERS[1]:
        raise InvalidInput(T("69 is a game for {lo} to {hi} players, not {n}.", lo=PLAYERS[0], hi=PLAYERS[1],
                             n=len(players)),
                           rule="S69-12")
    names = base.check_players(players, *PLAYERS, rule="S69-12")
    resolved = base.resolve_options(OPTIONS, options)   # each value checked, citing its ruling (G-3)
    base.player_option(resolved, "dealer", names, rule="G-2")
    return game.initial_state(names, resolved)


def standings(state: dict) -> dict:
    return dict(state["totals"])


def public_view(state: dict) -> dict:
    chances = None
    if state["phase"] == "chances":
        chances = {"player": state["chance_to"], "sets": [s["id"] for s in game.open_sets(state)]}
    return {
        "round": state["round"],
        "to_play": state["to_play"],
        "standings": standings(state),
        "rounds": state["rounds"],
        "dealer": state["dealer"],
        "table": state["table"],
        "captured": state["captured"],
        "hand_sizes": state["hand_sizes"],
        "draw_pile": state["deck"],
        "chances": chances,
        "pending_scramble": state["pending_scramble"],
        "pulls": state["pulls"],
        "target": state["options"]["target"],
    }


_CARD_CODES = {"type": "array", "items": {"type": "string"}}
_READING = {"type": "array", "nullable": True, "items": {"type": "object", "properties": {
    "card": {"type": "string"}, "suit": {"type": "string"}, "value": {"type": "integer"}}}}
_SET = {"type": "object", "required": ["id", "cards", "reading"], "properties": {
    "id": {"type": "integer"}, "cards": _CARD_CODES, "reading": _READING,
    "complete": {"type": "boolean"}, "claimant": {"type": "string", "nullable": True},
    "count": {"type": "integer", "nullable": True}, "locked": {"type": "boolean"}}}
VIEW = (
    vocabulary.DEALER,
    shown("table", {"type": "array", "items": _SET},
          "The sets on the table: id, cards, how they are read (S69-2), and the claim (S69-4, S69-5)."),
    shown("captured", {"type": "object", "additionalProperties": {"type": "array", "items": _SET}},
          "The sets each player has captured this round (S69-4, S69-6)."),
    vocabulary.HAND_SIZES,
    vocabulary.DRAW_PILE,
    shown("chances", {"type": "object", "properties": {"player": {"type": "string"}, "sets": {
        "type": "array", "items": {"type": "integer"}}}},
          "While chances go round (S69-4): whose chance it is and the complete sets open to it; else null.",
          nullable=True),
    shown("pending_scramble", {"type": "string"}, "Who put a Scramble on the table and now rearranges or declines "
          "it (S69-9), or null.", nullable=True),
    shown("pulls", {"type": "array", "items": {"type": "object", "properties": {
        "by": {"type": "string"}, "from": {"type": "string"}, "card": {"type": "string"}}}},
          "The cards pulled this round from a hand to flip when the deck was empty: who pulled, from whom, which "
          "card (S69-8)."),
    vocabulary.TARGET,
)


def outcome(state: dict):
    if state["phase"] == "finished":
        best = state["winners"]
        single = state["options"].get("single_winner")
        if state.get("resume") and not state["resume"]["between"]:  # an adjustment ended it during a round (T-2)
            return finished(best, T("{players} reached {target} points with the table's adjustment during round "
                                    "{round}.", players=", ".join(best), target=state["options"]["target"],
                                    round=state["round"]), "S69-13" if single else "S69-12")
        return finished(best, T("{players} reached {target} points at the end of round {round} with the most points.",
                                players=", ".join(best), target=state["options"]["target"], round=state["round"])
                        if single else
                        T("{players} reached {target} points at the end of round {round}.", players=", ".join(best),
                          target=state["options"]["target"], round=state["round"]),
                        "S69-13" if single else "S69-12")
    return in_progress()


# ---------------------------------------------------------------- who may move, and with what

_TABLE = ("adjust", "correct_round")  # the table's own moves: any time, a pending Scramble included (T-1, T-2)
PHASES = {
    "round_over": ("deal", "round_result", *_TABLE),  # between rounds: a deal, or the round entered whole (T-4)
    "turn": ("play", "pass", "scramble", *_TABLE),
    "scramble": ("scramble", *_TABLE),
    "chances": ("chance", "pass_chances", *_TABLE),
    "flip": ("flip", *_TABLE),
    "finished": _TABLE,
}


def _adjust(state: dict, player: str, points: int) -> int:
    """T-2: a point counts toward the target like a round's (S69-11), at once, but the target is
    judged where S69-12 judges it (``_judge_totals``)."""
    held = state["totals"][player]
    if held + points < 0:
        raise IllegalMove("T-2", T("{player} has {points} points, and a total never goes below 0 (S69-11): an "
                                   "adjustment can take at most that many.", player=player, points=held),
                          legal={"points": between(-held, ADJUST_LIMIT)})
    state["totals"][player] += points
    _judge_totals(state)
    return state["totals"][player]


def _judge_totals(state: dict) -> None:
    """S69-12 for totals the table changed (T-1, T-2): during a round they count at the round's
    end, with everyone's round; between rounds they are judged at once, as part of the round just
    finished, and may end the game (the table as it was is kept, should the table take the end
    back); after the end, with the table's say-so, they may let the game go on where it stopped."""
    if state["phase"] not in ("round_over", "finished"):  # in a round: end_round judges the totals
        return
    winners = game.winners_now(state)
    if state["phase"] != "finished":
        if winners:
            where = {key: state[key] for key in ("phase", "to_play", "dealer", "round")}
            where["between"] = state["phase"] == "round_over" and bool(state["rounds"])
            if where["between"]:
                state["round"] -= 1  # the game ends with the last round played, as if at its end
            state.update(phase="finished", to_play=None, winners=winners, resume=where)
    elif winners:
        state["winners"] = winners
    else:
        # it ended with a round (the next deal comes from the left of whoever emptied their hand) or an adjustment
        dealer = game.left(state, state["emptied"]) if state.get("emptied") else state["dealer"]
        back = state.pop("resume", None) or {"phase": "round_over", "to_play": dealer, "dealer": dealer,
                                             "round": state["round"] + 1}
        state.update({key: value for key, value in back.items() if key != "between"}, winners=[])
        state["events"].append({"rule": "S69-12", "text": T("With this change nobody has reached {target} points: "
                                                            "the game goes on.", target=state["options"]["target"])})


# ---------------------------------------------------------------- a round entered whole (T-4), corrected (T-1)
# ``players`` gives each player's round in one of two forms: the sets they captured and the cards
# left in their hand (scored here as S69-11 scores them, as the ``score`` verdict does), or only
# the points the table counted. Every player is given: a round entry guesses nothing (T-4).

MOST_SETS = DECK_SIZE // COMPLETE_AT  # 23: a captured set holds three cards or more


def _read_players(value, state: dict) -> dict:
    """``{name: {captured, hand} | {points}}``, each form checked for shape, its cards parsed."""
    forms = {}
    for name, entry in base.get_field({"players": value}, "players", dict).items():
        if name not in state["players"]:
            raise InvalidInput(T("'{player}' in 'players' is not a player in this game.", player=name))
        what = T("round of {player}", player=name)
        base.check_keys(entry, {"captured", "hand", "points"}, what)
        if "points" in entry:
            if len(entry) > 1:
                raise InvalidInput(T("The {what} gives either its points, or its captured sets and the cards left "
                                     "in hand.", what=what))
            forms[name] = {"points": Int("points").parse(entry["points"], state)}
            continue
        raw = base.get_field(entry, "captured", list, required=False, default=[])
        if len(raw) > MOST_SETS:
            raise InvalidInput(T("{player} cannot have captured {n} sets: a set holds three cards or more, and the "
                                 "deck 69.", player=name, n=len(raw)), rule="S69-4")
        form: dict[str, Any] = {"captured": [card_codes.parse_list(cards, game.parse_card, "captured[]")
                                             for cards in raw]}
        if "hand" in entry:
            hand = base.get_field(entry, "hand", (int, list))
            form["hand"] = card_codes.parse_list(hand, game.parse_card, "hand") if isinstance(hand, list) else hand
        forms[name] = form
    return forms


def _whole_results(state: dict, emptied: str, forms: dict) -> dict:
    """Every player's round entered whole (T-4), checked as far as it tells: sets legal and
    complete (S69-2, S69-4), cards within the deck (S69-1), a hand of at most the ten cards dealt
    and empty for the player who emptied it (S69-8, S69-10), points a round can score (S69-11).
    Each result: its points, breakdown, the captured sets and cards in hand where given, and the
    form as entered."""
    missing = [p for p in state["players"] if p not in forms]
    if missing:
        raise IllegalMove("S69-11", T("Every player's round is needed (their points, or their captured sets and "
                                      "the cards left in hand); missing: {players}.", players=", ".join(missing)))
    results, seen, counted = {}, [], 0
    for name in state["players"]:
        form = forms[name]
        if "points" in form:
            points = form["points"]
            if not 0 <= points <= MOST_POINTS:
                raise IllegalMove("S69-11", T("{player}'s {points} points cannot be a round's score: a round scores "
                                              "from 0 (never below) to at most {most}.", player=name, points=points,
                                              most=MOST_POINTS),
                                  legal={"players": {name: {"points": between(0, MOST_POINTS)}}})
            results[name] = {"points": points, "entered": dict(form), "in_hand": None,
                             "breakdown": [{"rule": "T-4", "points": points, "detail": N_("Entered as points.")}]}
            continue
        hand = form.get("hand")
        if hand is None and name != emptied:
            raise InvalidInput(T("How many cards were left in {player}'s hand? Give 'hand' (a number, or the cards): "
                                 "each costs a point.", player=name), rule="S69-11")
        in_hand = len(hand) if isinstance(hand, list) else (hand or 0)
        if not 0 <= in_hand <= game.HAND_SIZE:
            raise IllegalMove("S69-8", T("{player} cannot hold {n} cards at the end of a round: a hand is dealt ten "
                                         "and only ever loses cards (plays, and pulls when the deck is empty).",
                                         player=name, n=in_hand),
                              legal={"players": {name: {"hand": between(0, game.HAND_SIZE)}}})
        if name == emptied and in_hand:
            raise IllegalMove("S69-10", T("{player}'s hand emptied and ended the round: it holds no cards, not {n}.",
                                          player=name, n=in_hand),
                              legal={"players": {name: {"hand": [0, []]}}})
        check_captured(form["captured"])
        seen += [c for cards in form["captured"] for c in cards] + (hand if isinstance(hand, list) else [])
        counted += sum(map(len, form["captured"])) + in_hand
        points, breakdown = score_round(form["captured"], in_hand)
        results[name] = {"points": points, "breakdown": breakdown, "captured": form["captured"], "in_hand": in_hand,
                         "entered": {"captured": form["captured"], "hand": hand if hand is not None else 0}}
    check_copies(seen)
    if counted > DECK_SIZE:
        raise IllegalMove("S69-1", T("The sets captured and the cards left in hand make {n} cards, and the deck holds "
                                     "69.", n=counted))
    return results


def _round_result(state: dict, move: dict) -> None:
    game.whole_round(state, move["emptied"], _whole_results(state, move["emptied"], move["players"]))


def _correct_round(state: dict, move: dict) -> None:
    """T-1: a round entered whole, entered again and scored as a round result is; the totals follow,
    then the end of the game (S69-12, judged as an adjustment's is). A round refereed move by move
    has no entry to replace: its scores change by adjustment (T-2)."""
    inside = state["phase"] not in ("round_over", "finished")
    index = round_index(state, move["round"], state["round"] if inside else None)
    old, last = state["rounds"][index], index == len(state["rounds"]) - 1
    if old.get("recorded") != "rounds":
        raise IllegalMove("T-1", T("Round {round} was refereed move by move, not entered whole: there is no entry to "
                                   "replace. The table changes a score it disputes with an adjustment ('adjust', "
                                   "T-2).", round=old["round"]),
                          legal={"type": ["adjust"], "round": _whole_rounds(state)})
    emptied = move["emptied"]
    results = _whole_results(state, emptied, move["players"])
    entry = {"round": old["round"], "scores": {p: r["points"] for p, r in results.items()},
             "breakdown": {p: r["breakdown"] for p, r in results.items()}, "dealer": old["dealer"],
             "emptied": emptied, "hands": {p: r["in_hand"] for p, r in results.items()},
             "players": {p: r["entered"] for p, r in results.items()}, "recorded": "rounds"}
    delta = replace_round(state, index, entry, move["reason"])
    low = next((p for p in state["players"] if state["totals"][p] + delta.get(p, 0) < 0), None)
    if low is not None:
        raise IllegalMove("T-1", T("{player}'s total would fall below 0 with this correction (an adjustment took "
                                   "points from it since), and a total never goes below 0 (S69-11): adjust it "
                                   "first.", player=low))
    for p, points in delta.items():
        state["totals"][p] += points
    if last and not inside:
        _last_round_emptied(state, old["emptied"], emptied, results)
    _judge_totals(state)


def _last_round_emptied(state: dict, was: str, emptied: str, results: dict) -> None:
    """The last round corrected before the next deal: the table shows it, and the next dealer sits
    at the left of whoever emptied their hand in it now (S69-12)."""
    game.show_whole_round(state, emptied, results)
    if emptied == was:
        return
    dealer = game.left(state, emptied)
    if state["phase"] == "round_over":
        state.update(dealer=dealer, to_play=dealer)
    elif (state.get("resume") or {}).get("between"):  # ended between rounds: the deal it would go on with
        state["resume"].update(dealer=dealer, to_play=dealer)
    else:
        return  # the game ended with this round: S69-12 finds the dealer should it go on
    state["events"].append({"rule": "S69-12", "text": T("{player}'s hand emptied first: {dealer} deals next.",
                                                        player=emptied, dealer=dealer)})


def _whole_rounds(state: dict) -> list[int]:
    return [entry["round"] for entry in state["rounds"] if entry.get("recorded") == "rounds"]


def _correctable(state: dict) -> dict | None:
    """The rounds a correction may replace: those entered whole (T-1)."""
    done = _whole_rounds(state)
    return {"round": done} if done else None


def _inside_round(state: dict) -> Text | None:
    """T-4: a dealt round is finished as it began, move by move."""
    if state["phase"] == "round_over":
        return None
    return T("round {round} has been dealt: finish it move by move.", round=state["round"])


def actors(state: dict, kind: str) -> list[str]:
    if kind == "deal":
        return [state["dealer"]]
    return [state["to_play"]] if state["to_play"] else []


def _deal_rule(state: dict) -> str:
    return "G-2" if not state["rounds"] else "S69-12"


def refuse_phase(state: dict, kind: str) -> IllegalMove:
    phase, to_play = state["phase"], state["to_play"]
    if kind == "round_result":
        # T-4: a round begun move by move ends move by move; only a round not dealt yet is entered whole.
        return IllegalMove("T-4", T("Round {round} has been dealt and is recorded move by move: finish it so. A round "
                                    "is entered whole between rounds, instead of its deal.", round=state["round"]),
                           legal=moves_instead(GAME, state, PHASES.get(phase, ())))
    if phase == "scramble":
        # S69-9: while a Scramble is pending, the player who put it there acts next and no one else;
        # every other move (a play, a pass, a chance, a flip, a deal) waits.
        return IllegalMove("S69-9", T("{player} put a Scramble on the table and first uses it or declines it (a "
                                      "'scramble' move); no other move is possible until then.", player=to_play),
                           legal=moves_instead(GAME, state, ("scramble",)))
    if kind == "deal":
        return IllegalMove("S69-10", N_("A round is in progress: the next deal comes when it ends."))
    if kind in ("chance", "pass_chances"):
        return IllegalMove("S69-4", N_("No complete set is waiting for chances."))
    if kind == "flip":
        return IllegalMove("S69-7", N_("No flip is due: a capturer flips right after capturing."))
    if phase == "round_over":
        return IllegalMove(_deal_rule(state), T("No round is in progress: {player} deals next.", player=to_play),
                           legal=moves_instead(GAME, state, ("deal",)))
    if phase == "chances":
        return IllegalMove("S69-4", T("Chances are being taken: it is {player}'s chance to add cards to the "
                                      "complete set(s).", player=to_play),
                           legal=moves_instead(GAME, state, ("chance",)))
    if phase == "flip":
        return IllegalMove("S69-7", T("{player} captured a set and must flip a card first.", player=to_play),
                           legal=moves_instead(GAME, state, ("flip",)))
    return IllegalMove("S69-7", T("A '{move}' move is not possible now: it is {player}'s turn.", move=kind,
                                  player=to_play))


def refuse_actor(state: dict, kind: str, player: str) -> IllegalMove:
    to_play = state["to_play"]
    if kind == "deal":
        return IllegalMove(_deal_rule(state), T("{dealer} deals this round, not {player}.", dealer=state["dealer"],
                                                player=player), legal={"dealer": [state["dealer"]]})
    if kind == "chance":
        return IllegalMove("S69-4", T("It is {to_play}'s chance, not {player}'s.", to_play=to_play, player=player))
    if kind == "flip":
        return IllegalMove("S69-7", T("{to_play} captured and flips, not {player}.", to_play=to_play, player=player))
    if state["phase"] == "scramble":
        return IllegalMove("S69-9", T("{to_play} put the Scramble there and acts next: they rearrange the table or "
                                      "decline, not {player}.", to_play=to_play, player=player),
                           legal={"player": [to_play]})
    return IllegalMove("S69-7", T("It is {to_play}'s turn, not {player}'s.", to_play=to_play, player=player))


def choices(state: dict, kind: str) -> dict:
    """The sets a play can go into (S69-3), and who may have emptied their hand in a round entered
    whole (S69-12)."""
    if kind == "play":
        return {"set": [s["id"] for s in state["table"]]}
    if kind == "round_result":
        return {"emptied": list(state["players"])}
    return {}


def facts(state: dict, kind: str) -> dict:
    """The complete sets that take a chance now (S69-4), by id (``open_sets``): the keys a chance's
    ``sets`` may use, or the one set its ``cards`` go into when only one is open."""
    if kind == "chance":
        return {"open_sets": [s["id"] for s in game.open_sets(state)]}
    return {}


def _check_deal(move: dict) -> None:
    if move.get("player") is not None and move["player"] != move["dealer"]:
        raise InvalidInput(N_("A deal is the dealer's move: 'player', when given, names the dealer."), rule="G-2")


def _check_play(move: dict) -> None:
    if not move["cards"]:
        raise InvalidInput(N_("A play needs at least one card (to play nothing, pass)."), rule="S69-3")


def _says_chance(move: dict, show) -> str:
    who = move.get("player")
    if "sets" in move:
        return T("{player} adds {sets}", player=who, sets=joined(
            [T("set {set}: {cards}", set=k, cards=" ".join(map(show, v)) or N_("nothing"))
             for k, v in (move.get("sets") or {}).items()], "; "))
    cards = move.get("cards") or []
    return (T("{player} adds {cards}", player=who, cards=" ".join(map(show, cards))) if cards else
            T("{player} declines the chance", player=who))


def _says_scramble(move: dict, show) -> str:
    if move.get("arrangement") is not None:
        return T("{player} scrambles the table", player=move.get("player"))
    return T("{player} declines the Scramble", player=move.get("player"))


def _card(name: str, **kwargs) -> Card:
    return Card(name, read=game.parse_card, example="7C", **kwargs)


def _cards(name: str, **kwargs) -> Cards:
    return Cards(name, read=game.parse_card, example=["5B", "WILD"], max_items=69, **kwargs)


_CODES = {"type": "array", "items": {"type": "string"}}
_PLAYER_ROUND = {
    "type": "object", "additionalProperties": False,
    "description": "{captured, hand}: the sets captured and the cards left in hand (a number, or the cards), "
                   "scored as S69-11 scores them; or {points}: the round's score as the table counted it.",
    "properties": {"captured": {"type": "array", "items": _CODES, "maxItems": MOST_SETS},
                   "hand": {"oneOf": [{"type": "integer", "minimum": 0, "maximum": game.HAND_SIZE}, _CODES]},
                   "points": {"type": "integer", "minimum": 0, "maximum": MOST_POINTS}}}
_ROUND_RESULT = (
    Player("emptied", description=N_("Whose hand emptied first (S69-10): the next dealer sits at their left "
                                     "(S69-12).")),
    Shaped("players", read=_read_players,
           shape={"type": "object", "additionalProperties": _PLAYER_ROUND,
                  "description": "Every player's round: {name: {captured, hand} or {points}}.",
                  "example": {"Ann": {"captured": [["5A", "5B", "5C"]], "hand": 0}, "Bob": {"points": 4}}}))
_ROUND_RULES = ("S69-1", "S69-2", "S69-4", "S69-8", "S69-10", "S69-11", "S69-12")
MOVES = {
    "deal": Move(
        game.deal, (Player("dealer"), Player("player", required=False, description=N_("When given, the dealer.")),
                    _card("flip", description=N_("The card flipped to start the first set."))),
        N_("A round starts: ten cards each (dealt at the table); the flipped card starts a set."), ("G-2", "S69-12"),
        label=N_("Deal"), says=N_("{dealer} deals and flips {flip}"), actor="dealer", check=_check_deal),
    "play": Move(
        game.play, (Player("player"),
                    Shaped("set", required=False, nullable=True, read=lambda value, state: game.parse_set_id(value),
                           shape={"oneOf": [{"type": "integer"}, {"type": "string"}], "example": 1,
                                  "description": "The id of a set on the table."}),
                    _cards("cards")),
        N_("Cards from the hand into one set on the table."), ("S69-2", "S69-3", "S69-4"), label=N_("Play cards"),
        says=N_("{player} plays {cards} into set {set}"), check=_check_play),
    "pass": Move(
        game.pass_turn, (Player("player"), _card("flip", description=N_("The card flipped to start a new set."))),
        N_("Pass and flip a card to start a new set; with the deck empty the card comes from the right-hand "
           "neighbour's hand."), ("S69-7", "S69-8"), label=N_("Pass and flip"),
        says=N_("{player} passes and flips {flip}")),
    "chance": Move(
        game.chance, (Player("player"), _cards("cards", required=False, description=N_("For the one complete set; "
                                                                                       "[] adds nothing.")),
                      Shaped("sets", required=False, read=game.parse_chance_sets,
                             shape={"type": "object", "additionalProperties": _CODES,
                                    "description": "{set id: cards} when several sets are complete."})),
        N_("Add cards on a chance to complete sets ([] or {} to add nothing)."), ("S69-4", "S69-5", "S69-9"),
        label=N_("Chance"), says=_says_chance, check=game.check_chance),
    "pass_chances": Move(
        game.pass_chances, (Player("until", required=False,
                                   description=N_("The player whose chance comes next; omit: nobody else adds.")),),
        N_("Everyone in turn adds nothing: until the chances end, or until the named player's chance."), ("S69-4",),
        label=N_("Nobody adds"), actor=None,
        says=lambda move, show: (T("Everyone before {player} adds nothing", player=move["until"]) if move.get("until")
                                 else N_("Nobody else adds"))),
    "flip": Move(
        game.flip, (Player("player"), _card("card")),
        N_("The capturer flips a card to start a new set."), ("S69-7", "S69-8"), label=N_("Flip"),
        says=N_("{player} flips {card}")),
    "scramble": Move(
        game.scramble, (Player("player"), _cards("from_hand", required=False),
                        Shaped("arrangement", required=False, nullable=True, read=game.parse_arrangement,
                               shape={"type": "array", "items": _CODES, "nullable": True,
                                      "description": "The whole table, set by set; omit to decline."})),
        N_("Rearrange the whole table with a Scramble from the hand (in from_hand) or the one just put there; "
           "without an arrangement, decline it."), ("S69-9",), label=N_("Scramble"), says=_says_scramble),
    "round_result": Move(
        _round_result, _ROUND_RESULT,
        N_("A whole round entered when it ends, instead of its deal and moves (T-4): whose hand emptied first, and "
           "each player's captured sets and cards left in hand, scored as S69-11 scores them, or their points."),
        (*_ROUND_RULES, "T-4"), label=N_("Round result"), actor=None,
        says=N_("Round result: {emptied}'s hand emptied first")),
    "correct_round": correction_move(
        _correct_round, _ROUND_RESULT,
        N_("A round entered whole with a wrong result, replaced: the round, why, and the round again as a round "
           "result gives it; the totals and the end of the game follow (T-1)."), _ROUND_RULES, _correctable, 10_000),
    "switch_record": record_move(_inside_round),
    "adjust": adjust_move(_adjust, N_("A point counts toward the target at once, like a round's (S69-11); the "
                                      "target is judged at the end of the round in progress (S69-12), or at once "
                                      "between rounds: an adjustment never ends a round early.")),
}



# ---------------------------------------------------------------- dispute verdicts

def _read_cards(value: Any, state: dict | None = None) -> list[str]:
    """Card codes of the game's deck (S69-1), as a verdict's request lists them."""
    return card_codes.parse_list(check_type("cards", value, list), game.parse_card, "cards")


def _read_sets(value: Any, state: dict | None = None) -> list[list[str]]:
    return [card_codes.parse_list(s, game.parse_card, "captured[]") for s in check_type("captured", value, list)]


_HAND_COUNT = Int("hand", lo=0, hi=69, rule="S69-1")  # a count is enough to score


def _read_hand(value: Any, state: dict) -> int | list[str]:
    """The cards left in hand, or just how many."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _HAND_COUNT.parse(value, state)
    return card_codes.parse_list(check_type("hand", value, list), game.parse_card, "hand")


def _answer_set(values: dict) -> dict:
    """Is this set legal (S69-2), is it complete (S69-4), and how does it read?"""
    cards = values["cards"]
    check_copies(cards)
    reading, reason = read_set(cards)
    shown = " ".join(cards) or N_("(no cards)")
    if reading is None:
        return {"legal": False, "complete": False, "reading": None, "reason": reason, "rule": "S69-2",
                "says": T("No: {cards} is not a legal set (S69-2): {reason}", cards=shown, reason=reason)}
    complete = len(cards) >= COMPLETE_AT
    read = joined([T("{card} as {value} in suit {suit}", card=r["card"], value=r["value"], suit=r["suit"])
                   for r in reading], ", ")
    says = (T("Yes: {cards} is a legal set ({reading}) and complete: three cards or more (S69-2, S69-4).",
              cards=shown, reading=read) if complete else
            T("Yes: {cards} is a legal set ({reading}), not complete yet: it needs three cards (S69-2, S69-4).",
              cards=shown, reading=read))
    return {"legal": True, "complete": complete, "reading": reading, "reason": None, "rule": None, "says": says}


def _answer_score(values: dict) -> dict:
    """A round score (S69-11) for captured sets and the cards left in hand."""
    captured, given = values["captured"], values["hand"]
    hand = given if isinstance(given, list) else []
    hand_count = given if isinstance(given, int) else len(hand)
    check_copies([c for s in captured for c in s] + hand)
    check_captured(captured)
    points, breakdown = score_round(captured, hand_count)
    return {"points": points, "breakdown": breakdown,
            "says": T("This round scores {points} (S69-11): captured sets {sets}, cards captured {count}, cards left "
                      "in hand {hand}, with the bonuses S69-11 gives; never below 0.", points=points,
                      count=sum(map(len, captured)), sets=len(captured), hand=hand_count)}


_CARD_LIST = {"type": "array", "items": {"type": "string"}}
_READING = {"type": "array", "nullable": True, "items": {
    "type": "object", "properties": {"card": {"type": "string"}, "suit": {"type": "string"},
                                     "value": {"type": "integer"}}}}
_BREAKDOWN = {"type": "array", "items": {
    "type": "object", "properties": {"rule": {"type": "string"}, "points": {"type": "integer"},
                                     "detail": {"type": "string"}}}}

JUDGES = {
    "set": Judge(
        _answer_set, N_("Is a set of 69 cards legal and complete, and how does it read? (S69-2, S69-4)"),
        fields=(Shaped("cards", shape=_CARD_LIST, read=_read_cards, title=N_("Cards")),),
        response={"type": "object", "required": ["legal", "complete", "reading", "reason", "rule", "says"],
                  "properties": {
                      "legal": {"type": "boolean"}, "complete": {"type": "boolean"}, "reading": _READING,
                      "reason": {"type": "string", "nullable": True}, "rule": {"type": "string", "nullable": True},
                      "says": base.SAYS}},
        example={"cards": ["6A", "6B", "7C", "8D"]},
    ),
    "score": Judge(
        _answer_score, N_("Round score of captured sets and the cards left in hand (S69-11)."),
        fields=(Shaped("captured", shape={"type": "array", "items": _CARD_LIST}, read=_read_sets,
                       title=N_("Sets captured")),
                Shaped("hand", N_("The cards left in hand, or just how many (0-69)."), required=False,
                       shape={"oneOf": [_CARD_LIST, _HAND_COUNT.value_schema()]}, read=_read_hand,
                       title=N_("Left in hand"))),
        response={"type": "object", "required": ["points", "breakdown", "says"],
                  "properties": {"points": {"type": "integer"}, "breakdown": _BREAKDOWN, "says": base.SAYS}},
        example={"captured": [["6A", "7B", "8C", "9D", "WILD", "5E"], ["WILD", "LOCK", "SCRAMBLE"]],
                 "hand": ["1F", "2F"]},
    ),
}
judge_set, judge_score = JUDGES["set"].fn, JUDGES["score"].fn  # a request as a client sends it


# ---------------------------------------------------------------- the group's stats

_BONUSES = {scoring.SIX_NINE_BONUS: "six_nine_bonuses", scoring.SPECIALS_BONUS: "specials_bonuses",
            scoring.SIX_CARD_BONUS: "six_card_bonuses"}


def count_figures(final: dict, steps) -> dict:
    """Sets captured and the bonuses they earned (S69-11), read from each round's captured sets in
    the state the round ended in."""
    names = ["sets_captured", "cards_captured", *_BONUSES.values(), "collections", "bonus_points"]
    figures = {p: dict.fromkeys(names, 0) for p in final["players"]}
    for _move, before, after in steps:
        if len(after["rounds"]) == len(before["rounds"]):
            continue
        for player, sets in after["captured"].items():
            mine = figures[player]
            mine["sets_captured"] += len(sets)
            for captured in sets:
                mine["cards_captured"] += len(captured["cards"])
                for bonus in scoring.set_bonuses(captured["cards"]):
                    mine[_BONUSES[bonus["points"]]] += 1
                    mine["bonus_points"] += bonus["points"]
            full = scoring.collections([c for s in sets for c in s["cards"] if not is_special(c)])
            mine["collections"] += full
            mine["bonus_points"] += full * scoring.COLLECTION_BONUS
    return figures


FIGURES = Figures(count_figures, needs_steps=True, labels={
    "sets_captured": N_("Sets captured"), "cards_captured": N_("Cards captured"),
    "six_nine_bonuses": N_("6-and-9 bonuses"), "specials_bonuses": N_("Specials bonuses"),
    "six_card_bonuses": N_("Six-card bonuses"), "collections": N_("Collections"), "bonus_points": N_("Bonus points")})


GAME = Game(module=__name__, name=NAME, title=TITLE, players=PLAYERS, options=OPTIONS, rulings=RULINGS, moves=MOVES,
            phases=PHASES, judges=JUDGES, view=VIEW, new_game=new_game, public_view=public_view, standings=standings,
            outcome=outcome, first_deal=FIRST_DEAL, whole_round=WHOLE_ROUND, actors=actors, choices=choices,
            facts=facts, refuse_phase=refuse_phase, refuse_actor=refuse_actor,
            figures=FIGURES)
