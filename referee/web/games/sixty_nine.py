"""69: the deal, plays into a set, passes, chances, flips and Scrambles; and a round entered whole
(each player's points, or their captured sets and cards left in hand), and its correction."""
from __future__ import annotations

from collections import Counter

from flask_babel import gettext as _

from referee.cards import SIXTY_NINE_SPECIALS, SIXTY_NINE_SUITS
from referee.rules.sixty_nine import copies_of
from referee.web.games import (
    FormError,
    GameUI,
    correction_fields,
    game_over,
    int_or_text,
    pad_key,
    pad_row,
    phase_text,
    split_codes,
    whole_number,
)


def sixty_nine_cards() -> list[str]:
    """The deck's distinct cards (S69-1): 0-9 in six suits, and the three specials."""
    return [d + s for s in SIXTY_NINE_SUITS for d in "0123456789"] + list(SIXTY_NINE_SPECIALS)


class SixtyNineUI(GameUI):
    show_standings = False  # the game's own table lists the points
    card_list = sixty_nine_cards()
    own_forms = frozenset({"deal", "play", "pass", "chance", "pass_chances", "flip", "scramble", "round_result"})

    @staticmethod
    def show_card(card):
        """69's codes as they are (6B, WILD): its suits are the letters A-F, never symbols, even the
        C and D that the standard suits would print as clubs and diamonds."""
        return str(card)

    def facts(self, view):
        return [(_("Round"), view.get("round")), (_("Phase"), phase_text(view.get("phase") or "", self.engine)),
                (_("To play"), view.get("to_play")), (_("Dealer"), view.get("dealer")), (_("Deck"), view.get("draw_pile")),
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
                # a flip can only turn up a card that is not in sight (S69-1): on the table or captured
                "flip_cards": [key["code"] for row in self.card_pad(view) for key in row["keys"] if key["offered"]],
                "round_pad": self.card_pad(view, every=True) if view.get("phase") == "round_over" else None,
                "arrangement_pad": self.card_pad(view, keep_table=True) if view.get("pending_scramble") else None}

    def card_pad(self, view, keep_table=False, every=False):
        """One row per suit A-F (0-9), then the specials. Cards on the table or captured this round
        are not offered (``keep_table``: the table's cards are, for a Scramble's new arrangement;
        ``every``: the whole deck, for the sets of a round entered whole); a number card exists
        once, so its key toggles (S69-1)."""
        public = Counter()
        for sets in () if every else (view.get("captured") or {}).values():
            for captured in sets or []:
                public.update((captured.get("cards") or []) if isinstance(captured, dict) else captured)
        if not keep_table and not every:
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
        if kind == "round_result":
            return {"type": "round_result", "emptied": self._emptied(form), "players": self._round_players(form, view)}
        if kind == "correct_round":  # T-1: the round again, as its round result form gives it
            return {**self.build("round_result", form, view), "type": "correct_round", **correction_fields(form)}
        return super().build(kind, form, view)

    @staticmethod
    def _emptied(form) -> str:
        emptied = form.get("emptied", "")
        if not emptied:
            raise FormError(_("Choose whose hand emptied first."))
        return emptied

    @staticmethod
    def _round_players(form, view) -> dict:
        """Each player's round from fields ``points-<i>``, ``captured-<i>`` (one set per line) and
        ``hand-<i>``: the cards when sets or a hand are given, else the points (blank is 0). Points
        typed beside cards are refused, not dropped: the table meant something by them."""
        players = {}
        for i, name in enumerate(view["players"]):
            sets = [cards for cards in (split_codes(line) for line in form.get(f"captured-{i}", "").splitlines())
                    if cards]
            hand = form.get(f"hand-{i}", "").strip()
            points = form.get(f"points-{i}", "").strip()
            if sets or hand:
                if points not in ("", "0"):
                    raise FormError(_("%(player)s: give their points, or their captured sets and cards left in hand, "
                                      "not both.", player=name))
                players[name] = {"captured": sets}
                if hand:
                    players[name]["hand"] = whole_number(hand)
                    if players[name]["hand"] is None:
                        raise FormError(_("%(player)s's cards left in hand must be a whole number.", player=name))
                continue
            players[name] = {"points": whole_number(points) if points else 0}
            if players[name]["points"] is None:
                raise FormError(_("%(player)s's points must be a whole number.", player=name))
        return players

    def correction_values(self, view, entry):
        """Whose hand emptied, and each player's round as it was entered: their points, or their
        captured sets (one per line) and cards left in hand."""
        values = {"emptied": entry.get("emptied") or ""}
        for i, name in enumerate(view["players"]):
            entered = (entry.get("players") or {}).get(name)
            if not isinstance(entered, dict):
                continue
            if "points" in entered:
                values[f"points-{i}"] = str(entered["points"])
                continue
            values[f"captured-{i}"] = "\n".join(" ".join(cards) for cards in entered.get("captured") or [])
            hand = entered.get("hand")
            values[f"hand-{i}"] = str(len(hand) if isinstance(hand, list) else hand or 0)
        return values

    def announce(self, view, move):
        parts = []
        rounds = view.get("rounds") or []
        if isinstance(move, dict) and move.get("type") == "round_result" and rounds:
            last = rounds[-1]
            parts.append(_("Round %(round)s scores: %(scores)s.", round=last.get("round"), scores=", ".join(
                f"{p} {v}" for p, v in (last.get("scores") or {}).items())))
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
                           phase=phase_text(view.get("phase") or "", self.engine)))
        return " ".join(parts)


UI = SixtyNineUI("sixty-nine")
