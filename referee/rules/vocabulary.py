"""One vocabulary for the public state: a thing the games share (the draw pile, the discard's top,
hand sizes, the dealer, what a round is called, which way totals count) has one name, one type and
one meaning in every game. A game declares its public state in its ``view``, a tuple of fields; it
takes a shared thing from here rather than declaring it again, and the API turns ``view`` into
its ``<Game>State`` schema, so a generated client reads every field as a typed attribute.

``docs/api.md`` lists this vocabulary; tests check that every game's ``view`` uses it, that no
engine names a shared thing otherwise (``SYNONYMS``), and that each public view holds exactly the
declared fields, each of its declared type.
"""
from __future__ import annotations

from typing import Any

from referee.rules.fields import Shaped

PER_PLAYER_COUNT = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}
PLAYER_NAMES = {"type": "array", "items": {"type": "string"}}


def shown(name: str, schema: dict, description: str, nullable: bool = False) -> Shaped:
    """A field of a public state: its JSON Schema and what it means."""
    return Shaped(name, description=description, nullable=nullable, shape=schema)


def card_schema(numbers: bool = False) -> dict:
    """A card as the state shows it: a canonical code (``"10H"``, ``"7*"``, ``"6B"``), or a number in
    XIX, whose cards are the values 1-18."""
    return {"type": "integer", "minimum": 1, "maximum": 18} if numbers else {"type": "string"}


# Added to every game's state by the engine contract (``base.public_state``) from the engine's own
# declarations (``round_label``, ``lower_is_better``), or by the table's recording (T-4).
ROUND_LABEL = shown("round_label", {"type": "string"},
                    "What this game calls a round, in the game's own word ('round', 'hand', 'exchange'...); "
                    "`round` counts them.")
LOWER_IS_BETTER = shown("lower_is_better", {"type": "boolean"},
                        "True when the lowest total is best (penalty points); false when the highest is (points "
                        "scored, or tokens left).")
RECORD = shown("record", {"type": "string", "enum": ["moves", "rounds"]},
               "How the table records now (T-4): every move, or each round whole.")
COMMON = (ROUND_LABEL, LOWER_IS_BETTER)

# Declared by the games that have the thing, under these names only.
DEALER = shown("dealer", {"type": "string"}, "Who deals the round in progress (G-2).", nullable=True)
DRAW_PILE = shown("draw_pile", {"type": "integer", "minimum": 0},
                  "How many cards the draw pile (stock, deck) holds; null while the service cannot know (before "
                  "the deal, or after the end).", nullable=True)
HAND_SIZES = shown("hand_sizes", {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0,
                                                                             "nullable": True}},
                   "How many cards each player holds (in XIX 1.0: the closed hand; the open hand is shown whole); "
                   "null for a hand the service cannot count (XIX after an exchange entered whole).")
TARGET = shown("target", {"type": "integer"}, "The total that ends the game (the game's own rule says when).")


def discard_top(numbers: bool = False) -> Shaped:
    return shown("discard_top", card_schema(numbers), "The discard pile's top card, face up; null when the pile is "
                 "empty (Ninety-nine: the last card played).", nullable=True)


def discard_pile_size() -> Shaped:
    return shown("discard_pile_size", {"type": "integer", "minimum": 0}, "How many cards the discard pile holds.")


SHARED = {field.name: field for field in (ROUND_LABEL, LOWER_IS_BETTER, RECORD, DEALER, DRAW_PILE, HAND_SIZES,
                                          TARGET, discard_top(), discard_pile_size())}
# Names a shared thing went by before it had one name: never a state field again.
SYNONYMS = {"stock": "draw_pile", "stock_size": "draw_pile", "deck": "draw_pile", "deck_size": "draw_pile",
            "top": "discard_top", "top_card": "discard_top", "closed_sizes": "hand_sizes"}


def view_schema(view: tuple[Shaped, ...]) -> dict[str, Any]:
    """The JSON Schema properties of a declared public state, by field name."""
    return {field.name: field.schema() for field in view}
