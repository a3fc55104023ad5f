"""XIX: tricks, the strike decision, the draft and the strike-row trade; or each exchange whole (T-4)."""
from __future__ import annotations

from flask_babel import gettext as _

from referee.web.games import FormError, GameUI, correction_fields, game_over, int_or_text, phase_text

CARDS = list(range(1, 19))


def _int(form, key: str, missing: str):
    raw = form.get(key, "").strip()
    if not raw:
        raise FormError(missing)
    return int_or_text(raw)


class XixUI(GameUI):
    show_standings = False  # the game's own table lists the points
    own_forms = frozenset({"play", "decide", "draft", "trade", "exchange_result"})

    def facts(self, view):
        if view.get("record") == "rounds":  # T-4: no tricks to follow, only who leads the next exchange
            return [(_("Exchange"), view.get("exchange")), (_("Leads"), view.get("to_play"))]
        return [(_("Exchange"), view.get("exchange")), (_("Phase"), phase_text(view.get("phase"), self.engine)),
                (_("To act"), view.get("to_play")), (_("Stakes"), view.get("stakes"))]

    def forms(self, view):
        # what the player to act may hold (X19-7): their open hand, and every card nobody can see; never
        # a card played this exchange, in the other open hand or face up in the strike row
        own = (view.get("open_hands") or {}).get(view.get("to_play")) or []
        held = sorted(set(own) | set(view.get("unseen") or [])) if view.get("unseen") is not None else CARDS
        return {"phase": view.get("phase"), "players": view["players"], "to_play": view.get("to_play"),
                "cards": CARDS, "held": held, "pool": view.get("exchange_cards") or [],
                "slots": view.get("strike_row") or []}

    def exchange_move(self, form, view) -> dict:
        """An exchange entered whole (T-4): each player's strikes (``strikes-<seat>``, 0 when left
        out) and, in version 1.0, who abandoned (left out when blank: a third strike says it)."""
        strikes = {}
        for i, name in enumerate(view["players"]):
            raw = form.get(f"strikes-{i}", "").strip()
            strikes[name] = int_or_text(raw) if raw else 0
        move = {"type": "exchange_result", "strikes": strikes}
        abandoned = form.get("abandoned", "").strip()
        if abandoned:
            move["abandoned"] = abandoned
        return move

    def correction_values(self, view, entry):
        """The exchange as it was entered: each player's strikes and who abandoned."""
        strikes = entry.get("strikes") or {}
        values = {f"strikes-{i}": str(strikes.get(name, 0)) for i, name in enumerate(view["players"])}
        values["abandoned"] = entry.get("abandoned") or ""
        return values

    def option_field(self, name, spec):
        if name == "first_leader":
            return {"kind": "player", "choices": None}
        return super().option_field(name, spec)

    def build(self, kind, form, view):
        player = form.get("player", "")
        if kind == "play":
            return {"type": "play", "player": player, "card": _int(form, "card", _("Choose a card.")),
                    "from": form.get("from", "closed")}
        if kind == "decide":
            return {"type": "decide", "player": player, "choice": form.get("choice", "")}
        if kind == "draft":
            return {"type": "draft", "player": player, "card": _int(form, "card", _("Choose a card."))}
        if kind == "exchange_result":
            return self.exchange_move(form, view)
        if kind == "correct_round":  # T-1: the exchange again, as its exchange result form gives it
            return {**self.exchange_move(form, view), "type": "correct_round", **correction_fields(form)}
        if kind == "trade":
            strike = form.get("strike_card", "").strip()
            return {"type": "trade", "player": player, "card": _int(form, "card", _("Choose the card to give.")),
                    "from": form.get("from", "closed"), "slot": _int(form, "slot", _("Choose a strike-row slot.")),
                    "strike_card": int_or_text(strike) if strike else None}
        return super().build(kind, form, view)

    def announce(self, view, move):
        strikes = view.get("strikes") or {}
        points = view.get("points") or {}
        rounds = view.get("rounds") or []
        if isinstance(move, dict) and move.get("type") in ("exchange_result", "correct_round") and rounds:
            entry = next((r for r in rounds if r.get("round") == move.get("round")), rounds[-1])
            parts = [_("Exchange %(n)s: %(player)s wins %(stakes)s.", n=entry.get("round"), player=entry.get("winner"),
                       stakes=entry.get("stakes"))]
        else:
            parts = [_("Strikes: %(strikes)s.", strikes=", ".join(f"{p} {strikes.get(p, 0)}" for p in view["players"])),
                     _("Stakes %(stakes)s.", stakes=view.get("stakes"))]
        parts.append(_("Points: %(points)s.", points=", ".join(f"{p} {points.get(p, 0)}" for p in view["players"])))
        if view.get("winners"):
            parts.append(game_over(view["winners"]))
        elif view.get("to_play") and view.get("record") == "rounds":
            parts.append(_("%(player)s leads exchange %(n)s.", player=view["to_play"], n=view.get("exchange")))
        elif view.get("to_play"):
            parts.append(_("%(player)s to act (%(phase)s).", player=view["to_play"],
                           phase=phase_text(view.get("phase"), self.engine)))
        return " ".join(parts)

    def totals_text(self, view):
        points = view.get("points") or view.get("standings") or {}
        return _("Points: %(points)s.", points=", ".join(f"{p} {points.get(p, 0)}" for p in view["players"]))


UI = XixUI("xix")
