"""69 game flow: deal, plays, chances and steals, captures, flips, Scramble, round end.

The state is plain JSON data. Hands are hidden: the service tracks hand sizes, the deck count
and every card that has become public this round (table and captures), so a card already seen
cannot be played again (S69-1).

Phases: ``round_over`` (between rounds: waiting for a deal, also before the first one, or for a
round entered whole, T-4), ``turn`` (``to_play`` plays, passes or scrambles), ``scramble`` (a
Scramble just arrived: the player who put it there, ``pending_scramble``, rearranges or declines,
and no one else moves, S69-9), ``chances`` (``to_play`` may add cards to complete sets), ``flip``
(the capturer flips), ``finished``.

The handlers receive moves already checked by the engine contract (``referee.rules.base``): the
phase accepts them and the right player makes them.
"""
from __future__ import annotations

from collections import Counter

from referee import cards as card_codes
from referee.rules import base
from referee.rules.base import IllegalMove, InvalidInput
from referee.texts import N_, T, joined
from referee.rules.sixty_nine.scoring import score_round
from referee.rules.sixty_nine.sets import (COMPLETE_AT, DECK_SIZE, LOCK, MAX_SET, SCRAMBLE,
                                           check_copies, read_set)

HAND_SIZE = 10  # ten cards each at the deal


# ---------------------------------------------------------------- small helpers

def left(state: dict, name: str) -> str:
    return base.left_of(state["players"], name)


def right(state: dict, name: str) -> str:
    return base.left_of(state["players"], name, -1)


parse_card = base.in_deck(card_codes.parse_sixty_nine, "S69-1")  # G-3


def parse_cards(codes, what: str) -> list[str]:
    return card_codes.parse_list(codes, parse_card, what)


def parse_set_id(value) -> int:
    """Set ids are small integers; JSON object keys bring them as strings."""
    if isinstance(value, bool):
        raise InvalidInput(N_("A set id must be an integer."))
    if isinstance(value, int):
        return value
    text = value.strip() if isinstance(value, str) else ""
    if 0 < len(text) <= 9 and all(ch in "0123456789" for ch in text):
        return int(text)
    raise InvalidInput(T("'{value}' is not a set id (set ids are integers such as 3).", value=value))


def public_cards(state: dict) -> list[str]:
    """Every card public this round: on the table or captured."""
    seen = [c for s in state["table"] for c in s["cards"]]
    for sets in state["captured"].values():
        seen.extend(c for s in sets for c in s["cards"])
    return seen


def find_set(state: dict, set_id: int) -> dict | None:
    return next((s for s in state["table"] if s["id"] == set_id), None)


def open_sets(state: dict) -> list[dict]:
    """Complete sets waiting for chances (S69-4)."""
    return [s for s in state["table"] if s["complete"]]


def take_from_hand(state: dict, player: str, count: int, rule: str) -> None:
    held = state["hand_sizes"][player]
    if count > held:
        raise IllegalMove(rule, T("{player} holds only 1 card, not {n}.", player=player, n=count) if held == 1 else
                          T("{player} holds only {held} cards, not {n}.", player=player, held=held, n=count))
    state["hand_sizes"][player] = held - count
    if held - count == 0 and state["emptied"] is None:
        state["emptied"] = player  # S69-12: the next dealer sits left of this player


def any_hand_empty(state: dict) -> bool:
    return any(size == 0 for size in state["hand_sizes"].values())


def new_set(state: dict, cards: list[str], set_id: int | None = None) -> dict:
    if set_id is None:
        set_id = state["next_set_id"]
        state["next_set_id"] += 1
    reading, _ = read_set(cards)
    return {"id": set_id, "cards": cards, "reading": reading, "complete": False,
            "claimant": None, "count": None, "locked": False}


def mark_complete(table_set: dict, claimant: str, count: int) -> None:
    """S69-4 claim; S69-5 a Lock freezes the claim of a complete set."""
    table_set.update(complete=True, claimant=claimant, count=count, locked=LOCK in table_set["cards"])


# ---------------------------------------------------------------- state

def initial_state(players: list[str], options: dict) -> dict:
    dealer = base.player_option(options, "dealer", players) or players[-1]  # G-2
    return {
        "players": players, "options": {**options, "dealer": dealer},  # options hold what was resolved
        "phase": "round_over", "round": 1, "to_play": dealer, "dealer": dealer,
        "table": [], "captured": {p: [] for p in players},
        "hand_sizes": {p: 0 for p in players}, "deck": DECK_SIZE,
        "next_set_id": 1, "chance_to": None, "pending_scramble": None,
        "last_capturer": None, "emptied": None, "pulls": [],
        "totals": {p: 0 for p in players}, "rounds": [], "winners": [],
        "record": options.get("record") or "moves",  # T-4: every act, or each round whole
    }


