"""69 round scoring (S69-11), shared by the game and the ``score`` verdict."""
from __future__ import annotations

from collections import Counter

from referee.cards import SIXTY_NINE_SUITS
from referee.rules.sixty_nine.sets import (DECK_SIZE, LOCK, MAX_SET, SCRAMBLE, SPECIAL_COPIES, WILD, is_special,
                                           printed_value)
from referee.texts import N_, T

RULE = "S69-11"
COLLECTION_BONUS = 10
SIX_NINE_BONUS = 2
SPECIALS_BONUS = 3
SIX_CARD_BONUS = 6
# The most one round can score (a round entered as points is checked against it, T-4): every card
# of the deck captured, each bonus as often as the deck allows (eleven six-card sets; six sets
# with a printed 6 and 9, as there are six of each; three Wild-Lock-Scramble sets; six 0-9
# collections, one per suit's worth of numbers). An upper bound, not a score anyone reaches.
MOST_POINTS = (DECK_SIZE + SIX_CARD_BONUS * (DECK_SIZE // MAX_SET) + SIX_NINE_BONUS * len(SIXTY_NINE_SUITS)
               + SPECIALS_BONUS * SPECIAL_COPIES + COLLECTION_BONUS * len(SIXTY_NINE_SUITS))


def _entry(points: int, detail: str) -> dict:
    return {"rule": RULE, "points": points, "detail": detail}


def _names(cards: list[str]) -> str:
    return " ".join(cards)


def collections(number_cards: list[str]) -> int:
    """Greatest number of disjoint 0-9 collections; a 6 or 9 card fills either 6 or 9."""
    counts = Counter(printed_value(c) for c in number_cards)
    plain = min(counts[d] for d in (0, 1, 2, 3, 4, 5, 7, 8))
    return min(plain, (counts[6] + counts[9]) // 2)


def set_bonuses(cards: list[str]) -> list[dict]:
    """The per-set bonuses one captured set earns."""
    bonuses = []
    printed = {printed_value(c) for c in cards if not is_special(c)}
    if {6, 9} <= printed:
        bonuses.append(_entry(SIX_NINE_BONUS, T("set {cards} holds a printed 6 and a printed 9", cards=_names(cards))))
    if {WILD, LOCK, SCRAMBLE} <= set(cards):
        bonuses.append(_entry(SPECIALS_BONUS, T("set {cards} holds a Wild, a Lock and a Scramble",
                                                cards=_names(cards))))
    if len(cards) == MAX_SET:
        bonuses.append(_entry(SIX_CARD_BONUS, T("set {cards} has six cards", cards=_names(cards))))
    return bonuses


def score_round(captured: list[list[str]], hand: int) -> tuple[int, list[dict]]:
    """A player's round score and its breakdown; the breakdown always adds up to the score."""
    cards = [c for s in captured for c in s]
    breakdown = [_entry(len(cards), N_("1 captured card") if len(cards) == 1 else
                        T("{n} captured cards", n=len(cards)))]
    for s in captured:
        breakdown.extend(set_bonuses(s))
    full = collections([c for c in cards if not is_special(c)])
    if full:
        breakdown.append(_entry(COLLECTION_BONUS * full,
                                N_("1 complete 0-9 collection captured") if full == 1 else
                                T("{n} complete 0-9 collections captured", n=full)))
    breakdown.append(_entry(-hand, N_("1 card left in hand") if hand == 1 else T("{n} cards left in hand", n=hand)))
    raw = sum(e["points"] for e in breakdown)
    if raw < 0:
        # A round score below zero counts as zero.
        breakdown.append(_entry(-raw, N_("a round score below zero counts as zero")))
    return max(raw, 0), breakdown
