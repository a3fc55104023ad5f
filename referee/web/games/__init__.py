"""Per-game page helpers: turn form fields into the engine's move dicts, describe moves, and
say what to announce. No rules here: legality is always the engine's answer.

``GameUI`` builds every page from the engine's declarations: a form for each move that ``allowed``
lists now (offering only the players and values it allows), the text of a logged move from the
move's declaration. A game may add a module here named like its engine module
(``referee/web/games/<module>.py``, exporting ``UI``) and templates named
``games/<module>_table.html`` / ``games/<module>_moves.html``: they are found by that convention.
"""
from __future__ import annotations

import json
from functools import cached_property
from importlib import import_module
from importlib.util import find_spec
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext, lazy_pgettext, ngettext
from werkzeug.datastructures import MultiDict

from referee import cards
from referee.i18n import say
from referee.rules import ENGINES
from referee.rules.base import Game, Move


class FormError(Exception):
    """The form cannot be turned into a move at all (missing choice, malformed JSON)."""


COMMON_KEYS = {"id", "game", "players", "options", "version", "status", "round", "to_play", "standings",
               "winners", "rounds", "events"}


def join_names(names) -> str:
    names = [str(n) for n in names]
    if not names:
        return ""
    return names[0] if len(names) == 1 else _("%(names)s and %(last)s", names=", ".join(names[:-1]), last=names[-1])


# The phases and steps the games name in their public state, as the page shows them (gettext needs
# the literal labels, with their context); a game's own phase outside this list is printed from its
# ``phase_labels``.
PHASES = {"deal": lazy_pgettext("phase", "deal"), "draw": lazy_pgettext("phase", "draw"),
          "discard": lazy_pgettext("phase", "discard"), "final_turn": lazy_pgettext("phase", "final turn"),
          "final_draw": lazy_pgettext("phase", "final draw"), "final": lazy_pgettext("phase", "final"),
          "finished": lazy_pgettext("phase", "finished"), "play": lazy_pgettext("phase", "play"),
          "reveal": lazy_pgettext("phase", "reveal"), "round_over": lazy_pgettext("phase", "round over"),
          "trick": lazy_pgettext("phase", "trick"), "decision": lazy_pgettext("phase", "decision"),
          "draft": lazy_pgettext("phase", "draft"), "trade": lazy_pgettext("phase", "trade"),
          "chances": lazy_pgettext("phase", "chances"), "flip": lazy_pgettext("phase", "flip"),
          "scramble": lazy_pgettext("phase", "scramble"), "turn": lazy_pgettext("phase", "turn")}


def phase_text(phase, engine: Game | None = None) -> str | None:
    """A phase or step of the public state in words: from the shared list, else from the game's
    ``phase_labels``, else as it is, underscores as spaces."""
    if not isinstance(phase, str):
        return phase
    if phase in PHASES:
        return str(PHASES[phase])
    if engine is not None and phase in engine.phase_labels:
        return say(engine.phase_labels[phase])
    return phase.replace("_", " ")


def game_over(winners) -> str:
    """What the live region says when the game ends."""
    winners = list(winners)
    return ngettext("Game over: %(names)s won.", "Game over: %(names)s won.", len(winners), names=join_names(winners))


def standard_cards(jokers: bool = False) -> list[str]:
    codes = [r + s for s in cards.STANDARD_SUITS for r in cards.STANDARD_RANKS]
    return codes + ([cards.JOKER] if jokers else [])


# Lazy: read in the language of the request that shows them.
SUIT_NAMES = {"S": lazy_gettext("spades"), "H": lazy_gettext("hearts"), "D": lazy_gettext("diamonds"),
              "C": lazy_gettext("clubs"), "*": lazy_gettext("stars")}
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣", "*": "★"}


_RANKS = frozenset(cards.STANDARD_RANKS + cards.FIVE_CROWNS_RANKS)


def pretty(card: Any) -> str:
    """A card code with its suit symbol, for reading (``10H`` -> ``10♥``)."""
    text = str(card)
    # a rank and a suit: 69's WILD ends in D too, and is no diamond
    if text[-1:] in SUIT_SYMBOLS and text[:-1] in _RANKS:
        return text[:-1] + SUIT_SYMBOLS[text[-1]]
    return text


def split_codes(text: str) -> list[str]:
    """Card codes typed in one field: separated by spaces or commas."""
    return [c for c in text.replace(",", " ").split() if c]


