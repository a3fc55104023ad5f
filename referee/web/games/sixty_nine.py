"""69: the deal, plays into a set, passes, chances, flips and Scrambles."""
from __future__ import annotations

from collections import Counter

from flask_babel import gettext as _

from referee.cards import SIXTY_NINE_SPECIALS, SIXTY_NINE_SUITS
from referee.rules.sixty_nine.sets import copies_of
from referee.web.games import (
    FormError,
    GameUI,
    game_over,
    int_or_text,
    pad_key,
    pad_row,
    phase_text,
    split_codes,
)


def sixty_nine_cards() -> list[str]:
    """The deck's distinct cards (S69-1): 0-9 in six suits, and the three specials."""
    return [d + s for s in SIXTY_NINE_SUITS for d in "0123456789"] + list(SIXTY_NINE_SPECIALS)


class SixtyNineUI(GameUI):
    show_standings = False  # the game's own table lists the points
    card_list = sixty_nine_cards()
    own_forms = frozenset({"deal", "play", "pass", "chance", "pass_chances", "flip", "scramble"})

    def facts(self, view):
        return [(_("Round"), view.get("round")), (_("Phase"), phase_text(view.get("phase") or "")),
                (_("To play"), view.get("to_play")), (_("Dealer"), view.get("dealer")), (_("Deck"), view.get("deck")),
                (_("Target"), view.get("target"))]

    def forms(self, view):
        chances = view.get("chances") or {}
        table = view.get("table") or []
        return {"phase": view.get("phase"), "players": view["players"], "to_play": view.get("to_play"),
                "cards": self.card_list, "table": table,
                "chance_player": chances.get("player"),
                "chance_sets": [s for s in table if s.get("id") in (chances.get("sets") or [])],
                "pending_scramble": view.get("pending_scramble"),
                "pad": self.card_pad(view),
                "arrangement_pad": self.card_pad(view, keep_table=True) if view.get("pending_scramble") else None}

    def card_pad(self, view, keep_table=False):
        """One row per suit A-F (0-9), then the specials. Cards on the table or captured this round
        are not offered (``keep_table``: the table's cards are, for a Scramble's new arrangement);
        a number card exists once, so its key toggles (S69-1)."""
        public = Counter()
        for sets in (view.get("captured") or {}).values():
            for captured in sets or []:
                public.update((captured.get("cards") or []) if isinstance(captured, dict) else captured)
        if not keep_table:
            for table_set in view.get("table") or []:
                public.update(table_set.get("cards") or [])
        rows: dict[str, list] = {}
        for code in self.card_list:
            offered = public[code] < copies_of(code)
            if code in SIXTY_NINE_SPECIALS:
                name = code.capitalize()
                rows.setdefault("", []).append(pad_key(code, name, name, offered=offered))
            else:
                digit, suit = code[:-1], code[-1]
                name = _("%(number)s of %(suit)s", number=digit, suit=suit)
                rows.setdefault(suit, []).append(pad_key(code, digit, name, single=copies_of(code) == 1,
                                                         offered=offered))
        return [pad_row(_("Suit %(suit)s", suit=suit) if suit else _("Specials"), suit, keys)
                for suit, keys in rows.items()]

    def option_field(self, name, spec):
        if name == "dealer":
            return {"kind": "player", "choices": None}
        return super().option_field(name, spec)

    def build(self, kind, form, view):
        player = form.get("player", "")
        if kind == "deal":
            return {"type": "deal", "dealer": form.get("dealer", ""), "flip": form.get("flip", "")}
        if kind == "play":
            set_id = form.get("set", "").strip()
            if not set_id:
                raise FormError(_("Choose the set the cards go into."))
            cards = split_codes(form.get("cards", ""))
            if not cards:
                raise FormError(_("Enter the cards played, e.g. 6B 7C."))
            return {"type": "play", "player": player, "set": int_or_text(set_id), "cards": cards}
        if kind == "pass":
            return {"type": "pass", "player": player, "flip": form.get("flip", "")}
        if kind == "flip":
            return {"type": "flip", "player": player, "card": form.get("card", "")}
        if kind == "chance":
            per_set = {key[4:]: split_codes(form.get(key, "")) for key in form if key.startswith("set-")}
            if per_set and form.get("many") == "1":
                return {"type": "chance", "player": player,
                        "sets": {k: v for k, v in per_set.items()}}
            return {"type": "chance", "player": player, "cards": split_codes(form.get("cards", ""))}
        if kind == "scramble":
            move = {"type": "scramble", "player": player, "from_hand": split_codes(form.get("from_hand", ""))}
            lines = [split_codes(line) for line in form.get("arrangement", "").splitlines()]
            lines = [line for line in lines if line]
            if form.get("decline") != "1":
                if not lines:
                    raise FormError(_("Enter the new arrangement: one set per line."))
                move["arrangement"] = lines
            return move
        return super().build(kind, form, view)

    def announce(self, view, move):
        parts = []
        table = view.get("table") or []
        claims = [_("set %(set)s claimed by %(player)s with %(count)s", set=s["id"], player=s["claimant"],
                    count=s["count"]) for s in table if s.get("complete") and s.get("claimant")]
        if claims:
            parts.append("; ".join(claims) + ".")
        parts.append(self.totals_text(view))
        if view.get("winners"):
            parts.append(game_over(view["winners"]))
        elif view.get("to_play"):
            parts.append(_("%(player)s to play (%(phase)s).", player=view["to_play"],
                           phase=phase_text(view.get("phase") or "")))
        return " ".join(parts)


UI = SixtyNineUI("sixty-nine")
