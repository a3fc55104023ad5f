"""Five Crowns: eleven rounds of rotating wilds, going out, and the exact best lay-down.

Rulings FC-1 .. FC-7 (``shared/rules/RULINGS.md``) and G-1, G-2. The table deals real cards;
the service records what becomes public (G-2): the first face-up discard, each draw and
discard, the melds laid down, and the cards left over at the end of a round.

A round is recorded turn by turn (``deal``, ``draw``, ``discard``, ``go_out``, ``final_turn``)
or all at once by a table that only keeps score (``round_result``).

Tie-break (FC-5, option ``tie_break``): with ``share`` (default) every player tied for the
lowest total after round 11 wins. With ``play_off`` the tied players play a twelfth round of
six cards, sixes wild, recorded like any other round (``round`` is 12, ``play_off`` true, the
other players sit out). Its scores decide among the tied players only and are not added to the
eleven-round totals (``standings`` keep those); the lowest play-off score wins, and a play-off
that ties again is shared.
"""
from __future__ import annotations

import copy
from collections import Counter

from referee.cards import JOKER, parse_five_crowns, rank_of
from referee.rules.base import (
    SAYS, Game, IllegalMove, InvalidInput, Judge, Move, adjust_move, and_names, check_keys,
    check_players, correction_move, finished, get_field, in_deck, in_progress, left_of, moves_instead,
    player_option, record_move, RECORD_OPTION, declared_options, replace_round, resolve_options, round_index, shared,
)
from referee.rules import vocabulary
from referee.rules.fields import Card, Cards, Choice, Int, Player, Shaped, check_type
from referee.rules.vocabulary import shown
from referee.rules.base import Figures
from referee.texts import N_, T, Text, joined
from referee.rules.five_crowns.solver import (RANKS, best_discard, best_lay_down, can_meld_all, card_points,
                                              go_out_discard, is_wild, meld_kind, sort_key, stand_ins,
                                              wild_rank_of_round)

NAME = "five-crowns"
TITLE = "Five Crowns"
PLAYERS = (2, 21)           # FC-8: six decks seat up to 21
DECK_CHOICES = (2, 4, 6)    # FC-1: two decks, four for two games combined; FC-8: six
PLAYERS_PER_TWO_DECKS = 7
ROUNDS = 11
PLAY_OFF_CARDS = 6          # FC-5: the tie-break round deals six cards, sixes wild
PLAY_OFF_WILD = "6"
CARDS_PER_DECK = 58
MAX_JUDGED_HAND = 20        # a hand holds at most 14 cards; the verdict takes a few more
MAX_JUDGED_MELD = 4 * CARDS_PER_DECK

FIRST_DEAL = ("dealer", -1)  # the option naming the first dealer, and its default seat (G-2)
OPTIONS = declared_options(
    Choice("decks", N_("Number of decks: 2 (one game, up to 7 players), 4 (two games "
                       "combined, up to 14 players) or, a house rule, 6 (up to 21 players, FC-8). "
                       "Default: the fewest that seat the players (FC-1)."), choices=DECK_CHOICES, rule="FC-8"),
    Player("dealer", N_("The first dealer. Default: the last player listed (G-2)."), rule="G-2"),
    Choice("round_order", N_("House rule: 'down' starts with 13 cards, Kings wild, and ends with 3 "
                             "cards, 3s wild; each round's wild rank is its number of cards (FC-8)."),
           choices=("up", "down"), default="up", rule="FC-8"),
    Choice("tie_break", N_("A tie for the lowest total after round 11: 'share' (all tied "
                           "players win) or 'play_off' (a six-card round, sixes wild, "
                           "among the tied players) (FC-5)."), choices=("share", "play_off"), default="share",
           rule="FC-5"),
    RECORD_OPTION,
)
WHOLE_ROUND = "round_result"  # a round entered whole (T-4)
LOWER_IS_BETTER = True  # penalty points (FC-5)

RULINGS = {
    "FC-1": N_("Two 58-card decks (five suits, 3-K twice each, six Jokers); four decks for more "
               "than 7 players."),
    "FC-2": N_("Eleven rounds; round r deals r+2 cards and rank r+2 is wild; Jokers always wild."),
    "FC-3": N_("Books (3+ of a rank) and runs (3+ consecutive of a suit, no wrap, no natural rank "
               "twice); wilds anywhere, any number, adjacent or not, a meld of wilds alone included; a "
               "wild-rank card may stand for itself."),
    "FC-4": N_("Going out: after drawing, lay down all cards but one in books and runs (as many as "
               "were dealt) and discard the last; everyone else then has exactly one more turn."),
    "FC-5": N_("Card points: face value, J 11, Q 12, K 13, Joker 50, wild rank 20; going out "
               "scores 0; lowest total after 11 rounds wins; ties share or play off."),
    "FC-6": N_("The service computes the best lay-down when only the cards are given; declared "
               "melds and leftovers are scored as declared."),
    "FC-7": N_("The deal passes left each round; the dealer's left plays first; an empty draw pile "
               "is remade from the discard pile but its top card."),
    "FC-8": N_("House rules: rounds played down (13 cards with Kings wild first, 3 cards with 3s wild last); "
               "six decks for up to 21 players."),
    **shared("G-1", "G-2"),
    **shared("T-1", "T-2", "T-4"),
}


# ---------------------------------------------------------------- setup

