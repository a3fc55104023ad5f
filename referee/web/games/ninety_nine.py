"""Ninety-nine: a grid of cards, one tap a card (a 10 or an A with its value on the key), missed
draws, and the round entered whole (T-4): the tokens each player lost, who ended it and how."""
from __future__ import annotations

from typing import Any

from flask_babel import gettext as _

from referee import cards
from referee.i18n import say
from referee.web.games import (
    RANK_NAMES, SUIT_NAMES, SUIT_SYMBOLS, FormError, GameUI, correction_fields, game_over, whole_number,
)

# The two ways a 10 and an A may be declared, each a key of its own (N99-3): a tired player taps
# once for every card. Checked by the engine, as any value is.
VALUE_CHOICES = {"10": [(10, "+10"), (-10, "−10")], "A": [(1, "1"), (11, "11")]}
# Five keys a line, fifteen a suit: A as 1 and 11, 2 to 9, 10 as +10 and -10, J Q K (every key at
# least 44 px wide on a 360 px phone, in the card pad's rows).
KEY_ORDER = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
ENDINGS = ["reached_99", "passed_99", "no_card"]


def card_keys(suit: str, playable=None) -> list[dict]:
    """One suit's keys: ``code`` is what the key posts (the card, and ``:value`` for a 10 or an A);
    ``offered`` is false for a card that cannot be played now (``playable``: the cards ``allowed``
    offers; every copy already on the pile, N99-8)."""
    keys = []
    for rank in KEY_ORDER:
        name = _("%(rank)s of %(suit)s", rank=RANK_NAMES.get(rank, rank), suit=SUIT_NAMES[suit])
        for value, shown in VALUE_CHOICES.get(rank, [(None, "")]):
            if value is None:
                keys.append({"code": rank + suit, "rank": rank, "value": "", "name": _("Play %(card)s", card=name),
                             "offered": playable is None or rank + suit in playable})
            else:
                keys.append({"code": f"{rank}{suit}:{value}", "rank": rank, "value": shown,
                             "name": _("Play %(card)s as %(value)s", card=name, value=shown),
                             "offered": playable is None or rank + suit in playable})
    return keys


def card_rows(playable=None) -> list[dict]:
    return [{"suit": suit, "label": str(SUIT_NAMES[suit]).capitalize(), "mark": SUIT_SYMBOLS[suit],
             "keys": card_keys(suit, playable)} for suit in cards.STANDARD_SUITS]


class NinetyNineUI(GameUI):
    show_standings = False  # the tokens list is the standings
    own_forms = frozenset({"play", "missed_draw", "round_result"})

    def facts(self, view):
        if view.get("record") == "rounds":
            return [(_("Round"), view.get("round")), (_("Plays first"), view.get("to_play"))]
        return [(_("Round"), view.get("round")), (_("To play"), view.get("to_play")),
                (_("Draw pile"), view.get("draw_pile"))]

    def forms(self, view):
        active = [p for p in view["players"] if p not in view.get("out", [])]
        playable = ((view.get("allowed") or {}).get("play") or {}).get("choices", {}).get("card")
        return {"active": active, "rows": card_rows(playable), "to_play": view.get("to_play"),
                "endings": [("", _("Not said")), ("reached_99", _("Reached 99")), ("passed_99", _("Went over 99")),
                            ("no_card", _("Had no card (N99-7)"))]}

    def option_field(self, name, spec):
        if name == "decks":
            return {"kind": "choice", "choices": [("", _("Default (N99-1)")), ("1", _("1 deck")), ("2", _("2 decks"))]}
        if name == "first_player":
            return {"kind": "player", "choices": None}
        return super().option_field(name, spec)

    def build(self, kind, form, view):
        if kind == "play":
            return self.build_play(form, view)
        if kind == "missed_draw":
            return {"type": "missed_draw", "player": form.get("player", "")}
        if kind == "round_result":
            return self.build_round(form, view)
        if kind == "correct_round":  # T-1: the round again, as its round result form gives it
            return {**self.build_round(form, view), "type": "correct_round", **correction_fields(form)}
        return super().build(kind, form, view)

    @staticmethod
    def build_play(form, view) -> dict:
        """A key of the card grid posts ``card`` as ``7H`` or, for a 10 or an A, ``10H:-10``. The rank
        and suit chips of the pages before it (a phone's outbox may still hold such a move) post
        ``rank``, ``suit`` and ``value10``/``valueA``."""
        player = form.get("player") or view.get("to_play")
        code = form.get("card", "").strip()
        if code:
            card, _sep, value = code.partition(":")
        elif form.get("rank") and form.get("suit"):
            rank = form["rank"]
            card = rank + form["suit"]
            value = form.get("value10") if rank == "10" else form.get("valueA") if rank == "A" else None
        else:
            raise FormError(_("Tap the card that was played."))
        move: dict[str, Any] = {"type": "play", "player": player, "card": card}
        if value:
            move["value"] = whole_number(value)
            if move["value"] is None:
                raise FormError(_("The value must be a number."))
        return move

    @staticmethod
    def build_round(form, view) -> dict:
        """The tokens each player lost (``lost-<seat>``; blank counts as 0), who ended the round and,
        when the table says, how (T-4)."""
        lost = {}
        for i, name in enumerate(view["players"]):
            raw = form.get(f"lost-{i}")
            if raw is None or not raw.strip():
                continue
            lost[name] = whole_number(raw)
            if lost[name] is None:
                raise FormError(_("%(player)s's tokens lost must be a whole number.", player=name))
        if not form.get("ended_by"):
            raise FormError(_("Say who ended the round."))
        move: dict[str, Any] = {"type": "round_result", "lost": lost, "ended_by": form["ended_by"]}
        if form.get("ending"):
            move["ending"] = form["ending"]
        return move

    def correction_values(self, view, entry):
        """Who ended the round and how, and the tokens each player in it lost, as entered."""
        values = {"ended_by": entry.get("ended_by") or "", "ending": entry.get("ending") or ""}
        for i, name in enumerate(view["players"]):
            if name in (entry.get("lost") or {}):
                values[f"lost-{i}"] = str(entry["lost"][name])
        return values

    def total_text(self, view):
        if view.get("winners"):
            return game_over(view["winners"])
        if view.get("record") == "rounds":
            return _("Round %(round)s: %(player)s plays first.", round=view.get("round"), player=view.get("to_play"))
        direction = _("clockwise") if view.get("direction") == "clockwise" else _("counterclockwise")
        return _("Total %(total)s, %(direction)s. %(player)s to play.", total=view.get("total"), direction=direction,
                 player=view.get("to_play"))

    def totals_text(self, view):
        tokens = view.get("tokens") or {}
        out = view.get("out") or []
        return _("Tokens: %(tokens)s.", tokens=", ".join(_("%(player)s out", player=p) if p in out
                                                          else f"{p} {tokens.get(p)}" for p in view["players"]))

    def announce(self, view, move):
        parts = [str(say(e["text"])).rstrip(".") + "." for e in view.get("events") or []
                 if isinstance(e, dict) and e.get("text")]
        parts.append(self.total_text(view))
        return " ".join(parts)

    def shortcut_texts(self, view):
        return {"total": self.total_text(view), "tokens": self.totals_text(view)}


UI = NinetyNineUI("ninety-nine")
