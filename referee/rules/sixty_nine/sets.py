"""69 set reading (S69-2) and card accounting (S69-1).

A set is legal when every card can be given a suit and a value so that the suits all differ,
the values are all equal or distinct and consecutive, and no special kind appears twice.
``read_set`` finds such a reading, or explains why there is none.
"""
from __future__ import annotations

from collections import Counter
from itertools import product
from typing import Iterable

from referee.cards import SIXTY_NINE_SPECIALS, SIXTY_NINE_SUITS
from referee.rules.base import IllegalMove
from referee.texts import N_, T

WILD, LOCK, SCRAMBLE = SIXTY_NINE_SPECIALS
MAX_SET = 6          # six suits, so never more than six cards (S69-2)
COMPLETE_AT = 3      # S69-4
TOP_VALUE = 10       # a 0 may count as 10, one higher than 9 (S69-2)
SPECIAL_COPIES = 3   # S69-1
DECK_SIZE = 69


def is_special(card: str) -> bool:
    return card in SIXTY_NINE_SPECIALS


def copies_of(card: str) -> int:
    """S69-1: each number card exists once, each special three times."""
    return SPECIAL_COPIES if is_special(card) else 1


def printed_value(card: str) -> int:
    return int(card[0])


def value_options(card: str) -> tuple[int, ...]:
    """Values a number card may take, printed value first (S69-2)."""
    printed = printed_value(card)
    if printed in (6, 9):
        return printed, 15 - printed
    if printed == 0:
        return 0, TOP_VALUE
    return (printed,)


def structural_problem(cards: list[str]) -> str | None:
    """What makes a set illegal whatever the values: size, suits, special kinds."""
    if not cards:
        return N_("A set needs at least one card.")
    if len(cards) > MAX_SET:
        return T("A set holds at most six cards (one of each suit); this one has {n}.", n=len(cards))
    for kind, seen in Counter(c for c in cards if is_special(c)).items():
        if seen > 1:
            return T("A set cannot hold two {kind} cards (no special kind twice).", kind=kind)
    by_suit: dict[str, list[str]] = {}
    for card in cards:
        if not is_special(card):
            by_suit.setdefault(card[1], []).append(card)
    for suit, same in by_suit.items():
        if len(same) > 1:
            both = same[0]
            for card in same[1:]:
                both = T("{first} and {then}", first=both, then=card)
            return T("{cards} share suit {suit}: every card in a set needs its own suit.", cards=both, suit=suit)
    return None


def _shapes(values: tuple[int, ...], size: int):
    """Ways to read the number values as a set of ``size`` cards.

    Yields ``(kind, start, fill)``: kind 0 = all equal, 1 = a run; ``fill`` the values left
    for the special cards, lowest first."""
    specials = size - len(values)
    if len(set(values)) <= 1:
        value = values[0] if values else 0
        yield 0, value, [value] * specials
    if size < 2 or not values or len(set(values)) != len(values):
        return
    lowest, highest = min(values), max(values)
    for start in range(max(0, highest - size + 1), min(lowest, TOP_VALUE - size + 1) + 1):
        yield 1, start, sorted(set(range(start, start + size)) - set(values))


def read_set(cards: list[str]) -> tuple[list[dict] | None, str | None]:
    """``(reading, None)`` for a legal set, ``(None, reason)`` otherwise.

    Among legal readings the most natural is chosen: fewest cards away from their printed
    value (6/9 turned, 0 as 10), then equal values before a run, then specials above the
    number cards rather than below (2, 3 and a Wild read as 2, 3, 4)."""
    problem = structural_problem(cards)
    if problem:
        return None, problem
    numbers = [c for c in cards if not is_special(c)]
    best = None
    for values in product(*(value_options(c) for c in numbers)):
        turned = sum(v != printed_value(c) for v, c in zip(values, numbers))
        for kind, start, fill in _shapes(values, len(cards)):
            below = sum(v < min(values) for v in fill) if values else 0
            key = (turned, kind, below, start)
            if best is None or key < best[0]:
                best = (key, values, fill)
    if best is None:
        return None, N_("The values cannot be read as all equal or as one unbroken run "
                        "(6 and 9 turn either way, 0 counts as 0 or as 10, no wrap-around).")
    return _reading(cards, best[1], best[2]), None


def _reading(cards: list[str], values: tuple[int, ...], fill: list[int]) -> list[dict]:
    number_values = iter(values)
    fill_values = iter(fill)
    used_suits = {c[1] for c in cards if not is_special(c)}
    free_suits = iter(s for s in SIXTY_NINE_SUITS if s not in used_suits)
    reading = []
    for card in cards:
        if is_special(card):
            reading.append({"card": card, "suit": next(free_suits), "value": next(fill_values)})
        else:
            reading.append({"card": card, "suit": card[1], "value": next(number_values)})
    return reading


def check_captured(sets: list[list[str]]) -> None:
    """Every captured set is legal (S69-2) and complete (S69-4): a set is captured only once it has
    three cards, and it never holds more than six."""
    for cards in sets:
        reading, reason = read_set(cards)
        if reading is None:
            raise IllegalMove("S69-2", T("Captured set {cards} is not legal: {reason}",
                                         cards=" ".join(cards) or N_("(empty)"), reason=reason))
        if len(cards) < COMPLETE_AT:
            raise IllegalMove("S69-4", T("Captured set {cards} is not complete: a set is captured only with three or "
                                         "more cards.", cards=" ".join(cards)))


def check_copies(cards: Iterable[str], already: Iterable[str] = (),
                 where: str = N_("on the table or captured")) -> None:
    """S69-1: ``cards`` (new) plus ``already`` (seen this round) must fit in one deck."""
    seen = Counter(already)
    new = Counter(cards)
    for card, count in new.items():
        limit = copies_of(card)
        if count + seen[card] <= limit:
            continue
        if limit == 1 and seen[card]:
            raise IllegalMove("S69-1", T("{card} is already {where}: each number card exists once.", card=card,
                                         where=where))
        if limit == 1:
            raise IllegalMove("S69-1", T("{card} is listed {n} times: each number card exists once.", card=card,
                                         n=count))
        raise IllegalMove("S69-1", T("There are only {limit} {card} cards in the deck; this would make {n}.",
                                     limit=limit, card=card, n=count + seen[card]))