# ---------------------------------------------------------------- moves

def deal(state: dict, move: dict) -> None:
    dealer, flip = move["dealer"], move["flip"]
    players = state["players"]
    state.update(table=[], captured={p: [] for p in players},
                 hand_sizes={p: HAND_SIZE for p in players},
                 deck=DECK_SIZE - HAND_SIZE * len(players) - 1,
                 next_set_id=1, chance_to=None, pending_scramble=None,
                 last_capturer=None, emptied=None, pulls=[])
    state["table"].append(new_set(state, [flip]))
    if flip == SCRAMBLE:
        # S69-9: a Scramble flipped at the deal is used by the dealer.
        state.update(phase="scramble", to_play=dealer, pending_scramble=dealer)
    else:
        state.update(phase="turn", to_play=left(state, dealer))


def play(state: dict, move: dict) -> None:
    player, set_id, cards = move["player"], move.get("set"), move["cards"]
    if set_id is None:
        raise IllegalMove("S69-3", N_("A play goes into a set already on the table (name it in 'set'): "
                                      "a play never starts a new set, only flips do."),
                          legal={"set": [s["id"] for s in state["table"]]})
    target = find_set(state, set_id)
    if target is None:
        raise IllegalMove("S69-3", T("There is no set {set} on the table; a play goes into a set already there "
                                     "(new sets only come from flips).", set=set_id),
                          legal={"set": [s["id"] for s in state["table"]]})
    check_copies(cards, public_cards(state))
    grown = target["cards"] + cards
    reading, reason = read_set(grown)
    if reading is None:
        raise IllegalMove("S69-2", T("Set {set} would not be legal: {reason}", set=set_id, reason=reason))
    take_from_hand(state, player, len(cards), "S69-3")
    target.update(cards=grown, reading=reading)
    if len(grown) >= COMPLETE_AT:
        # S69-4, S69-9: a Scramble counts as one card for every set it completes, however many
        # cards came with it (the same claim as a 'scramble' move that adds those cards).
        mark_complete(target, player, 1 if SCRAMBLE in cards else len(cards))
    if SCRAMBLE in cards:
        # S69-9: the player who brought the Scramble rearranges or declines first, then the
        # chances (if a set is complete) or the next turn.
        state.update(phase="scramble", to_play=player, pending_scramble=player)
    elif target["complete"]:
        start_chances(state, player)
    else:
        next_turn(state, player)


def pass_turn(state: dict, move: dict) -> None:
    flip_card(state, move["player"], move["flip"])


def flip(state: dict, move: dict) -> None:
    flip_card(state, move["player"], move["card"])


def flip_card(state: dict, flipper: str, card: str) -> None:
    """S69-7 flip; S69-8 from the right-hand neighbour's hand when the deck is empty."""
    check_copies([card], public_cards(state))
    if state["deck"] > 0:
        state["deck"] -= 1
    else:
        donor = right(state, flipper)
        take_from_hand(state, donor, 1, "S69-8")
        state["pulls"].append({"by": flipper, "from": donor, "card": card})
    state["table"].append(new_set(state, [card]))
    if any_hand_empty(state):
        end_round(state)  # S69-10: a pull may empty a hand
    elif card == SCRAMBLE:
        # S69-9: a flipped Scramble (a pulled one too) is the flipper's to use at once.
        state.update(phase="scramble", to_play=flipper, pending_scramble=flipper)
    else:
        state.update(phase="turn", to_play=left(state, flipper))


def next_turn(state: dict, player: str) -> None:
    """After a move that completes nothing the turn passes left (S69-7), unless a hand is
    empty (S69-10)."""
    if any_hand_empty(state):
        end_round(state)
    else:
        state.update(phase="turn", to_play=left(state, player), chance_to=None)


# ---------------------------------------------------------------- scramble (S69-9)