def pad_key(code: str, text: str, name: str, single: bool = False, offered: bool = True) -> dict:
    """One key of a card pad: the code it types, what it shows, its spoken name ("Add <name>"),
    whether the card exists once (the key then toggles), and whether it is offered at all."""
    return {"code": code, "text": text, "name": name, "single": single, "offered": offered}


def pad_row(label: str, mark: str, keys: list[dict], cls: str = "") -> dict:
    """One row of a card pad (a suit, the specials): its spoken label, a short visible mark and
    an optional class (the suit's colour)."""
    return {"label": label, "mark": mark, "keys": keys, "cls": cls}


RANK_NAMES = {"A": lazy_gettext("Ace"), "J": lazy_gettext("Jack"), "Q": lazy_gettext("Queen"),
              "K": lazy_gettext("King")}


def suit_rows(card_list: list[str]) -> list[dict]:
    """A pad for suited cards (codes rank + suit, and JK): one row per suit in the list's order,
    then the Jokers. Every key adds a card: these games play with several decks."""
    rows: dict[str, list] = {}
    for code in card_list:
        if code == cards.JOKER:
            rows.setdefault("", []).append(pad_key(code, _("Joker"), _("Joker")))
            continue
        rank, suit = cards.rank_of(code), cards.suit_of(code)
        rows.setdefault(suit, []).append(pad_key(code, rank, _("%(rank)s of %(suit)s", rank=RANK_NAMES.get(rank, rank),
                                                                suit=SUIT_NAMES[suit])))
    return [pad_row(str(SUIT_NAMES[suit]).capitalize() if suit else _("Jokers"), SUIT_SYMBOLS.get(suit, ""), keys,
                    f"s-{suit}" if suit else "")
            for suit, keys in rows.items()]


def whole_number(text: str) -> int | None:
    """``text`` as a whole number when it is one written in ASCII digits (at most 18 of them:
    '²' or 5,000 digits are text, never a crash), else None."""
    text = text.strip()
    digits = text[1:] if text.startswith("-") else text
    return int(text) if digits.isascii() and digits.isdigit() and len(digits) <= 18 else None


def int_or_text(text: str) -> Any:
    number = whole_number(text)
    return text.strip() if number is None else number


def correction_fields(form) -> dict:
    """What every correction carries besides the round's result (T-1): the round it replaces, why, and
    whether it may change a finished game's result. Blank or malformed values go to the engine, which
    refuses them citing T-1."""
    fields = {"round": int_or_text(form.get("round", "")), "reason": form.get("reason", "")}
    if form.get("change_result") in ("true", "on", "1"):
        fields["change_result"] = True
    return fields


def allowed_players(view: dict, kind: str, fallback: list | None = None) -> list:
    """Who may make a ``kind`` move now, as ``allowed`` says; the game's players when the move
    names no entitled player, and nobody when it is not allowed now."""
    entry = (view.get("allowed") or {}).get(kind)
    if entry is None:
        return []
    return entry["players"] if entry.get("players") is not None else list(fallback or view.get("players") or [])


def allowed_values(view: dict, kind: str, field: str, fallback: list) -> list:
    """The legal values of a field of a ``kind`` move where ``allowed`` lists them, else ``fallback``
    (a list of values, or of (value, label) pairs, kept in its order)."""
    values = ((view.get("allowed") or {}).get(kind) or {}).get("choices", {}).get(field)
    if not isinstance(values, list):
        return list(fallback)
    return [item for item in fallback if (item[0] if isinstance(item, (tuple, list)) else item) in values]