def new_game(players, options=None) -> dict:
    players = check_players(players, *PLAYERS, rule="FC-1")
    opts = resolve_options(OPTIONS, options)   # each value checked, citing its ruling (G-3)
    decks = opts["decks"]
    least = 2 * -(-len(players) // PLAYERS_PER_TWO_DECKS)   # 2 decks per 7 players (FC-1, FC-8)
    if decks is None:
        decks = least
    if decks < least:
        raise InvalidInput(T("{n} players need {least} decks: two per seven players (FC-1, FC-8).", n=len(players),
                             least=least),
                           rule="FC-1", legal={"decks": [d for d in DECK_CHOICES if d >= least]})
    dealer = player_option(opts, "dealer", players, rule="G-2") or players[-1]
    opts.update(decks=decks, dealer=dealer)
    state = {
        "players": players, "options": opts, "winners": [], "record": opts["record"],
        "totals": {name: 0 for name in players}, "rounds": [],
    }
    _start_round(state, 1, dealer, list(players), play_off=False)
    return state


def _start_round(state: dict, number: int, dealer: str, seated: list[str], play_off: bool):
    """A new round awaits its deal: who deals, who plays, what is wild (FC-2, FC-7)."""
    state.update({
        "round": number, "dealer": dealer, "in_round": seated, "play_off": play_off,
        "cards_dealt": PLAY_OFF_CARDS if play_off else cards_in_round(state, number),
        "wild": PLAY_OFF_WILD if play_off else wild_rank_of_round(cards_in_round(state, number) - 2),
        "step": "deal", "to_play": _left_in_round(state["players"], seated, dealer),
        "discard_pile": [], "stock": None, "known": {name: [] for name in seated},
        "hand_sizes": {name: 0 for name in seated}, "went_out": None,
        "final_turns_left": [], "laid": {},
    })
    _set_phase(state)


def _set_phase(state: dict):
    """The phase follows from the turn's step and whether someone has gone out (FC-4)."""
    step = state["step"]
    if step is None:
        state["phase"] = "finished"
    elif state["went_out"] and step != "deal":
        state["phase"] = "final_draw" if step == "draw" else "final_turn"
    else:
        state["phase"] = step


def cards_in_round(state: dict, number: int) -> int:
    """Round r deals r + 2 cards (FC-2), or 14 - r when the table plays the rounds down (FC-8);
    the rank of that number of cards is wild."""
    return ROUNDS + 3 - number if state["options"].get("round_order") == "down" else number + 2


def _left_in_round(players: list[str], seated: list[str], name: str) -> str:
    """The next player to the left who plays this round (G-1)."""
    nxt = left_of(players, name)
    while nxt not in seated:
        nxt = left_of(players, nxt)
    return nxt


# ---------------------------------------------------------------- moves

def _deal(state: dict, move: dict):
    card = move["discard"]
    decks = state["options"]["decks"]
    state.update(
        discard_pile=[card], step="draw",
        stock=CARDS_PER_DECK * decks - len(state["in_round"]) * state["cards_dealt"] - 1,
        hand_sizes={name: state["cards_dealt"] for name in state["in_round"]})


def _draw(state: dict, move: dict):
    player, source = move["player"], move["source"]
    pile = state["discard_pile"]
    if source == "discard":
        if not pile:
            raise IllegalMove("FC-7", N_("The discard pile is empty."))
        # The known top card goes into the player's hand, where it is tracked (FC-1).
        state["known"][player].append(pile.pop())
    else:
        if state["stock"] == 0:
            if len(pile) <= 1:
                raise IllegalMove("FC-7", N_("The draw pile is empty and the discard pile holds "
                                             "only its top card: draw the discard."),
                                  legal={"source": ["discard"]})
            # FC-7: the discard pile but its top card is shuffled into a new draw pile.
            state["stock"] = len(pile) - 1
            state["discard_pile"] = [pile[-1]]
            _event(state, "FC-7", T("The draw pile was remade from the discard pile but its top card ({n} cards).",
                                    n=state["stock"]))
        state["stock"] -= 1
    state["hand_sizes"][player] += 1
    state["step"] = "discard"


def _discard(state: dict, move: dict):
    player, card = move["player"], move["card"]
    _check_copies(state, player, [card])
    _forget_known(state, player, [card])
    state["discard_pile"].append(card)
    state["hand_sizes"][player] -= 1
    _pass_turn(state, player)


def _going_out_hand(state: dict, move: dict) -> tuple[list[list[str]], str]:
    """The melds and discard of a hand going out given as its cards alone (FC-4, FC-6): the
    dealt number of cards and the discard, or the dealt number plus one with the discard found.
    A hand that cannot go out is refused with what its best lay-down leaves out."""
    cards, discard, dealt, wild = move["cards"], move.get("discard"), state["cards_dealt"], state["wild"]
    if discard is None:
        if len(cards) != dealt + 1:
            raise IllegalMove("FC-4", T("Without the discard, a hand going out holds {n} cards (the {dealt} laid "
                                        "down and the discard), not {given}.", n=dealt + 1, dealt=dealt,
                                        given=len(cards)))
        discard = go_out_discard(cards, wild)
        rest = list(cards)
        if discard is not None:
            rest.remove(discard)
    else:
        if len(cards) != dealt:
            raise IllegalMove("FC-4", T("Going out lays down exactly {dealt} cards (the number dealt) beside the "
                                        "discard, not {given}.", dealt=dealt, given=len(cards)))
        rest = list(cards)
    if discard is None or not can_meld_all(rest, wild):
        best = best_lay_down(rest, wild)
        raise IllegalMove("FC-4", T("{cards} cannot go out: the best lay-down leaves {leftover} out of books and "
                                    "runs.", cards=" ".join(cards), leftover=" ".join(best.leftover)))
    return best_lay_down(rest, wild).melds, discard


def _go_out(state: dict, move: dict):
    player = move["player"]
    if "cards" in move:
        melds, discard = _going_out_hand(state, move)
    else:
        melds, discard = move["melds"], move["discard"]
    _check_melds(melds, state["wild"])
    laid = sum(len(meld) for meld in melds)
    if laid != state["cards_dealt"]:
        raise IllegalMove("FC-4", T("Going out lays down exactly {dealt} cards (the number dealt) in books and "
                                    "runs, not {given}.", dealt=state["cards_dealt"], given=laid))
    _reveal(state, player, melds, [], discard)
    state["went_out"] = player
    order, nxt = [], _left_in_round(state["players"], state["in_round"], player)
    while nxt != player:
        order.append(nxt)
        nxt = _left_in_round(state["players"], state["in_round"], nxt)
    state["final_turns_left"] = order
    state["to_play"], state["step"] = order[0], "draw"
    _event(state, "FC-4", T("{player} went out: {players} each have one more turn.", player=player,
                            players=", ".join(order)))


def _final_turn(state: dict, move: dict):
    player, discard = move["player"], move.get("discard")
    hand = _hand_form(move, N_("move"))
    if discard is None:
        # FC-4, FC-6: the cards alone, the discard among them: the service finds the discard
        # that leaves the lowest score, and lays down the rest as well as it can.
        melds, leftover, discard = _final_hand(state, player, hand["cards"])
        solved = True
    else:
        melds, leftover, solved = _lay_down(hand, state["wild"], state["cards_dealt"])
    _reveal(state, player, melds, leftover, discard)
    state["laid"][player]["solved"] = solved
    state["hand_sizes"][player] = len(leftover)
    state["final_turns_left"].pop(0)
    if state["final_turns_left"]:
        state["to_play"], state["step"] = state["final_turns_left"][0], "draw"
    else:
        _end_round_from_table(state)


def _final_hand(state: dict, player: str, cards: list[str]) -> tuple[list[list[str]], list[str], str]:
    """A final turn given as the hand alone, the discard among its cards (FC-4): the dealt number
    plus one. The discard leaving the least score is found with the best lay-down (FC-6)."""
    dealt, wild = state["cards_dealt"], state["wild"]
    if len(cards) != dealt + 1:
        raise IllegalMove("FC-4", T("Without the discard, a final turn gives the {n} cards held after the draw "
                                    "({dealt} kept and the discard), not {given}.", n=dealt + 1, dealt=dealt,
                                    given=len(cards)))
    discard, kept = best_discard(cards, wild)
    points = N_("1 point") if kept.points == 1 else T("{n} points", n=kept.points)
    _event(state, "FC-6", T("{player}'s best lay-down: discarding {card} leaves {points} ({leftover} left over).",
                            player=player, card=discard, points=points, leftover=" ".join(kept.leftover))
           if kept.leftover else
           T("{player}'s best lay-down: discarding {card} leaves {points}.", player=player, card=discard,
             points=points))
    return kept.melds, kept.leftover, discard


def _round_result(state: dict, move: dict):
    results = _results_of(state["in_round"], move["went_out"], move["hands"], state["wild"], state["cards_dealt"],
                          state["options"]["decks"])
    _finish_round(state, move["went_out"], results)


def _results_of(seated: list[str], went_out: str, forms: dict, wild: str, dealt: int, decks: int) -> dict:
    """A whole round as the table enters it (FC-4, FC-5, FC-6): each seated player's result."""
    for name in [went_out, *forms]:
        if name not in seated:
            raise IllegalMove("FC-5", T("{player} does not play the tie-break round.", player=name))
    missing = [name for name in seated if name != went_out and name not in forms]
    if missing:
        raise InvalidInput(T("'hands' must give the hand of every player who did not go out; missing: {players}.",
                             players=", ".join(missing)))
    results, revealed = {}, []
    for name in seated:
        form = forms.get(name)
        if name == went_out:
            results[name] = _went_out_result(form, wild, dealt, name)
        else:
            results[name] = _scored_result(forms[name], wild, dealt)  # (none is missing)
        revealed += [c for meld in results[name].get("melds", []) for c in meld]
        revealed += results[name].get("leftover", []) + results[name].pop("discard", [])
    _check_count(revealed, decks)
    return results


# ---------------------------------------------------------------- move helpers

def _pass_turn(state: dict, player: str):
    state["to_play"] = _left_in_round(state["players"], state["in_round"], player)
    state["step"] = "draw"


def _copies(card: str, decks: int) -> int:
    return 3 * decks if card == JOKER else decks        # FC-1


def _check_count(cards: list[str], decks: int, already: Counter | None = None):
    seen = Counter(already or {})
    seen.update(cards)
    for card, count in seen.items():
        if count > _copies(card, decks):
            raise IllegalMove("FC-1", T("{card}: the {decks} decks hold {n} of it, but {seen} would be in sight "
                                        "this round.", card=card, decks=decks, n=_copies(card, decks), seen=count))


def _seen(state: dict, except_hand_of: str | None = None) -> Counter:
    """Cards whose place is known this round: the discard pile, cards taken from it, and
    cards laid down or shown at the end of a turn."""
    seen = Counter(state["discard_pile"])
    for name, cards in state["known"].items():
        if name != except_hand_of:
            seen.update(cards)
    for laid in state["laid"].values():
        seen.update(c for meld in laid["melds"] for c in meld)
        seen.update(laid["leftover"])
    return seen


def _check_copies(state: dict, player: str, cards: list[str]):
    """A card shown from ``player``'s hand: those taken from the discard pile are counted
    already; any other copy must still be unaccounted for (FC-1)."""
    fresh = list(cards)
    for card in state["known"][player]:
        if card in fresh:
            fresh.remove(card)
    _check_count(fresh, state["options"]["decks"], _seen(state))


def _forget_known(state: dict, player: str, cards: list[str]):
    for card in cards:
        if card in state["known"][player]:
            state["known"][player].remove(card)


def _reveal(state: dict, player: str, melds, leftover, discard: str):
    """The player's whole hand is shown: melds, leftover, discard. Cards they took from the
    discard pile must be among them (FC-1)."""
    shown = [c for meld in melds for c in meld] + leftover + [discard]
    missing = Counter(state["known"][player]) - Counter(shown)
    if missing:
        raise IllegalMove("FC-1", T("{player} took {cards} from the discard pile: it must be among the cards shown.",
                                    player=player, cards=" ".join(sorted(missing.elements(), key=sort_key))))
    _check_count(shown, state["options"]["decks"], _seen(state, except_hand_of=player))
    state["known"][player] = []
    state["laid"][player] = {"melds": melds, "leftover": leftover, "discard": discard}
    state["discard_pile"].append(discard)
    state["hand_sizes"][player] = 0


_card = in_deck(parse_five_crowns, "FC-1")  # G-3: a card outside the deck cites the deck's ruling


def _event(state: dict, rule: str, text: str):
    state["events"].append({"text": text, "rule": rule})


def _read_hands(value, state: dict) -> dict:
    """``{name: {melds, leftover} | {cards} | {points}}`` of a round result, each form checked."""
    forms = {}
    for name, entry in get_field({"hands": value}, "hands", dict).items():
        if name not in state["players"]:
            raise InvalidInput(T("'{player}' in 'hands' is not a player in this game.", player=name))
        check_keys(entry, {"melds", "leftover", "cards", "points"}, T("hand of {player}", player=name))
        forms[name] = _hand_form(entry, T("hand of {player}", player=name))
    return forms


def _card_list(value, what: str) -> list[str]:
    if not isinstance(value, list):
        raise InvalidInput(T("'{field}' must be a list of card codes.", field=what))
    return [_card(c) for c in value]


def _melds(value, state: dict | None = None) -> list[list[str]]:
    if not isinstance(value, list) or not all(isinstance(m, list) for m in value):
        raise InvalidInput(N_("'melds' must be a list of melds, each a list of card codes."))
    return [_card_list(meld, "melds") for meld in value]


def _check_melds(melds: list[list[str]], wild: str):
    for meld in melds:
        kind, reason = meld_kind(meld, wild)
        if not kind:
            # The issue's own words: "7H 8H 10S: a run needs one suit" (no closing stop).
            raise IllegalMove("FC-3", T("{cards}: {reason}", cards=" ".join(meld) or N_("(empty meld)"), reason=reason))


_HAND_POINTS = Int("points", lo=0, hi=10_000)  # a hand given as its points


def _hand_form(entry: dict, what: str) -> dict:
    """One of {melds, leftover}, {cards} or {points} (the fields ``entry`` may hold have been
    checked by the caller): checked for shape, cards parsed."""
    given = {k for k in ("melds", "leftover", "cards", "points") if k in entry}
    if "points" in given:
        if len(given) > 1:
            raise InvalidInput(T("The {what} gives either points, or cards, or melds and leftover.", what=what))
        try:
            return {"points": _HAND_POINTS.parse(entry["points"], {})}
        except InvalidInput as error:  # its range names no field of the move: said in the words alone
            raise InvalidInput(error.detail, rule=error.rule) from None
    if "cards" in given:
        if len(given) > 1:
            raise InvalidInput(T("The {what} gives either cards, or melds and leftover.", what=what))
        return {"cards": _card_list(entry["cards"], "cards")}
    if not given:
        raise InvalidInput(T("The {what} must give melds and leftover, or cards.", what=what))
    return {"melds": _melds(entry["melds"]) if "melds" in entry else [],
            "leftover": _card_list(entry["leftover"], "leftover") if "leftover" in entry else []}


def _lay_down(form: dict, wild: str, dealt: int):
    """Melds and leftover of a hand of the dealt size, as declared or (FC-6) the best."""
    if "cards" in form:
        cards = form["cards"]
        if len(cards) != dealt:
            raise IllegalMove("FC-4", T("After the last discard a hand holds {dealt} cards, not {given}.",
                                        dealt=dealt, given=len(cards)))
        best = best_lay_down(cards, wild)
        return best.melds, best.leftover, True
    melds, leftover = form["melds"], form["leftover"]
    _check_melds(melds, wild)
    size = sum(len(m) for m in melds) + len(leftover)
    if size != dealt:
        raise IllegalMove("FC-4", T("After the last discard a hand holds {dealt} cards: the melds and leftover "
                                    "give {given}.", dealt=dealt, given=size))
    return melds, leftover, False


def _went_out_result(form: dict | None, wild: str, dealt: int, name: str) -> dict:
    """The player who went out scores 0 (FC-5); a hand given for them must show it (FC-4)."""
    result = {"melds": [], "leftover": [], "points": 0, "went_out": True}
    if form is None:
        return result
    if "points" in form:
        if form["points"]:
            raise IllegalMove("FC-5", T("{player} went out and scores 0, not {points}.", player=name,
                                        points=form["points"]))
        return result
    if "cards" in form:
        cards = form["cards"]
        discard = go_out_discard(cards, wild) if len(cards) == dealt + 1 else None
        if len(cards) == dealt and can_meld_all(cards, wild):
            result["melds"] = best_lay_down(cards, wild).melds
        elif discard:
            rest = list(cards)
            rest.remove(discard)
            result.update(melds=best_lay_down(rest, wild).melds, discard=[discard])
        else:
            raise IllegalMove("FC-4", T("{player} cannot have gone out with {cards}: {dealt} of them must make books "
                                        "and runs.", player=name, cards=" ".join(cards), dealt=dealt))
        return result
    _check_melds(form["melds"], wild)
    melded = sum(len(m) for m in form["melds"])
    if melded != dealt or len(form["leftover"]) > 1:
        raise IllegalMove("FC-4", T("Going out lays down exactly {dealt} cards in books and runs (and at most the "
                                    "discard left over); {player}'s hand lays down {melded} with {leftover} left "
                                    "over.", dealt=dealt, player=name, melded=melded,
                                    leftover=len(form["leftover"])))
    result.update(melds=form["melds"], discard=form["leftover"])
    return result


def _scored_result(form: dict, wild: str, dealt: int) -> dict:
    if "points" in form:
        return {"points": form["points"], "entered": True}
    melds, leftover, solved = _lay_down(form, wild, dealt)
    return {"melds": melds, "leftover": leftover, "solved": solved,
            "points": sum(card_points(c, wild) for c in leftover)}


# ---------------------------------------------------------------- scoring and rounds

def _end_round_from_table(state: dict):
    results = {}
    for name in state["in_round"]:
        laid = state["laid"][name]
        if name == state["went_out"]:
            results[name] = {"melds": laid["melds"], "leftover": [], "points": 0, "went_out": True}
        else:
            results[name] = {"melds": laid["melds"], "leftover": laid["leftover"],
                             "solved": laid.get("solved", False),
                             "points": sum(card_points(c, state["wild"]) for c in laid["leftover"])}
    _finish_round(state, state["went_out"], results)


def _breakdown(result: dict, wild: str) -> list[dict]:
    if result.get("went_out"):
        return [{"rule": "FC-4", "points": 0, "detail": N_("went out: scores 0 (FC-5)")}]
    if result.get("entered"):
        return [{"rule": "FC-5", "points": result["points"], "detail": N_("points entered by the table")}]
    lines = []
    if result.get("solved"):
        lines.append({"rule": "FC-6", "points": 0,
                      "detail": T("best lay-down: {n} meld(s)", n=len(result["melds"]))})
    for card in sorted(result["leftover"], key=sort_key):
        lines.append({"rule": "FC-5", "points": card_points(card, wild),
                      "detail": T("{card} left over: {why}", card=card, why=_why(card, wild))})
    if not result["leftover"]:
        lines.append({"rule": "FC-5", "points": 0, "detail": N_("every card laid down")})
    return lines


def _why(card: str, wild: str) -> str:
    if card == JOKER:
        return N_("a Joker, 50 points")
    if is_wild(card, wild):
        return T("wild ({rank}s), 20 points", rank=wild)
    return T("{n} points", n=card_points(card, wild))


def _round_entry(number: int, wild: str, dealt: int, dealer: str, went_out: str, play_off: bool,
                 results: dict) -> dict:
    """A scored round as ``rounds`` keeps it (its ``totals`` are added by the caller)."""
    return {
        "round": number, "scores": {name: result["points"] for name, result in results.items()},
        "breakdown": {name: _breakdown(result, wild) for name, result in results.items()},
        "wild": wild, "cards_dealt": dealt, "dealer": dealer, "went_out": went_out, "play_off": play_off,
        "hands": {name: ({"points": r["points"]} if r.get("entered") else
                         {"melds": r["melds"], "leftover": r["leftover"]})
                  for name, r in results.items()},
    }


def _finish_round(state: dict, went_out: str, results: dict):
    wild, play_off = state["wild"], state["play_off"]
    results = {name: results[name] for name in state["in_round"]}
    scores = {name: result["points"] for name, result in results.items()}
    if not play_off:
        for name, points in scores.items():
            state["totals"][name] += points
    state["rounds"].append({**_round_entry(state["round"], wild, state["cards_dealt"], state["dealer"], went_out,
                                           play_off, results), "totals": dict(state["totals"])})
    _event(state, "FC-5", T("Round {round} scored: {scores}.", round=state["round"],
                            scores=", ".join(f"{name} {points}" for name, points in scores.items())))
    next_dealer = left_of(state["players"], state["dealer"])     # FC-7
    if play_off:
        _finish_game(state, scores)
    elif state["round"] < ROUNDS:
        _start_round(state, state["round"] + 1, next_dealer, list(state["players"]), False)
    else:
        low = min(state["totals"].values())
        tied = [name for name in state["players"] if state["totals"][name] == low]
        if len(tied) > 1 and state["options"]["tie_break"] == "play_off":
            _start_round(state, ROUNDS + 1, next_dealer, tied, play_off=True)
        else:
            _finish_game(state, state["totals"])


def _finish_game(state: dict, scores: dict):
    low = min(scores.values())
    state.update(to_play=None, step=None, stock=None,
                 winners=[name for name in state["players"] if scores.get(name) == low])
    _set_phase(state)


# ---------------------------------------------------------------- the table's corrections (T-1, T-2)

def _correct_round(state: dict, move: dict):
    """T-1: a finished round scored again from a whole-round entry, with that round's wild rank,
    cards dealt and seats (FC-4, FC-5, FC-6); the totals, and the end of the game, follow."""
    index = round_index(state, move["round"], state["round"])
    old = state["rounds"][index]
    seated = list(old["scores"])
    results = _results_of(seated, move["went_out"], move["hands"], old["wild"], old["cards_dealt"],
                          state["options"]["decks"])
    entry = _round_entry(old["round"], old["wild"], old["cards_dealt"], old["dealer"], move["went_out"],
                         old["play_off"], results)
    delta = replace_round(state, index, entry, move["reason"], counts=not old["play_off"])
    for name, points in delta.items():
        state["totals"][name] += points
    _settle(state, "T-1")


def _adjust(state: dict, player: str, points: int) -> int:
    """T-2: penalty points, like a round's: lowest total wins (FC-5)."""
    state["totals"][player] += points
    _settle(state, "T-2")
    return state["totals"][player]


def _settle(state: dict, rule: str):
    """After a correction or an adjustment (T-1, T-2), the end of the game follows the totals once
    the eleven rounds are scored (FC-5): the lowest total wins, or those tied for it share or play
    off. A play-off already under way is played again among the new tied players (or dropped when
    nobody ties); one already scored still decides among the players it seated."""
    eleven = [entry for entry in state["rounds"] if not entry["play_off"]]
    if len(eleven) < ROUNDS:
        return
    low = min(state["totals"].values())
    tied = [name for name in state["players"] if state["totals"][name] == low]
    play_off = len(tied) > 1 and state["options"]["tie_break"] == "play_off"
    scored = next((entry for entry in state["rounds"] if entry["play_off"]), None)
    if scored is not None:
        if play_off and not set(tied) <= set(scored["scores"]):
            raise IllegalMove(rule, T("With this change {tied} tie for the lowest total after round 11, but the "
                                      "play-off round was played among {seated} only (FC-5): it cannot decide.",
                                      tied=and_names(tied), seated=and_names(list(scored["scores"]))))
        state["play_off"] = True
        _finish_game(state, {name: scored["scores"][name] for name in tied} if play_off
                     else {name: state["totals"][name] for name in tied})
        return
    if play_off and state["play_off"] and state["in_round"] == tied:
        return  # the play-off under way is still among the tied players
    last = eleven[-1]
    if state["play_off"]:  # the play-off under way is dropped: back to the end of round 11
        state.update(round=last["round"], wild=last["wild"], cards_dealt=last["cards_dealt"], dealer=last["dealer"],
                     in_round=list(state["players"]), play_off=False, discard_pile=[], went_out=None,
                     final_turns_left=[], laid={}, known={name: [] for name in state["players"]},
                     hand_sizes={name: 0 for name in state["players"]})
    if play_off:
        _start_round(state, ROUNDS + 1, left_of(state["players"], last["dealer"]), tied, play_off=True)
        _event(state, "FC-5", T("{tied} now tie for the lowest total: they play off (round 12).",
                                tied=and_names(tied)))
    else:
        _finish_game(state, state["totals"])


# ---------------------------------------------------------------- views

def standings(state: dict) -> dict:
    return dict(state["totals"])


def public_view(state: dict) -> dict:
    step = state["step"]
    if step == "discard" and state["went_out"]:
        step = "final_turn"
    pile = state["discard_pile"]
    finished = state["phase"] == "finished"
    return {
        "round": state["round"], "to_play": state["to_play"],
        "standings": standings(state),
        "rounds": copy.deepcopy(state["rounds"]),
        "wild": state["wild"], "cards_dealt": state["cards_dealt"],
        "dealer": state["dealer"], "step": step, "play_off": state["play_off"],
        "in_round": list(state["in_round"]),
        "discard_top": None if finished or not pile else pile[-1],
        "discard_pile_size": 0 if finished else len(pile),
        "draw_pile": None if finished else state["stock"],
        "hand_sizes": {} if finished else dict(state["hand_sizes"]),
        "went_out": None if finished else state["went_out"],
        "final_turns_left": [] if finished else list(state["final_turns_left"]),
        "laid_down": {} if finished else copy.deepcopy(state["laid"]),
        "known_cards": {} if finished else {n: list(c) for n, c in state["known"].items() if c},
        "decks": state["options"]["decks"], "tie_break": state["options"]["tie_break"],
    }


_PER_PLAYER_CARDS = {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}}
VIEW = (
    shown("wild", {"type": "string"}, "The round's wild rank (FC-2; a tie-break round: 6, FC-5)."),
    shown("cards_dealt", {"type": "integer"}, "The cards each player is dealt this round (FC-2)."),
    vocabulary.DEALER,
    shown("step", {"type": "string", "enum": ["deal", "draw", "discard", "final_turn"]},
          "Where the turn is: the deal, a draw, a discard, or a final turn after someone went out (FC-4).",
          nullable=True),
    shown("play_off", {"type": "boolean"}, "True in a tie-break round (FC-5)."),
    shown("in_round", vocabulary.PLAYER_NAMES, "Who plays this round (all, or the tied players of a tie-break)."),
    vocabulary.discard_top(),
    vocabulary.discard_pile_size(),
    vocabulary.DRAW_PILE,
    vocabulary.HAND_SIZES,
    shown("went_out", {"type": "string"}, "Who went out this round, or null (FC-4).", nullable=True),
    shown("final_turns_left", vocabulary.PLAYER_NAMES, "Who still has a final turn, in order (FC-4)."),
    shown("laid_down", {"type": "object", "additionalProperties": {"type": "object"}},
          "The melds and leftover each player showed this round (FC-4)."),
    shown("known_cards", _PER_PLAYER_CARDS, "Cards known to be in a hand (taken from the discard pile)."),
    shown("decks", {"type": "integer"}, "The decks in play (FC-1, FC-8)."),
    shown("tie_break", {"type": "string", "enum": ["share", "play_off"]}, "How a tie for the win is settled (FC-5)."),
)