def scramble(state: dict, move: dict) -> None:
    player, from_hand, arrangement = move["player"], move.get("from_hand") or [], move.get("arrangement")
    pending = state["phase"] == "scramble"
    if not pending and SCRAMBLE not in from_hand:
        raise IllegalMove("S69-9", N_("Only a Scramble lets a player rearrange the table: play one from "
                                      "your hand in 'from_hand', or play normally."))
    if arrangement is None:
        if not pending or from_hand:
            raise InvalidInput(N_("Missing field 'arrangement' (the whole table, set by set)."), rule="S69-9")
        state["pending_scramble"] = None  # S69-9: declined; the table stays as it is
        if open_sets(state):
            start_chances(state, player)  # the play that brought it completed a set
        else:
            next_turn(state, player)
        return
    check_copies(from_hand, public_cards(state))
    table_cards = [c for s in state["table"] for c in s["cards"]]
    check_arrangement(arrangement, table_cards, from_hand)
    take_from_hand(state, player, len(from_hand), "S69-9")
    state["table"] = rebuild_table(state, arrangement)
    state["pending_scramble"] = None
    for table_set in state["table"]:
        if len(table_set["cards"]) >= COMPLETE_AT:
            mark_complete(table_set, player, 1)  # a Scramble counts as one card per set
    if open_sets(state):
        start_chances(state, player)
    else:
        next_turn(state, player)


def parse_arrangement(value, state: dict | None = None) -> list[list[str]] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not value:
        raise InvalidInput(N_("'arrangement' must be a non-empty list of sets, each a list of card codes."))
    groups = []
    for group in value:
        if not isinstance(group, list) or not group:
            raise InvalidInput(N_("Each set of 'arrangement' must be a non-empty list of card codes."))
        groups.append(parse_cards(group, "arrangement"))
    return groups


def check_arrangement(arrangement: list[list[str]], table_cards: list[str], from_hand: list[str]) -> None:
    """Every table card and every card from the hand lies in exactly one legal set."""
    placed = Counter(c for group in arrangement for c in group)
    expected = Counter(table_cards) + Counter(from_hand)
    missing, extra = expected - placed, placed - expected
    if missing or extra:
        parts = []
        if missing:
            parts.append(T("missing {cards}", cards=", ".join(sorted(missing.elements()))))
        if extra:
            parts.append(T("not on the table nor in 'from_hand': {cards}", cards=", ".join(sorted(extra.elements()))))
        raise IllegalMove("S69-9", T("The arrangement must hold every table card and every card from the hand "
                                     "exactly once ({problems}).", problems=joined(parts, "; ")))
    for number, group in enumerate(arrangement, 1):
        reading, reason = read_set(group)
        if reading is None:
            raise IllegalMove("S69-2", T("Set {n} of the arrangement is not legal: {reason}", n=number, reason=reason))
    anchors = Counter(table_cards) + Counter(c for c in from_hand if c == SCRAMBLE)
    if not every_group_anchored(arrangement, anchors):
        # S69-9: "in a rearrangement every set must hold at least one card that was already on the
        # table, the arriving Scramble counting as on the table".
        raise IllegalMove("S69-9", N_("Every set of the arrangement needs a card that was on the table "
                                      "(or the arriving Scramble): cards from a hand never start a new set."))


def every_group_anchored(groups: list[list[str]], anchors: Counter) -> bool:
    """Match each group to a distinct anchor card it holds (augmenting paths; tiny inputs)."""
    copies = [card for card, n in anchors.items() for _ in range(n)]
    owner: dict[int, int] = {}

    def place(g: int, tried: set) -> bool:
        for i, card in enumerate(copies):
            if card in groups[g] and i not in tried:
                tried.add(i)
                if i not in owner or place(owner[i], tried):
                    owner[i] = g
                    return True
        return False

    return all(place(g, set()) for g in range(len(groups)))


def rebuild_table(state: dict, arrangement: list[list[str]]) -> list[dict]:
    """New sets keep the id of an old set with exactly the same cards; others get new ids."""
    old = {s["id"]: Counter(s["cards"]) for s in state["table"]}
    table = []
    for group in arrangement:
        kept = next((sid for sid, cards in old.items() if cards == Counter(group)), None)
        if kept is not None:
            del old[kept]
        table.append(new_set(state, group, kept))
    return table


# ---------------------------------------------------------------- chances (S69-4, S69-5, S69-6)

def start_chances(state: dict, claimer: str) -> None:
    capture_full_sets(state)
    if open_sets(state):
        state["chance_to"] = claimer
        advance_chance(state)
    else:
        captures_done(state)


