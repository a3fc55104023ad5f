"""The plain exhaustive search that the solver is checked against (tests) and measured against
(bench): every split of the cards into legal melds, each checked alone with ``meld_kind``.
Exponential: for small hands only; the service itself never calls it."""
from __future__ import annotations

import itertools
from functools import lru_cache

from referee.rules.five_crowns.solver import card_points, meld_kind, sort_key


def exhaustive_points(cards, wild) -> int:
    """The least leftover score over every way to lay the cards down."""
    @lru_cache(maxsize=None)
    def least(rest):
        if not rest:
            return 0
        first, others = rest[0], rest[1:]
        best = card_points(first, wild) + least(others)
        for size in range(2, len(others) + 1):
            for picked in itertools.combinations(range(len(others)), size):
                if meld_kind([first] + [others[k] for k in picked], wild)[0]:
                    best = min(best, least(tuple(c for k, c in enumerate(others) if k not in picked)))
        return best
    return least(tuple(sorted(cards, key=sort_key)))


def exhaustive_can_go_out(cards, wild) -> bool:
    """Whether some discard leaves every other card melded."""
    return any(exhaustive_points(cards[:k] + cards[k + 1:], wild) == 0 for k in range(len(cards)))