class GameUI:
    show_standings = True  # False when the game's own table already lists the totals
    card_list: list[str] = []  # the deck's real cards, offered as suggestions
    # The move types the game's own moves template renders; any other move that ``allowed``
    # lists gets a form built from its declaration, so a new move is playable from the phone
    # before anyone draws a form for it.
    own_forms: frozenset[str] = frozenset()
    # The table's own moves (T-1, T-2): the page offers them in every game, finished or not, with forms of
    # its own (the adjustment on the game page, a correction on its round's page), never among the others.
    table_forms: frozenset[str] = frozenset({"adjust", "correct_round", "switch_record"})

    def __init__(self, name: str):
        self.name = name

    @staticmethod
    def show_card(card: Any) -> str:
        """A card as the log and the pages print it: with its suit symbol (``10H`` -> ``10♥``)."""
        return pretty(card)

    @cached_property
    def engine(self):
        return ENGINES[self.name]

    @cached_property
    def module(self) -> str:
        """The engine module's own name (``my_game`` for ``referee.rules.my_game``): the page module
        and templates share it."""
        return self.engine.module.rsplit(".", 1)[-1]

    @property
    def table_template(self) -> list[str]:
        return [f"games/{self.module}_table.html", "games/generic_table.html"]

    @property
    def moves_template(self) -> list[str]:
        return [f"games/{self.module}_moves.html", "games/generic_moves.html"]

    @property
    def correct_template(self) -> list[str]:
        """The fields of a round's correction (T-1): the game's own, else built from the declaration."""
        return [f"games/{self.module}_correct.html", "games/generic_correct.html"]

    def correction_values(self, view: dict, entry: dict) -> dict:
        """The correction form's fields filled with the round's result as ``rounds`` keeps it (by the
        field names of the game's correction template); none for a game without a template."""
        return {}

    # ---- what the page shows
    def facts(self, view: dict) -> list[tuple[str, Any]]:
        facts = [(_("Round"), view.get("round"))]
        if view.get("to_play"):
            facts.append((_("To play"), view["to_play"]))
        return facts

    def extra_state(self, view: dict) -> dict:
        """Game-specific fields the generic table shows as they are."""
        return {k: v for k, v in view.items() if k not in COMMON_KEYS}

    def forms(self, view: dict) -> dict:
        return {"players": view.get("players", []), "moves": self.move_forms(view, skip=self.table_forms)}

    def move_forms(self, view: dict, skip: frozenset[str] = frozenset()) -> list[dict]:
        """One form per move allowed now (but those in ``skip``), its fields read from the move's
        declaration: a player field offers only the players ``allowed`` names, a field with a
        small choice its values."""
        forms = []
        for kind, entry in (view.get("allowed") or {}).items():
            if kind in skip:
                continue
            move = self.engine.moves[kind]
            fields = []
            for spec in move.fields:
                field = {"name": spec.name, "widget": spec.widget, "required": spec.required,
                         "label": say(spec.description) or spec.name.replace("_", " ").capitalize(), "options": None}
                if spec.widget == "player":
                    field["label"] = _("Who") if spec.name == move.actor else spec.name.replace("_", " ").capitalize()
                    field["options"] = [(p, p) for p in (entry.get("players") if spec.name == move.actor
                                                         and entry.get("players") is not None else view["players"])]
                values = (entry.get("choices") or {}).get(spec.name)  # allowed now, else all the field takes
                values = values if isinstance(values, list) else getattr(spec, "choices", None)
                if values:
                    field["options"] = [(v if isinstance(v, str) else json.dumps(v), pretty(v)) for v in values]
                fields.append(field)
            forms.append({"kind": kind, "label": say(move.label) or kind, "description": say(move.description),
                          "rules": move.rules, "fields": fields})
        return forms

    def card_pad(self, view: dict) -> list[dict] | None:
        """The rows of keys the card pad offers for multi-card fields (``pad_row``/``pad_key``),
        or None for a game without such fields. Which cards exist and which are already public
        is the game's knowledge, so it is decided here, never in the template or the script."""
        return None

    def option_field(self, name: str, spec: dict) -> dict:
        """How the start form offers an option, read from its JSON Schema: a list of choices (an
        enum, yes/no), a number, or free text."""
        schema = spec.get("schema") or {}
        if name == "record":  # T-4: what the table will enter, in its own words
            return {"kind": "choice", "choices": [("moves", _("Every move: the referee checks each one")),
                                                  ("rounds", _("Only the score: each round whole when it ends"))]}
        if schema.get("type") == "boolean":
            return {"kind": "choice", "choices": [("", _("Default")), ("true", _("Yes")), ("false", _("No"))]}
        if "enum" in schema:
            return {"kind": "choice", "choices": [("", _("Default"))] + [(str(v), str(v)) for v in schema["enum"]]}
        default = spec.get("default")
        numeric = schema.get("type") == "integer" or isinstance(default, int) and not isinstance(default, bool)
        return {"kind": "number" if numeric else "text", "choices": None}

    @staticmethod
    def option_value(spec: dict, raw: str) -> Any:
        """The option as the engine takes it: true/false for a yes/no, a whole number, or the text."""
        if (spec.get("schema") or {}).get("type") == "boolean" and raw in ("true", "false"):
            return raw == "true"
        return int_or_text(raw)

    # ---- moves
    def build(self, kind: str, form: MultiDict, view: dict) -> dict:
        if kind in self.engine.moves:
            return self.build_declared(kind, form)
        if kind == "json":
            try:
                move = json.loads(form.get("json", ""))
            except (ValueError, RecursionError) as exc:
                raise FormError(_("That is not a JSON object: %(error)s.", error=exc.__class__.__name__)) from None
            if not isinstance(move, dict):
                raise FormError(_("A move is a JSON object, e.g. %(example)s.",
                                  example='{"type": ..., "player": ...}'))
            return move
        raise FormError(_("Unknown form '%(form)s'.", form=kind))

    def build_declared(self, kind: str, form: MultiDict) -> dict:
        """A move from a generic form: each field read as its declaration says (blank = left out)."""
        move: dict[str, Any] = {"type": kind}
        for spec in self.engine.moves[kind].fields:
            raw = form.get(spec.name, "")
            if spec.widget == "flag":
                move[spec.name] = raw in ("true", "on", "1")
                continue
            if not raw.strip():
                continue
            if spec.widget == "cards":
                move[spec.name] = split_codes(raw)
            elif spec.widget == "json" or (spec.widget == "choice" and raw.strip()[:1] in "-0123456789[{tfn"):
                try:
                    move[spec.name] = json.loads(raw)
                except ValueError as exc:
                    raise FormError(_("'%(field)s' is not valid JSON: %(error)s.", field=spec.name,
                                      error=exc)) from None
            elif spec.widget == "number":
                move[spec.name] = int_or_text(raw)
            elif spec.widget == "card" and getattr(spec, "numbers", False):
                move[spec.name] = int_or_text(raw)
            else:
                move[spec.name] = raw.strip()
        return move

    def describe(self, move: Any) -> str:
        """A logged move in words, from its declaration (``Move.says``)."""
        if not isinstance(move, dict):
            return str(move)
        declared = self.engine.moves.get(move.get("type")) if isinstance(move.get("type"), str) else None
        if declared is not None:
            try:
                return say(declared.text(move, self.show_card))
            except (KeyError, TypeError, ValueError):  # a refused move may lack what the text reads
                pass
        return say(Move("", (), "", ()).text(move, self.show_card))

    # ---- what the live region says
    def announce(self, view: dict, move: Any) -> str:
        parts = [str(say(e["text"])) for e in view.get("events") or [] if isinstance(e, dict) and e.get("text")]
        rounds = view.get("rounds") or []
        if move is not None and rounds and self._round_just_ended(view, move):
            last = rounds[-1]
            parts.append(_("Round %(round)s scores: %(scores)s", round=last.get("round"), scores=", ".join(
                f"{p} {last['scores'].get(p)}" for p in view["players"] if p in (last.get("scores") or {}))))
        parts.append(self.totals_text(view))
        if view.get("winners"):
            parts.append(game_over(view["winners"]))
        elif view.get("to_play"):
            parts.append(_("%(player)s to play.", player=view["to_play"]))
        return " ".join(parts)

    def _round_just_ended(self, view: dict, move: Any) -> bool:
        return bool(view.get("rounds")) and any("round" in str(e.get("text", "")).lower()
                                                for e in view.get("events") or [] if isinstance(e, dict)) \
            or (isinstance(move, dict) and move.get("type") in ("hand_result", "round_result"))

    def totals_text(self, view: dict) -> str:
        standings = view.get("standings") or {}
        return _("Totals: %(totals)s.", totals=", ".join(f"{p} {standings.get(p)}" for p in view.get("players", [])))

    def shortcut_texts(self, view: dict) -> dict:
        return {"total": self.totals_text(view)}


_UI: dict[str, GameUI] = {}


def ui_for(name: str) -> GameUI:
    """The game's page helpers: its own module here when it has one (named like its engine module),
    else the generic ``GameUI``."""
    if name not in _UI:
        module = ENGINES[name].module.rsplit(".", 1)[-1]
        found = find_spec(f"{__name__}.{module}") is not None
        _UI[name] = import_module(f"{__name__}.{module}").UI if found else GameUI(name)
    return _UI[name]