def chance(state: dict, move: dict) -> None:
    player = move["player"]
    additions = resolve_targets(state, chance_additions(move))
    new_cards = [c for _, cards in additions for c in cards]
    check_copies(new_cards, public_cards(state))
    grown = {}
    for table_set, cards in additions:
        reading, reason = read_set(table_set["cards"] + cards)
        if reading is None:
            raise IllegalMove("S69-2", T("Set {set} would not be legal: {reason}", set=table_set["id"], reason=reason))
        grown[table_set["id"]] = reading
    take_from_hand(state, player, len(new_cards), "S69-4")
    for table_set, cards in additions:
        add_in_chance(table_set, player, cards, grown[table_set["id"]])
    capture_full_sets(state)
    if open_sets(state):
        advance_chance(state)
    else:
        captures_done(state)


def pass_chances(state: dict, move: dict) -> None:
    """One entry for a round of empty chances (S69-4): every player in turn adds nothing, until
    the chances end or, when ``until`` is named, until it is that player's chance."""
    until = move.get("until")
    if until == state["to_play"]:
        raise IllegalMove("S69-4", T("It is already {player}'s chance: nobody before them is left to pass.",
                                     player=until))
    passed = []
    while state["phase"] == "chances" and state["to_play"] != until:
        passed.append(state["to_play"])
        advance_chance(state)
    if until is not None and state["phase"] != "chances":
        raise IllegalMove("S69-4", T("The chances end before {player}'s turn comes: record who adds cards, or that "
                                     "nobody else adds.", player=until))
    state["events"].append({"rule": "S69-4", "text": T("{players} add nothing.", players=", ".join(passed))})


def check_chance(move: dict) -> None:
    """``cards`` (the one complete set) or ``sets`` ({set id: cards}), exactly one of them."""
    if ("cards" in move) == ("sets" in move):
        raise InvalidInput(N_("A chance gives either 'cards' (for the one complete set) or 'sets' "
                              "({set id: cards}), not both and not neither."))


def parse_chance_sets(value, state: dict | None = None) -> dict[int, list[str]]:
    """``{set id: cards}``; JSON object keys bring the ids as strings."""
    sets = base.get_field({"sets": value}, "sets", dict)
    additions: dict[int, list[str]] = {}
    for key, codes in sets.items():
        set_id = parse_set_id(key)
        if set_id in additions:
            raise InvalidInput(T("Set {set} is listed twice.", set=set_id))
        additions[set_id] = parse_cards(codes, f"sets[{key}]")
    return additions


def chance_additions(move: dict) -> list[tuple[int | None, list[str]]]:
    if "cards" in move:
        return [(None, move["cards"])]
    return list(move["sets"].items())


def resolve_targets(state: dict, additions) -> list[tuple[dict, list[str]]]:
    """Map each addition to its open complete set (S69-4; S69-9: never an incomplete set)."""
    waiting = open_sets(state)
    if additions and additions[0][0] is None:
        if additions[0][1] and len(waiting) != 1:
            # the ids of the sets waiting are the keys 'sets' may use: no field's values (allowed: open_sets)
            raise IllegalMove("S69-9", N_("Several sets are complete: say which with 'sets'."))
        return [(waiting[0], additions[0][1])] if additions[0][1] else []  # [] declines
    resolved = []
    for set_id, cards in additions:
        target = find_set(state, set_id)
        if target is None or not target["complete"]:
            raise IllegalMove("S69-9" if target else "S69-4",
                              T("Set {set} is not a complete set waiting for chances; only those take cards now.",
                                set=set_id))
        if cards:
            resolved.append((target, cards))
    resolved.sort(key=lambda pair: state["table"].index(pair[0]))
    return resolved


def add_in_chance(table_set: dict, player: str, cards: list[str], reading: list[dict]) -> None:
    """Adding at least the claim count takes the claim, unless the set was already locked
    (S69-5: a Lock added in this very chance protects the new claimer)."""
    if not table_set["locked"] and len(cards) >= table_set["count"]:
        table_set.update(claimant=player, count=len(cards))
    table_set.update(cards=table_set["cards"] + cards, reading=reading,
                     locked=LOCK in table_set["cards"] + cards)


def advance_chance(state: dict) -> None:
    """Pass the chance left. Any set claimed by the player it reaches has gone all the way
    round: that player captures it (S69-4); each set ends independently (S69-9)."""
    player = left(state, state["chance_to"])
    for table_set in [s for s in open_sets(state) if s["claimant"] == player]:
        capture(state, table_set)
    if open_sets(state):
        state.update(phase="chances", chance_to=player, to_play=player)
    else:
        captures_done(state)