def outcome(state: dict):
    if state["phase"] == "finished":
        return finished(state["winners"], N_("eleven rounds have been played and the tie-break round.")
                        if state["play_off"] else N_("eleven rounds have been played."), "FC-5")
    return in_progress()


# ---------------------------------------------------------------- who may move, and with what

_ANY_TIME = ("round_result",)  # a table that only keeps score records a round at once
_TABLE = ("adjust", "correct_round")  # the table's own moves, in every phase and after the end (T-1, T-2)
PHASES = {
    "deal": ("deal", *_ANY_TIME, *_TABLE),
    "draw": ("draw", *_ANY_TIME, *_TABLE),
    "discard": ("discard", "go_out", *_ANY_TIME, *_TABLE),
    "final_draw": ("draw", *_TABLE),
    "final_turn": ("final_turn", *_TABLE),
    "finished": _TABLE,
}


def actors(state: dict, kind: str) -> list[str] | None:
    return [state["to_play"]] if state["to_play"] else []


def refuse_phase(state: dict, kind: str) -> IllegalMove:
    phase, player, gone = state["phase"], state["to_play"], state["went_out"]
    if phase == "deal":
        return IllegalMove("G-2", T("Round {round} has not been dealt yet: record the first face-up discard with a "
                                    "deal move.", round=state["round"]))
    if kind == "deal":
        return IllegalMove("G-2", T("Round {round} has already been dealt.", round=state["round"]))
    if kind == "round_result":
        return IllegalMove("FC-4", T("{player} has gone out: record the final turns that are left ({players}).",
                                     player=gone, players=", ".join(state["final_turns_left"])))
    if kind == "draw":
        return IllegalMove("FC-4", T("{player} has drawn already: the turn goes on with a discard (final_turn).",
                                     player=player) if gone else
                           T("{player} has drawn already: the turn goes on with a discard.", player=player))
    if phase in ("draw", "final_draw"):
        return IllegalMove("FC-4", T("{player} must draw first (from the stock or the discard pile).", player=player),
                           legal=moves_instead(GAME, state, ("draw",)))
    if kind == "discard":
        return IllegalMove("FC-4", T("{gone} has gone out: this is {player}'s final turn; record it with final_turn "
                                     "(melds, leftover and the discard, or the cards alone).", gone=gone,
                                     player=player))
    if kind == "go_out":
        return IllegalMove("FC-4", T("{gone} has already gone out: this is {player}'s final turn; record it with "
                                     "final_turn.", gone=gone, player=player))
    return IllegalMove("FC-4", N_("Nobody has gone out yet: a turn ends with a discard, or with go_out."))


