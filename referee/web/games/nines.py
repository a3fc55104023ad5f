"""Nines: the deal, turns (take, place or discard), reveals, and the quick hand result."""
from __future__ import annotations

from flask_babel import gettext as _
from flask_babel import pgettext

from referee.web.games import (
    FormError, GameUI, correction_fields, game_over, int_or_text, phase_text, standard_cards, suit_rows,
    whole_number,
)

CELLS = 9


def grid_from(form, index: int, fill: bool) -> list | dict:
    """Cells ``g-<player index>-<position>``: the whole grid (``fill``) or only the cells given."""
    cells = {pos: form.get(f"g-{index}-{pos}", "").strip() for pos in range(CELLS)}
    if fill:
        return [cells[pos] for pos in range(CELLS)]
    return {str(pos): code for pos, code in cells.items() if code}


class NinesUI(GameUI):
    card_list = standard_cards(jokers=True)
    own_forms = frozenset({"deal", "turn", "reveal", "reveal_all", "hand_result"})

    def facts(self, view):
        facts = [(pgettext("the hand being played", "Hand"), view.get("hand")),
                 (_("Phase"), phase_text(view.get("phase"), self.engine)),
                 (_("To play"), view.get("to_play")), (_("Dealer"), view.get("dealer")),
                 (_("Target"), view.get("target"))]
        if view.get("done"):
            facts.append((_("Done"), view["done"]))
            facts.append((_("Final turns left"), ", ".join(view.get("final_turns_left") or []) or _("none")))
        return facts

    def forms(self, view):
        return {"phase": view.get("phase"), "players": view["players"], "cards": self.card_list,
                "to_play": view.get("to_play"), "discard_top": view.get("discard_top"),
                "grids": view.get("grids") or {}, "pad": self.card_pad(view)}

    def card_pad(self, view):
        """A-K per suit and the Jokers, for the grids: a key fills the chosen cell (N9-1: several
        decks, so every card stays on offer; the engine counts the copies)."""
        return suit_rows(self.card_list)

    def option_field(self, name, spec):
        if name == "dealer":
            return {"kind": "player", "choices": None}
        if name == "decks":
            return {"kind": "number", "choices": None}
        return super().option_field(name, spec)

    def build(self, kind, form, view):
        players = view["players"]
        if kind == "deal":
            return {"type": "deal", "discard": form.get("discard", ""),
                    "revealed": {p: grid_from(form, i, fill=False) for i, p in enumerate(players)}}
        if kind == "hand_result" and form.get("by") == "points":  # T-4: each player's points
            points = {}
            for i, p in enumerate(players):
                points[p] = whole_number(form.get(f"points-{i}", ""))
                if points[p] is None:
                    raise FormError(_("%(player)s's points must be a whole number.", player=p))
            return {"type": "hand_result", "points": points}
        if kind == "hand_result":
            return {"type": "hand_result", "grids": {p: grid_from(form, i, fill=True) for i, p in enumerate(players)}}
        if kind == "correct_round":  # T-1: the hand again, as its hand result form gives it
            return {**self.build("hand_result", form, view), "type": "correct_round", **correction_fields(form)}
        if kind == "reveal_all":
            return {"type": "reveal_all", "grids": {p: grid_from(form, players.index(p), fill=True)
                                                   for p in view.get("reveals_pending") or []}}
        if kind == "reveal":
            player = form.get("player", "")
            if player not in players:
                raise FormError(_("Choose whose grid this is."))
            return {"type": "reveal", "player": player, "grid": grid_from(form, players.index(player), fill=True)}
        if kind == "turn":
            position = form.get("position", "")
            replaced = form.get("replaced", "").strip()
            move = {"type": "turn", "player": form.get("player", ""), "source": form.get("source", ""),
                    "card": form.get("card", ""), "position": int_or_text(position) if position else None}
            if replaced:
                move["replaced"] = replaced
            return move
        return super().build(kind, form, view)

    def form_grids(self, form, view) -> dict:
        """The grids a form holds (cells ``g-<player index>-<position>``), for filling it again."""
        return {p: grid_from(form, i, fill=True) for i, p in enumerate(view["players"])}

    def correction_values(self, view, entry):
        """Every final grid of the hand, cell by cell; or each player's points, when the hand was
        entered as points (T-4)."""
        grids = entry.get("grids") or {}
        if not grids:
            return {"by": "points", **{f"points-{i}": str(entry["scores"].get(p, "")) for i, p in
                                       enumerate(view["players"])}}
        return {f"g-{i}-{pos}": code for i, p in enumerate(view["players"])
                for pos, code in enumerate(grids.get(p) or []) if code}

    def announce(self, view, move):
        parts = []
        rounds = view.get("rounds") or []
        if isinstance(move, dict) and move.get("type") in ("hand_result", "reveal", "reveal_all", "turn") and rounds \
                and rounds[-1].get("round") == (view.get("hand") or 0) - (0 if view.get("winners") else 1):
            last = rounds[-1]
            parts.append(_("Hand %(hand)s scores: %(scores)s.", hand=last["round"],
                           scores=", ".join(f"{p} {last['scores'][p]}" for p in view["players"])))
        parts.append(self.totals_text(view))
        if view.get("winners"):
            parts.append(game_over(view["winners"]))
        elif view.get("phase") == "deal":
            parts.append(_("%(dealer)s to deal; %(player)s plays first.", dealer=view.get("dealer"),
                           player=view.get("to_play")))
        elif view.get("to_play"):
            parts.append(_("%(player)s to play.", player=view["to_play"]))
        return " ".join(parts)


UI = NinesUI("nines")