def capture_full_sets(state: dict) -> None:
    """S69-6: a set that reaches six cards is captured at once by its current claimer."""
    for table_set in [s for s in open_sets(state) if len(s["cards"]) == MAX_SET]:
        capture(state, table_set)


def capture(state: dict, table_set: dict) -> None:
    state["table"].remove(table_set)
    owner = table_set["claimant"]
    state["captured"][owner].append({"id": table_set["id"], "cards": table_set["cards"],
                                     "reading": table_set["reading"]})
    rule = "S69-6" if len(table_set["cards"]) == MAX_SET else "S69-4"
    state["events"].append({"rule": rule, "text": T("{player} captures set {set}: {cards}.", player=owner,
                                                    set=table_set["id"], cards=" ".join(table_set["cards"]))})
    state["last_capturer"] = owner


def captures_done(state: dict) -> None:
    """All complete sets captured: the last capturer flips (S69-7, S69-9), unless a hand is
    empty and the round ends (S69-10)."""
    state["chance_to"] = None
    if any_hand_empty(state):
        end_round(state)
    else:
        state.update(phase="flip", to_play=state["last_capturer"])


# ---------------------------------------------------------------- round end (S69-10..12)

def winners_now(state: dict) -> list[str]:
    """S69-12: every player at or over the target wins, ranked by points; S69-13: only the most."""
    totals = state["totals"]
    winners = sorted((p for p in state["players"] if totals[p] >= state["options"]["target"]),
                     key=lambda p: -totals[p])
    if winners and state["options"].get("single_winner"):
        winners = [p for p in winners if totals[p] == totals[winners[0]]]
    return winners


def end_round(state: dict) -> None:
    players = state["players"]
    scores, breakdown = {}, {}
    state["events"].append({"rule": "S69-10", "text": T("Round {round} is over: {player}'s hand is empty.",
                                                        round=state["round"], player=state["emptied"])
                            if state["emptied"] else
                            T("Round {round} is over: a player's hand is empty.", round=state["round"])})
    for p in players:
        sets = [s["cards"] for s in state["captured"][p]]
        scores[p], breakdown[p] = score_round(sets, state["hand_sizes"][p])
    close_round(state, scores, breakdown, hands=dict(state["hand_sizes"]))


def close_round(state: dict, scores: dict, breakdown: dict, **entered) -> None:
    """A scored round, refereed move by move or entered whole (T-4): the totals, the round in
    ``rounds`` (with what the table ``entered``), then S69-12: the end of the game, or the next
    dealer at the left of the player whose hand emptied."""
    for p in state["players"]:
        state["totals"][p] += scores[p]
    emptied = state["emptied"]
    state["rounds"].append({
        "round": state["round"], "scores": scores, "totals": dict(state["totals"]),
        "breakdown": breakdown, "dealer": state["dealer"], "emptied": emptied, **entered,
    })
    state.update(chance_to=None, pending_scramble=None)
    winners = winners_now(state)
    if winners:
        state.update(phase="finished", to_play=None, winners=winners)
        return
    dealer = left(state, emptied)
    state.update(phase="round_over", dealer=dealer, to_play=dealer, round=state["round"] + 1)


# ---------------------------------------------------------------- a round entered whole (T-4)

def show_whole_round(state: dict, emptied: str, results: dict) -> None:
    """The table as a round entered whole leaves it: nothing on it, the sets each player captured
    and the cards left in hand (None where only points were entered), as a refereed round leaves
    them until the next deal."""
    captured = {}
    for p in state["players"]:
        sets = results[p].get("captured") or []
        captured[p] = [{"id": n, "cards": cards, "reading": read_set(cards)[0]} for n, cards in enumerate(sets, 1)]
    state.update(table=[], captured=captured, hand_sizes={p: results[p].get("in_hand") for p in state["players"]},
                 next_set_id=1, chance_to=None, pending_scramble=None, last_capturer=None, pulls=[],
                 emptied=emptied)


def whole_round(state: dict, emptied: str, results: dict) -> None:
    """A round entered whole between rounds (T-4): scored and judged as a refereed round is."""
    show_whole_round(state, emptied, results)
    state["events"].append({"rule": "S69-10", "text": T("Round {round} is over: {player}'s hand is empty.",
                                                        round=state["round"], player=emptied)})
    close_round(state, {p: r["points"] for p, r in results.items()},
                {p: r["breakdown"] for p, r in results.items()},
                hands={p: results[p].get("in_hand") for p in state["players"]},
                players={p: results[p]["entered"] for p in state["players"]}, recorded="rounds")