def refuse_actor(state: dict, kind: str, player: str) -> IllegalMove:
    if player not in state["in_round"]:
        return IllegalMove("FC-5", T("{player} does not play the tie-break round.", player=player))
    return IllegalMove("G-1", T("It is {to_play}'s turn, not {player}'s.", to_play=state["to_play"], player=player),
                       legal={"player": [state["to_play"]]})


def choices(state: dict, kind: str) -> dict:
    """Where a draw may come from (FC-7), and who may have gone out in a round result. A hand that
    has drawn may go out (``go_out`` is listed) until someone has: the service cannot see the
    hand, so whether its cards make books and runs is checked when they are shown (FC-4)."""
    if kind == "draw":
        pile = state["discard_pile"]
        return {"source": (["stock"] if state["stock"] or len(pile) > 1 else []) + (["discard"] if pile else [])}
    if kind == "round_result":
        return {"went_out": list(state["in_round"])}
    return {}


def _check_final_turn(move: dict) -> None:
    """One hand form (melds and leftover, or cards); the discard may be left out only with the
    cards alone, which then hold it (FC-4, FC-6)."""
    form = _hand_form(move, N_("move"))
    if move.get("discard") is None and "cards" not in form:
        raise InvalidInput(N_("Missing field 'discard': give the discard with melds and leftover, or send the "
                              "cards alone (the discard among them) for the service to find it (FC-6)."))


