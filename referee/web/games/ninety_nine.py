"""Ninety-nine: a card picker (rank, suit, and the value of a 10 or an A), missed draws."""
from __future__ import annotations

from typing import Any

from flask_babel import gettext as _

from referee import cards
from referee.i18n import say
from referee.web.games import FormError, GameUI, game_over, pretty, whole_number

# The two ways a 10 and an A may be declared: offered as choices, checked by the engine (N99-3).
VALUE_CHOICES = {"10": [(10, "+10"), (-10, "−10")], "A": [(1, "1"), (11, "11")]}


class NinetyNineUI(GameUI):
    show_standings = False  # the tokens list is the standings
    own_forms = frozenset({"play", "missed_draw"})

    def facts(self, view):
        return [(_("Round"), view.get("round")), (_("To play"), view.get("to_play")),
                (_("Draw pile"), view.get("draw_pile"))]

    def forms(self, view):
        active = [p for p in view["players"] if p not in view.get("out", [])]
        return {"active": active, "ranks": cards.STANDARD_RANKS, "suits": cards.STANDARD_SUITS,
                "values": VALUE_CHOICES, "to_play": view.get("to_play")}

    def option_field(self, name, spec):
        if name == "decks":
            return {"kind": "choice", "choices": [("", _("Default (N99-1)")), ("1", _("1 deck")), ("2", _("2 decks"))]}
        if name == "first_player":
            return {"kind": "player", "choices": None}
        return super().option_field(name, spec)

    def build(self, kind, form, view):
        if kind == "play":
            player = form.get("player") or view.get("to_play")
            card = form.get("card", "").strip() or (form.get("rank", "") + form.get("suit", ""))
            if not form.get("card", "").strip() and not (form.get("rank") and form.get("suit")):
                raise FormError(_("Pick the card's rank and suit."))
            move: dict[str, Any] = {"type": "play", "player": player, "card": card}
            rank = form.get("rank", "")
            raw = form.get("value10") if rank == "10" else form.get("valueA") if rank == "A" else None
            if raw:
                move["value"] = whole_number(raw)
                if move["value"] is None:
                    raise FormError(_("The value must be a number."))
            return move
        if kind == "missed_draw":
            return {"type": "missed_draw", "player": form.get("player", "")}
        return super().build(kind, form, view)

    def total_text(self, view):
        if view.get("winners"):
            return game_over(view["winners"])
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
