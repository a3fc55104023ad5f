"""Five Crowns: deal, draw, discard, going out, final turns, and the quick round result."""
from __future__ import annotations

from flask_babel import gettext as _

from referee import cards
from referee.web.games import (
    FormError, GameUI, correction_fields, game_over, phase_text, split_codes, suit_rows,
)


def five_crowns_cards() -> list[str]:
    """The deck's distinct cards (FC-1): ranks 3-K in five suits, and the Joker."""
    return [r + s for s in cards.FIVE_CROWNS_SUITS for r in cards.FIVE_CROWNS_RANKS] + [cards.JOKER]


def melds_from(text: str) -> list[list[str]]:
    """One meld per line (codes separated by spaces or commas)."""
    return [meld for meld in (split_codes(line) for line in text.splitlines()) if meld]


class FiveCrownsUI(GameUI):
    card_list = five_crowns_cards()
    own_forms = frozenset({"deal", "draw", "discard", "go_out", "final_turn", "round_result"})

    def facts(self, view):
        facts = [(_("Round"), view.get("round")), (_("Wild"), view.get("wild")),
                 (_("Cards dealt"), view.get("cards_dealt")),
                 (_("Step"), phase_text(view.get("step") or "", self.engine)),
                 (_("To play"), view.get("to_play")), (_("Dealer"), view.get("dealer"))]
        if view.get("went_out"):
            facts.append((_("Went out"), view["went_out"]))
        return facts

    def forms(self, view):
        return {"step": view.get("step"), "players": view.get("in_round") or view["players"],
                "to_play": view.get("to_play"), "cards": self.card_list,
                "discard_top": view.get("discard_top"), "went_out": view.get("went_out"),
                "pad": self.card_pad(view)}

    def card_pad(self, view):
        """Ranks 3-K per suit, then the Jokers. Every card exists at least twice (FC-1), so a key
        always adds one more copy; the engine counts the copies."""
        return suit_rows(self.card_list)

    def option_field(self, name, spec):
        if name == "decks":
            return {"kind": "choice", "choices": [("", _("Default (FC-1)")), ("2", _("2 decks")), ("4", _("4 decks")),
                                                  ("6", _("6 decks (FC-8)"))]}
        if name == "dealer":
            return {"kind": "player", "choices": None}
        if name == "tie_break":
            return {"kind": "choice", "choices": [("", _("Default: share")), ("share", _("share")),
                                                  ("play_off", _("play off"))]}
        return super().option_field(name, spec)

    def build(self, kind, form, view):
        player = form.get("player", "")
        if kind == "deal":
            return {"type": "deal", "discard": form.get("discard", "")}
        if kind == "draw":
            return {"type": "draw", "player": player, "source": form.get("source", "")}
        if kind == "discard":
            return {"type": "discard", "player": player, "card": form.get("card", "")}
        discard = form.get("discard", "").strip()
        if kind == "go_out":
            cards = split_codes(form.get("cards", ""))
            if cards:  # the referee finds the melds, and the discard when none is chosen (FC-6)
                return {"type": "go_out", "player": player, "cards": cards, **({"discard": discard} if discard else {})}
            return {"type": "go_out", "player": player, "melds": melds_from(form.get("melds", "")),
                    "discard": form.get("discard", "")}
        if kind == "final_turn":
            move = {"type": "final_turn", "player": player, "discard": form.get("discard", "")}
            melds = melds_from(form.get("melds", ""))
            if melds or form.get("leftover", "").strip():
                move.update(melds=melds, leftover=split_codes(form.get("leftover", "")))
            else:
                move["cards"] = split_codes(form.get("cards", ""))
                if not discard:  # the cards alone, the discard among them: the referee finds it (FC-6)
                    del move["discard"]
            return move
        if kind == "round_result":
            went_out = form.get("went_out", "")
            hands = {}
            for i, name in enumerate(view["players"]):
                cards = split_codes(form.get(f"cards-{i}", ""))
                points = form.get(f"points-{i}", "").strip()
                if name == went_out:
                    if cards or points:  # refused, not dropped: the table meant something by it
                        raise FormError(_("%(player)s went out: their hand scores 0, so leave their points and "
                                          "cards empty.", player=name))
                    continue
                if cards:
                    hands[name] = {"cards": cards}
                elif points:
                    try:
                        hands[name] = {"points": int(points)}
                    except ValueError:
                        raise FormError(_("%(player)s's points must be a whole number.", player=name)) from None
            return {"type": "round_result", "went_out": went_out, "hands": hands}
        if kind == "correct_round":  # T-1: the round again, as its round result form gives it
            return {**self.build("round_result", form, view), "type": "correct_round", **correction_fields(form)}
        return super().build(kind, form, view)

    def correction_values(self, view, entry):
        """Who went out, and each other hand as it was entered: its points, or its cards (melds and
        leftover together: the referee lays down the best again, FC-6)."""
        values = {"went_out": entry.get("went_out") or ""}
        for i, name in enumerate(view["players"]):
            hand = (entry.get("hands") or {}).get(name)
            if name == entry.get("went_out") or not isinstance(hand, dict):
                continue
            if "points" in hand:
                values[f"points-{i}"] = str(hand["points"])
            else:
                cards = [c for meld in hand.get("melds") or [] for c in meld] + list(hand.get("leftover") or [])
                values[f"cards-{i}"] = " ".join(cards)
        return values

    def announce(self, view, move):
        parts = []
        rounds = view.get("rounds") or []
        if isinstance(move, dict) and move.get("type") in ("round_result", "final_turn") and rounds:
            last = rounds[-1]
            parts.append(_("Round %(round)s scores: %(scores)s.", round=last.get("round"), scores=", ".join(
                f"{p} {v}" for p, v in (last.get("scores") or {}).items())))
        parts.append(self.totals_text(view))
        if view.get("winners"):
            parts.append(game_over(view["winners"]))
        elif view.get("to_play"):
            parts.append(_("%(player)s to play; %(wild)ss are wild.", player=view["to_play"], wild=view.get("wild")))
        return " ".join(parts)


UI = FiveCrownsUI("five-crowns")