def _check_going_out(move: dict) -> None:
    if ("melds" in move) == ("cards" in move):
        raise InvalidInput(N_("Going out gives either 'melds' and 'discard', or 'cards' (and optionally "
                              "'discard')."))
    if "melds" in move and move.get("discard") is None:
        raise InvalidInput(T("Missing field '{field}'.", field="discard"))


def _then_phase(handler):
    """Every move ends with the phase that its step and the went-out player now give."""
    def run(state: dict, move: dict):
        handler(state, move)
        _set_phase(state)
    return run


_CARD = {"type": "string", "example": "QD"}
_MELDS = {"type": "array", "items": {"type": "array", "items": _CARD}, "maxItems": 20,
          "example": [["7H", "8H", "9H"], ["QD", "QS", "J*"]]}
_HAND = {"type": "object", "additionalProperties": False,
         "description": "{melds, leftover} as declared, {cards} for the best lay-down (FC-6), or {points}.",
         "properties": {"melds": _MELDS, "leftover": {"type": "array", "items": _CARD},
                        "cards": {"type": "array", "items": _CARD},
                        "points": {"type": "integer", "minimum": 0, "maximum": 10000}}}
_ROUND_RESULT = (
    Player("went_out"),
    Shaped("hands", shape={"type": "object", "additionalProperties": _HAND,
                           "description": "The hand of every player who did not go out."},
           read=_read_hands))


