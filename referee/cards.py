"""Card notation: forgiving input, canonical output.

| game                | canonical codes                                             |
| Ninety-nine, Nines  | rank A 2-10 J Q K + suit S H D C (``AS``, ``10H``); ``JK``   |
| Five Crowns         | rank 3-10 J Q K + suit S H D C or ``*`` (stars); ``JK``      |
| 69                  | digit 0-9 + suit A-F (``6B``); ``WILD`` ``LOCK`` ``SCRAMBLE`` |
| XIX                 | integers 1-18                                               |

Input may use any case, surrounding spaces, ``T`` for 10, suit symbols (``♠♥♦♣``, ``★``),
the suit before the rank (``H10``), and for 69 the letters ``W L X``. Anything else is an
``InvalidInput`` naming the card.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

from referee.errors import IllegalMove, InvalidInput
from referee.texts import N_, T

STANDARD_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
STANDARD_SUITS = ("S", "H", "D", "C")
FIVE_CROWNS_RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
FIVE_CROWNS_SUITS = ("*", "H", "C", "S", "D")
SIXTY_NINE_SUITS = ("A", "B", "C", "D", "E", "F")
SIXTY_NINE_SPECIALS = ("WILD", "LOCK", "SCRAMBLE")
JOKER = "JK"

_SUIT_SYMBOLS = {
    "♠": "S", "♤": "S", "♥": "H", "♡": "H", "♦": "D", "♢": "D", "♣": "C", "♧": "C",
    "★": "*", "☆": "*", "✪": "*",
}
_RANK_WORDS = {"T": "10", "1": "A", "ACE": "A", "JACK": "J", "QUEEN": "Q", "KING": "K"}
_JOKER_WORDS = {"JK", "JOKER", "JKR", "JO", "🃏"}
_SPECIAL_WORDS = {"W": "WILD", "WILD": "WILD", "L": "LOCK", "LOCK": "LOCK",
                  "X": "SCRAMBLE", "S": "SCRAMBLE", "SCRAMBLE": "SCRAMBLE"}


def _clean(code: Any) -> str:
    if not isinstance(code, str):
        raise InvalidInput(T("A card must be written as a string, not {value}.", value=repr(code)))
    text = "".join(code.split()).upper()
    for symbol, letter in _SUIT_SYMBOLS.items():
        text = text.replace(symbol, letter)
    if not text:
        raise InvalidInput(N_("Empty card code."))
    return text


def _split_rank_suit(text: str, suits: Iterable[str]) -> tuple[str, str] | None:
    """Split ``10H`` or ``H10`` into rank and suit text."""
    for suit in suits:
        if len(text) >= 2 and text.endswith(suit):
            return text[: -len(suit)], suit
        if len(text) >= 2 and text.startswith(suit):
            return text[len(suit):], suit
    return None


def _parse_ranked(code: Any, ranks: tuple[str, ...], suits: tuple[str, ...], jokers: bool) -> str:
    text = _clean(code)
    if text in _JOKER_WORDS:
        if jokers:
            return JOKER
        raise InvalidInput(T("'{card}': there are no Jokers in this game's deck.", card=code))
    split = _split_rank_suit(text, suits)
    if split:
        rank = _RANK_WORDS.get(split[0], split[0])
        if rank in ranks:
            return rank + split[1]
        if rank in STANDARD_RANKS:
            raise InvalidInput(T("'{card}': there is no {rank} in this game's deck.", card=code, rank=rank))
    raise InvalidInput(T("'{card}' is not a card code (write rank then suit, e.g. {example}).", card=code,
                         example=ranks[-1] + suits[0]))


def parse_standard(code: Any, jokers: bool = False) -> str:
    """A standard 52-card deck card (Ninety-nine, Nines); Jokers only where ``jokers``."""
    return _parse_ranked(code, STANDARD_RANKS, STANDARD_SUITS, jokers)


def parse_five_crowns(code: Any) -> str:
    return _parse_ranked(code, FIVE_CROWNS_RANKS, FIVE_CROWNS_SUITS, jokers=True)


def parse_sixty_nine(code: Any) -> str:
    text = _clean(code)
    if text in _SPECIAL_WORDS:
        return _SPECIAL_WORDS[text]
    if len(text) == 2:
        digit, suit = (text[0], text[1]) if text[0] in _DIGITS else (text[1], text[0])
        if digit in _DIGITS and suit in SIXTY_NINE_SUITS:
            return digit + suit
    raise InvalidInput(T("'{card}' is not a 69 card (a digit 0-9 and a suit A-F such as 6B, or WILD, LOCK, "
                         "SCRAMBLE).", card=code))


_DIGITS = "0123456789"  # ASCII only: str.isdigit() also takes '²' and '٣', which int() may refuse


def parse_xix(code: Any) -> int:
    if isinstance(code, str) and 0 < len(code.strip()) <= 2 and all(ch in _DIGITS for ch in code.strip()):
        code = int(code.strip())
    if isinstance(code, bool) or not isinstance(code, int) or not 1 <= code <= 18:
        raise InvalidInput(T("'{card}' is not an XIX card (the cards are 1 to 18).", card=code))
    return code


def parse_list(codes: Any, parse, what: str = "cards") -> list:
    if not isinstance(codes, list):
        raise InvalidInput(T("'{field}' must be a list of card codes.", field=what))
    return [parse(c) for c in codes]


def rank_of(card: str) -> str:
    """Rank part of a ranked card code (``10H`` -> ``10``); ``JK`` for a Joker."""
    return card if card == JOKER else card[:-1]


def suit_of(card: str) -> str | None:
    return None if card == JOKER else card[-1]


def check_copies(cards: Iterable[str], copies_of, rule: str | None = None) -> None:
    """Refuse more copies of a card than the decks hold. ``copies_of(card) -> int``."""
    for card, seen in Counter(cards).items():
        limit = copies_of(card)
        if seen > limit:
            detail = (T("{card}: the deck holds 1 copy of it, but {seen} have been seen.", card=card, seen=seen)
                      if limit == 1 else
                      T("{card}: the deck holds {n} copies of it, but {seen} have been seen.", card=card, n=limit,
                        seen=seen))
            if rule:
                raise IllegalMove(rule, detail)
            raise InvalidInput(detail)
