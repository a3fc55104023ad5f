"""Five Crowns: deal, draw, discard, going out, final turns, and the quick round result."""
from __future__ import annotations

from referee import cards
from referee.web.games import FormError, GameUI, join_names, split_codes, suit_rows


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
        facts = [("Round", view.get("round")), ("Wild", view.get("wild")),
                 ("Cards dealt", view.get("cards_dealt")), ("Step", (view.get("step") or "").replace("_", " ")),
                 ("To play", view.get("to_play")), ("Dealer", view.get("dealer"))]
        if view.get("went_out"):
            facts.append(("Went out", view["went_out"]))
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
            return {"kind": "choice", "choices": [("", "Default (FC-1)"), ("2", "2 decks"), ("4", "4 decks"), ("6", "6 decks (FC-8)")]}
        if name == "dealer":
            return {"kind": "player", "choices": None}
        if name == "tie_break":
            return {"kind": "choice", "choices": [("", "Default: share"), ("share", "share"), ("play_off", "play off")]}
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
                if name == went_out:
                    continue
                cards = split_codes(form.get(f"cards-{i}", ""))
                points = form.get(f"points-{i}", "").strip()
                if cards:
                    hands[name] = {"cards": cards}
                elif points:
                    try:
                        hands[name] = {"points": int(points)}
                    except ValueError:
                        raise FormError(f"{name}'s points must be a whole number.") from None
            return {"type": "round_result", "went_out": went_out, "hands": hands}
        return super().build(kind, form, view)

    def announce(self, view, move):
        parts = []
        rounds = view.get("rounds") or []
        if isinstance(move, dict) and move.get("type") in ("round_result", "final_turn") and rounds:
            last = rounds[-1]
            parts.append(f"Round {last.get('round')} scores: " + ", ".join(
                f"{p} {v}" for p, v in (last.get("scores") or {}).items()) + ".")
        parts.append(self.totals_text(view))
        if view.get("winners"):
            parts.append(f"Game over: {join_names(view['winners'])} won.")
        elif view.get("to_play"):
            parts.append(f"{view['to_play']} to play; {view.get('wild')}s are wild.")
        return " ".join(parts)


UI = FiveCrownsUI("five-crowns")