def _inside_round(state: dict) -> Text | None:
    """T-4: a dealt round is finished as it began, move by move, or entered whole (round_result)."""
    if state["phase"] == "deal":
        return None
    return T("round {round} has been dealt: finish it move by move, or enter it whole (round_result).",
             round=state["round"])


def _correctable(state: dict) -> dict | None:
    """The finished rounds a correction may replace (T-1)."""
    done = [entry["round"] for entry in state["rounds"]]
    return {"round": done} if done else None


MOVES = {
    "deal": Move(
        _then_phase(_deal), (Card("discard", read=_card, example="KH"),),
        N_("The round's first face-up discard (the table deals the cards)."), ("G-2", "FC-2"),
        label=N_("Deal"), says=lambda move, show: T("Deal: first discard {card}", card=show(move.get("discard"))),
        actor=None),
    "draw": Move(
        _then_phase(_draw), (Player("player"), Choice("source", choices=("stock", "discard"))),
        N_("A player draws from the stock or takes the discard pile's top card."), ("FC-4", "FC-7"),
        label=N_("Draw"), says=lambda move, show: _says_draw(move)),
    "discard": Move(
        _then_phase(_discard), (Player("player"), Card("card", read=_card, example="9S")),
        N_("A player ends their turn with a discard."), ("FC-4",), label=N_("Discard"),
        says=N_("{player} discards {card}")),
    "go_out": Move(
        _then_phase(_go_out), (
            Player("player"), Shaped("melds", required=False, shape=_MELDS, read=_melds),
            Cards("cards", required=False, read=_card, example=["7H", "8H", "9H", "KS"],
                  description=N_("The hand alone (with or without the discard): the service finds the melds "
                                 "(FC-6) and, when no discard is given, the discard.")),
            Card("discard", required=False, read=_card, example="9S")),
        N_("A player lays down all the dealt-size cards in books and runs and discards the last one: the "
           "melds and the discard, or the cards alone."), ("FC-3", "FC-4", "FC-6"), label=N_("Go out"),
        check=_check_going_out,
        says=lambda move, show: (T("{player} goes out, discarding {card}", player=move.get("player"),
                                   card=show(move["discard"])) if move.get("discard") else
                                 T("{player} goes out", player=move.get("player")))),
    "final_turn": Move(
        _then_phase(_final_turn), (
            Player("player"),
            Shaped("melds", required=False, shape=_MELDS, read=_melds),
            Cards("leftover", required=False, read=_card, example=["KS"]),
            Cards("cards", required=False, read=_card, example=["7H", "8H", "9H", "KS"],
                  description=N_("The hand alone (with or without the discard): the service lays down the "
                                 "best (FC-6) and, when no discard is given, finds the discard that leaves "
                                 "the lowest score.")),
            Card("discard", required=False, read=_card, example="9S",
                 description=N_("Required with melds and leftover; with the cards alone it may be left out."))),
        N_("After someone went out, a player's last turn: melds, leftover and the discard, or the cards alone "
           "(with or without the discard) for the service to lay down the best."), ("FC-4", "FC-6"),
        label=N_("Final turn"), check=_check_final_turn,
        says=lambda move, show: (T("{player} takes a final turn, discarding {card}", player=move.get("player"),
                                   card=show(move["discard"])) if move.get("discard") is not None else
                                 T("{player} takes a final turn, the service finding the discard",
                                   player=move.get("player")))),
    "round_result": Move(
        _then_phase(_round_result), _ROUND_RESULT,
        N_("A whole round for tables that only keep score: who went out and every other hand."),
        ("FC-4", "FC-5", "FC-6"), label=N_("Round result"), says=N_("Round result: {went_out} went out"), actor=None),
    "correct_round": correction_move(
        _correct_round, _ROUND_RESULT,
        N_("A finished round's result entered wrong, replaced: the round, why, and the round again as a round "
           "result gives it (who went out, every other hand), scored with that round's wild rank; the totals "
           "follow (T-1)."), ("FC-4", "FC-5", "FC-6"), _correctable, ROUNDS + 1),
    "switch_record": record_move(_inside_round),
    "adjust": adjust_move(_adjust, N_("A point is a penalty point, as a round scores them: the lowest total "
                                      "wins (FC-5).")),
}


def _says_draw(move: dict) -> str:
    if move.get("source") == "stock":
        return T("{player} draws from the stock", player=move.get("player"))
    if move.get("source") == "discard":
        return T("{player} draws from the discard", player=move.get("player"))
    return T("{player} draws from the {source}", player=move.get("player"), source=move.get("source"))



# ---------------------------------------------------------------- dispute verdicts

def _one_wild(values: dict) -> None:
    if (values["round"] is None) == (values["wild"] is None):
        raise InvalidInput(N_("Give either 'round' (1-11) or 'wild' (a rank, 3 to K)."))


def _judge_input(values: dict) -> tuple[str, list[str]]:
    wild = wild_rank_of_round(values["round"]) if values["round"] is not None else values["wild"]
    _check_count(values["cards"], values["decks"])
    return wild, values["cards"]


def _judged_cards(lo: int, hi: int):
    """The cards a verdict judges: ``lo`` to ``hi`` codes of the deck (FC-1)."""
    def read(value, state) -> list[str]:
        check_type("cards", value, list)
        if not lo <= len(value) <= hi:
            raise InvalidInput(T("'cards' must hold {lo} to {hi} cards.", lo=lo, hi=hi))
        return _card_list(value, "cards")

    return read


def _wild_rank(value) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str):
        text = value.strip().upper()
        text = {"T": "10", "JACK": "J", "QUEEN": "Q", "KING": "K"}.get(text, text)
        if text in RANKS:
            return text
    raise InvalidInput(N_("'wild' must be a rank from 3 to K (3, 4, ..., 10, J, Q, K) (FC-2)."), rule="FC-2")


def _answer_hand(values: dict) -> dict:
    wild, cards = _judge_input(values)
    best = best_lay_down(cards, wild)
    # FC-4: going out lays down the dealt number of cards (three at least) and discards one
    # more, so fewer than four cards never go out (a lone card is no lay-down).
    discard = go_out_discard(cards, wild) if len(cards) >= 4 else None
    melds = "; ".join(" ".join(meld) for meld in best.melds) or N_("no meld")
    says = [T("Best lay-down: {melds}; {points} points left over ({leftover}) (FC-6).", melds=melds,
              points=best.points, leftover=" ".join(best.leftover) or N_("nothing"))]
    says.append(T("It goes out discarding {card} (FC-4).", card=discard) if discard else
                N_("It cannot go out: no discard leaves every other card in books and runs (FC-4)."))
    return {"min_points": best.points, "melds": best.melds, "leftover": best.leftover,
            "can_go_out": discard is not None, "go_out_discard": discard, "says": joined(says, " ")}


def _answer_meld(values: dict) -> dict:
    wild, cards = _judge_input(values)
    kind, reason = meld_kind(cards, wild)
    shown = " ".join(cards) or N_("(no cards)")
    if kind:
        named = [T("{card} standing in for the {rank}", card=card, rank=rank)
                 for card, rank in stand_ins(cards, wild, kind) if rank_of(card) != rank or card == JOKER]
        what = N_("a run") if kind == "run" else T("a book of {rank}s", rank=_book_rank(cards, wild))
        if all(is_wild(card, wild) for card in cards):
            says = T("Yes: {cards} are all wild cards, and a meld of wild cards alone is legal (FC-3).", cards=shown)
        else:
            says = (T("Yes: {cards} is {what}, {stand_ins} (FC-3).", cards=shown, what=what,
                      stand_ins=and_names(named))
                    if named else T("Yes: {cards} is {what} (FC-3).", cards=shown, what=what))
        return {"legal": True, "kind": kind, "reason": None, "rule": None, "says": says}
    reason = T("{cards}: {reason}", cards=shown, reason=reason)
    return {"legal": False, "kind": None, "reason": reason, "rule": "FC-3",
            "says": T("No: {reason} (FC-3).", reason=reason)}


def _book_rank(cards: list[str], wild: str) -> str:
    naturals = [rank_of(c) for c in cards if not is_wild(c, wild)]
    return naturals[0] if naturals else wild


_CARDS_SCHEMA = {"type": "array", "items": {"type": "string"}, "example": ["8D", "QD", "Q*"]}


def _judge_fields(lo: int, hi: int) -> tuple:
    """A verdict's request: the wild rank, by its round or named, the cards and the decks in play."""
    return (
        Int("round", N_("The round (1-11); its rank is wild (FC-2). Give round or wild."), required=False,
            lo=1, hi=ROUNDS, rule="FC-2", title=N_("Round")),
        Shaped("wild", N_("The wild rank, 3 to K. Give round or wild."), required=False, shape={"type": "string"},
               read=lambda value, state: _wild_rank(value), title=N_("Wild rank")),
        Shaped("cards", shape={**_CARDS_SCHEMA}, read=_judged_cards(lo, hi), title=N_("Cards")),
        Choice("decks", N_("Decks in play, for the copy count (FC-1)."), required=False, choices=DECK_CHOICES,
               default=2, rule="FC-8", title=N_("Decks")),  # G-3
    )


JUDGES = {
    "hand": Judge(
        _answer_hand,
        N_("The best lay-down of a hand (FC-6): least points left over, one lay-down reaching it, "
           "and whether the hand can go out (FC-4) with which discard."),
        fields=_judge_fields(1, MAX_JUDGED_HAND), check=_one_wild,
        response={"type": "object",
                  "required": ["min_points", "melds", "leftover", "can_go_out", "go_out_discard", "says"],
                  "properties": {
                      "says": SAYS,
                      "min_points": {"type": "integer"},
                      "melds": {"type": "array", "items": _CARDS_SCHEMA},
                      "leftover": _CARDS_SCHEMA,
                      "can_go_out": {"type": "boolean"},
                      "go_out_discard": {"type": "string", "nullable": True}}},
        example={"round": 5, "cards": ["9D", "7C", "JD", "KS"]}),
    "meld": Judge(
        _answer_meld,
        N_("Is this a legal book or run (FC-3)?"),
        fields=_judge_fields(0, MAX_JUDGED_MELD), check=_one_wild,
        response={"type": "object", "required": ["legal", "kind", "reason", "rule", "says"],
                  "properties": {
                      "says": SAYS,
                      "legal": {"type": "boolean"},
                      "kind": {"type": "string", "enum": ["book", "run", None], "nullable": True},
                      "reason": {"type": "string", "nullable": True},
                      "rule": {"type": "string", "nullable": True}}},
        example={"wild": "8", "cards": ["8D", "QD", "Q*"], "decks": 2}),
}
judge_hand, judge_meld = JUDGES["hand"].fn, JUDGES["meld"].fn  # a request as a client sends it


# ---------------------------------------------------------------- the group's stats

def count_figures(final: dict, steps) -> dict:
    """Rounds the player went out in (FC-4), the tie-break round included."""
    return {p: {"rounds_out": sum(1 for r in final["rounds"] if r.get("went_out") == p)} for p in final["players"]}


FIGURES = Figures(count_figures, labels={"rounds_out": N_("Rounds gone out")})


GAME = Game(module=__name__, name=NAME, title=TITLE, players=PLAYERS, options=OPTIONS, rulings=RULINGS, moves=MOVES,
            phases=PHASES, judges=JUDGES, view=VIEW, new_game=new_game, public_view=public_view, standings=standings,
            outcome=outcome, first_deal=FIRST_DEAL, whole_round=WHOLE_ROUND, lower_is_better=LOWER_IS_BETTER,
            actors=actors, choices=choices, refuse_phase=refuse_phase, refuse_actor=refuse_actor,
            figures=FIGURES)
