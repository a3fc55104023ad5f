"""Taps per round on the phone pages: headless Chromium at 390x844 (a phone) holds a game's key and
plays ONE round of each game in each way a table records it (T-4), counting what a person does.
Prints figures; run ``python -m bench.taps`` (three to five minutes on 2 vCPUs; ``--only xix
five-crowns`` for some games, ``--seed N`` for other shuffles, ``--show`` for a visible browser
where a display exists).

A tap is a click (a card key, a chip, a button, a summary that opens a folded form) or a field
filled (a number, a card code or a line of codes typed: one fill however long); a select changed
counts one; a field left at its prefilled value (a player already chosen, a 0, a chip already
checked, the discard pile's top card) costs nothing; the submit counts. A field of card codes is
typed (one tap), where a table picking them on the card pad taps a key per card; the Nines grids
are entered both ways (a cell each either way).

Every game runs on a fresh SQLite database served as deployed (``bench.common.Server``: gunicorn
with the project's config, on loopback), is created through the API (4 players, 2 for XIX) and
opened through a table link (``/g/<id>/join#<code>``) as the phone that keeps score. After every
submit the move log is read through the API: a form the service refused (or that never reached it)
stops the row, which is then printed as not measured, with why; a round is counted only once the
state's ``rounds`` grew.

The moves are planned in process with the engines themselves (a mirror of the game, fed from the
move log): Ninety-nine, Five Crowns and Nines from shuffled decks and real hands (each player plays
a sensible card from the hand), XIX and 69 by the test suite's random players
(``tests/rules/players``), restricted to the moves a table makes at the table (no adjustments,
corrections or switches; a 69 chance that adds nothing becomes "Nobody else adds", an XIX player
raises at the first strike). The rounds-mode entries are one typical round each (listed beside the
row); Ninety-nine's is the round just played card by card, entered whole.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import requests

from bench.common import ROOT, Server, machine

sys.path.insert(0, str(ROOT / "tests" / "rules"))

from players import sixty_nine as sixty_nine_player
from players import xix as xix_player

from referee.cards import (
    FIVE_CROWNS_RANKS,
    FIVE_CROWNS_SUITS,
    JOKER,
    STANDARD_RANKS,
    STANDARD_SUITS,
    rank_of,
)
from referee.rules import ENGINES
from referee.rules import five_crowns as fc
from referee.rules import nines as n9
from referee.rules import ninety_nine as nn
from referee.rules.five_crowns.solver import best_discard, go_out_discard, is_wild

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
FOUR = ["Ann", "Bob", "Cy", "Dee"]
TWO = ["Ann", "Bob"]
TABLE_MOVES = {"adjust", "switch_record", "correct_round"}  # the table's own moves: never planned here


class NotMeasured(Exception):
    """A row that could not be measured: the page refused, lacked a form, or the round never ended."""


# ---------------------------------------------------------------- one phone at one table

class Table:
    """One phone holding the key of one new game, counting its taps; ``state`` mirrors the game in
    process (the engine fed with the service's own move log) for planning the next move."""

    def __init__(self, browser, base: str, game: str, players: list[str], record: str, **options):
        self.base, self.name, self.players = base, game, list(players)
        response = requests.post(f"{base}/api/v1/games", timeout=10, json={
            "game": game, "players": players, "options": {"record": record, **options}})
        response.raise_for_status()
        created = response.json()
        self.id, self.token = created["id"], created["token"]
        self.engine = ENGINES[game]
        self.state = self.engine.new_game(list(players), dict(created["options"]))
        self.seq = 0
        self.planned: dict | None = None  # the move the page is entering, for a log entry that hides a field
        self.taps = 0
        self.entries = 0
        link = requests.post(f"{base}/api/v1/games/{self.id}/links", timeout=10,
                             headers={"Authorization": f"Bearer {self.token}"})
        link.raise_for_status()
        self.context = browser.new_context(viewport=PHONE, base_url=base)
        self.context.set_default_timeout(15000)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.goto(f"{base}/g/{self.id}/join#{link.json()['code']}")
        self.page.wait_for_url(f"{base}/g/{self.id}")  # the join page posts the code by itself

    def close(self) -> None:
        self.context.close()

    def view(self) -> dict:
        response = requests.get(f"{self.base}/api/v1/games/{self.id}", timeout=10)
        response.raise_for_status()
        return response.json()

    def allowed(self) -> dict:
        """What the table may do now, but its own moves (T-1, T-2, T-4)."""
        return {k: v for k, v in self.engine.allowed(self.state).items() if k not in TABLE_MOVES}

    # -- the taps
    def click(self, locator) -> None:
        locator.click()
        self.taps += 1

    def open(self, summary) -> None:
        """Unfold a ``details`` by its summary: a tap, unless it is open already."""
        if not summary.evaluate("s => s.parentElement.open"):
            self.click(summary)

    def fill(self, locator, text: str) -> None:
        if locator.input_value() != text:
            locator.fill(text)
            self.taps += 1

    def select(self, locator, value: str) -> None:
        if locator.input_value() != value:
            locator.select_option(value)
            self.taps += 1

    def chip(self, form, name: str, value) -> None:
        radio = form.locator(f'input[name="{name}"][value="{value}"]')
        if radio.count() != 1:
            raise NotMeasured(f"no {name}={value} chip in the form")
        if not radio.is_checked():
            self.click(form.locator(f'input[name="{name}"][value="{value}"] + span'))

    def form(self, form_id: str):
        form = self.page.locator(f"#{form_id}")
        try:
            form.wait_for(state="attached", timeout=5000)
        except Exception:  # noqa: BLE001  Playwright's timeout: the page has no such form
            raise NotMeasured(f"the page shows no #{form_id} (version {self.view()['version']})") from None
        return form

    def submit(self, button) -> None:
        """The submitting tap: the page posts the form and comes back; the move must be in the log."""
        with self.page.expect_navigation():
            button.click()
        self.taps += 1
        if not self.sync():
            refusal = self.page.locator("#refused")
            said = refusal.inner_text().strip() if refusal.count() else "no move was recorded"
            raise NotMeasured(f"the page's entry was refused: {' '.join(said.split())[:300]}")
        self.entries += 1

    def sync(self) -> int:
        """Apply the move log's new moves to the mirror; how many there were."""
        response = requests.get(f"{self.base}/api/v1/games/{self.id}/moves", params={"after": self.seq},
                                timeout=10)
        response.raise_for_status()
        new = [m for m in response.json()["moves"] if not m["voided"]]
        for entry in new:
            move = entry["move"]
            if "hidden" in move:  # G-5: a private field (XIX's closed cards) is left out of the log
                if self.planned is None or self.planned.get("type") != move["type"]:
                    raise NotMeasured(f"the log hides {move['hidden']} of a move this bench did not plan")
                move = self.planned
            self.state = self.engine.apply(self.state, move)
            self.seq = entry["seq"]
        return len(new)

    def rounds(self) -> int:
        return len(self.view()["rounds"])


# ---------------------------------------------------------------- Ninety-nine

def ninety_nine_moves(table: Table, rng: random.Random) -> dict:
    """A whole round card by card through the card pad: every player holds three real cards from a
    shuffled deck and plays the one that costs them least (reaching 33, 66 or 99 when it can)."""
    deck = [r + s for s in STANDARD_SUITS for r in STANDARD_RANKS]
    rng.shuffle(deck)
    hands = {p: [deck.pop() for _ in range(3)] for p in table.players}
    pile: list[str] = []
    played, tens_and_aces, player = 0, 0, None
    while not table.state["rounds"]:
        player = table.state["to_play"]
        active = len(table.players) - len(table.state["out"])
        options = []
        for card in hands[player]:
            for value in nn.DECLARED.get(rank_of(card), (None,)):
                effect = nn.play_effect(table.state["total"], card, value, active)
                options.append((effect.player_loses, -effect.others_lose, rng.random(), card, value))
        options.sort()
        _, _, _, card, value = options[0]
        code = card if value is None else f"{card}:{value}"
        key = table.page.locator(f'#play-form button[name=card][value="{code}"]')
        if key.count() != 1:
            raise NotMeasured(f"no key {code} on the card pad")
        table.submit(key)
        played += 1
        tens_and_aces += value is not None
        hands[player].remove(card)
        pile.append(card)
        if not deck:  # N99-8: the played cards but the top one are shuffled into a new deck
            deck, pile = pile[:-1], pile[-1:]
            rng.shuffle(deck)
        hands[player].append(deck.pop())
    # the round as a table enters it whole: the tokens each player lost, and who played its last card
    lost = {p: -score for p, score in table.state["rounds"][0]["scores"].items() if score}
    return {"cards": played, "tens_and_aces": tens_and_aces, "entry": {"lost": lost, "ended_by": player}}


def ninety_nine_rounds(table: Table, entry: dict) -> str:
    """A round entered whole: each player's tokens lost (prefilled 0) and who ended it; how it
    ended is left unsaid (optional)."""
    form = table.form("round-result-form")
    lost = entry.get("lost") or {}
    for name, tokens in lost.items():
        table.fill(form.locator(f'input[name="lost-{table.players.index(name)}"]'), str(tokens))
    table.chip(form, "ended_by", entry["ended_by"])
    table.submit(form.locator("button[type=submit]"))
    shown = ", ".join(f"{p} -{n}" for p, n in lost.items() if n)
    return f"tokens lost ({shown}), who ended it ({entry['ended_by']})"


# ---------------------------------------------------------------- Nines

NINES_GRIDS = {"Ann": ["2H", "2S", "2D", "5H", "5S", "5D", "KH", "KS", "KD"],
               "Bob": ["3H", "3S", "3D", "4H", "4S", "4D", "AH", "AS", "AD"],
               "Cy": ["6H", "7S", "8D", "9H", "10S", "JD", "QH", "KC", "AC"],
               "Dee": ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C"]}


def nines_points(table: Table) -> str:
    form = table.form("hand-points-form")
    points = [12, 0, 27, 5]  # every field is required: a 0 is typed too
    for i, n in enumerate(points):
        table.fill(form.locator(f'input[name="points-{i}"]'), str(n))
    table.submit(form.locator("button[type=submit]"))
    return "each player's points (" + ", ".join(map(str, points)) + ")"


def nines_grids(table: Table) -> str:
    table.open(table.page.locator("summary", has_text="Or enter the final grids"))
    form = table.form("hand-result-form")
    for i, name in enumerate(table.players):
        for pos, code in enumerate(NINES_GRIDS[name]):
            table.fill(form.locator(f'input[name="g-{i}-{pos}"]'), code)
    table.submit(form.locator("button[type=submit]"))
    return f"every final grid typed cell by cell ({9 * len(table.players)} cells), the folded form opened"


def nines_grids_pad(table: Table) -> str:
    """The same grids through the form's card pad: a key fills the chosen cell, then the next empty
    one, so the cells are filled in order with a key each."""
    table.open(table.page.locator("summary", has_text="Or enter the final grids"))
    form = table.form("hand-result-form")
    pad = form.locator("[data-pad-grid]")
    table.open(pad.locator("summary"))
    for name in table.players:
        for code in NINES_GRIDS[name]:
            table.click(pad.locator(f'button[data-code="{code}"]'))
    for i, name in enumerate(table.players):  # the pad filled every cell as meant
        got = [form.locator(f'input[name="g-{i}-{pos}"]').input_value() for pos in range(9)]
        if got != NINES_GRIDS[name]:
            raise NotMeasured(f"the card pad filled {name}'s grid as {got}")
    table.submit(form.locator("button[type=submit]"))
    return f"every final grid with the card pad ({9 * len(table.players)} keys), the folded form and the pad opened"


def nines_moves(table: Table, rng: random.Random) -> dict:
    """A whole hand: the deal (the discard and three face-up cards each), every turn, the reveals
    (all at once) and the final turns. Real grids from a shuffled shoe; a player takes the discard
    when it is low, places a low card over their worst face-up card or a face-down one, and now and
    then places a high card blind, else discards it."""
    decks = table.state["options"]["decks"]
    shoe = [r + s for s in STANDARD_SUITS for r in STANDARD_RANKS] * decks + [JOKER] * (2 * decks)
    rng.shuffle(shoe)
    grids = {p: [shoe.pop() for _ in range(9)] for p in table.players}
    up = {p: set(rng.sample(range(9), 3)) for p in table.players}
    first = shoe.pop()
    points = n9.card_points

    # the deal
    form = table.form("deal-form")
    table.select(form.locator('select[name="discard"]'), first)
    for i, name in enumerate(table.players):
        for pos in sorted(up[name]):
            table.fill(form.locator(f'input[name="g-{i}-{pos}"]'), grids[name][pos])
    table.submit(form.locator("button[type=submit]"))
    counts = Counter(deal=1)
    taps_at = {"deal": table.taps}

    while not table.state["rounds"]:
        phase = table.state["phase"]
        before = table.taps
        if phase == "reveal":
            pending = list(table.state["reveals_pending"])
            if len(pending) > 1:
                table.open(table.page.locator("summary", has_text="Turn up every grid at once"))
                form = table.form("reveal-all-form")
            else:
                form = table.form("reveal-form")
            for name in pending:
                i = table.players.index(name)
                for pos in range(9):
                    table.fill(form.locator(f'input[name="g-{i}-{pos}"]'), grids[name][pos])
                up[name] = set(range(9))
            table.submit(form.locator("button[type=submit]"))
            counts["reveal"] += 1
            taps_at["reveal"] = taps_at.get("reveal", 0) + table.taps - before
            continue
        player = table.state["to_play"]
        grid, face_up = grids[player], up[player]
        top = table.state["discard_pile"][-1]
        if points(top) <= 3:
            source, card = "discard", top
        else:
            source = "stock"
            known = table.state.get("stock_cards")
            card = rng.choice(known) if known is not None else shoe.pop()
        down = [pos for pos in range(9) if pos not in face_up]
        worst = max(face_up, key=lambda pos: points(grid[pos]), default=None)
        if points(card) <= 4:
            if worst is not None and points(grid[worst]) > points(card) + 3:
                position = worst
            elif down:
                position = rng.choice(down)
            elif worst is not None and points(grid[worst]) > points(card):
                position = worst
            else:
                position = None
        elif down and rng.random() < 0.6:
            position = rng.choice(down)
        elif worst is not None and points(grid[worst]) > points(card):
            position = worst
        else:
            position = None
        form = table.form("turn-form")
        table.select(form.locator('select[name="player"]'), player)
        table.chip(form, "source", source)
        table.select(form.locator('select[name="card"]'), card)
        table.chip(form, "position", "" if position is None else position)
        if position is not None and position not in face_up:
            table.select(form.locator('select[name="replaced"]'), grid[position])
        table.submit(form.locator("button[type=submit]"))
        if position is not None:
            grid[position] = card
            face_up.add(position)
        counts["turn"] += 1
        taps_at["turn"] = taps_at.get("turn", 0) + table.taps - before
    return {"counts": counts, "taps": taps_at}


# ---------------------------------------------------------------- Five Crowns

def five_crowns_points(table: Table) -> str:
    form = table.form("round-result-form")
    table.select(form.locator('select[name="went_out"]'), "Ann")
    points = {1: 14, 2: 3, 3: 26}
    for i, n in points.items():
        table.fill(form.locator(f'input[name="points-{i}"]'), str(n))
    table.submit(form.locator("button[type=submit]"))
    return "who went out (Ann), each other player's points"


def five_crowns_cards(table: Table) -> str:
    form = table.form("round-result-form")
    table.select(form.locator('select[name="went_out"]'), "Bob")
    hands = {0: "4S 9D KC", 2: "5H 5S JK", 3: "7* 8* QD"}
    for i, cards in hands.items():
        table.fill(form.locator(f'input[name="cards-{i}"]'), cards)
    table.submit(form.locator("button[type=submit]"))
    return "who went out (Bob), each other hand's cards typed (one field each)"


def five_crowns_moves(table: Table, rng: random.Random) -> dict:
    """Round 1 (3 cards, 3s wild) from a shuffled shoe: the deal, draws and discards (a player takes
    the discard when it lets them go out or is wild, else the stock, and discards the card whose
    loss costs least), going out with the cards alone (the referee finds the melds and the discard,
    FC-6), and each other player's draw and final turn, the cards alone."""
    decks = table.state["options"]["decks"]
    deck = [r + s for s in FIVE_CROWNS_SUITS for r in FIVE_CROWNS_RANKS] + [JOKER]
    shoe = [c for c in deck for _ in range(fc._copies(c, decks))]
    rng.shuffle(shoe)
    dealt, wild = table.state["cards_dealt"], table.state["wild"]
    hands = {p: [shoe.pop() for _ in range(dealt)] for p in table.players}
    pile = [shoe.pop()]

    form = table.form("deal-form")
    table.select(form.locator('select[name="discard"]'), pile[-1])
    table.submit(form.locator("button[type=submit]"))
    counts, taps_at = Counter(deal=1), {"deal": table.taps}

    def count(kind: str, before: int) -> None:
        counts[kind] += 1
        taps_at[kind] = taps_at.get(kind, 0) + table.taps - before

    while not table.state["rounds"]:
        player, step = table.state["to_play"], table.state["step"]
        hand = hands[player]
        before = table.taps
        if step == "draw":
            top = pile[-1]
            take = is_wild(top, wild) or (not table.state["went_out"] and go_out_discard(hand + [top], wild))
            if not take and not shoe:  # FC-7: the pile but its top card becomes the stock
                shoe, pile = pile[:-1], pile[-1:]
                rng.shuffle(shoe)
            card = pile.pop() if take else shoe.pop()
            hand.append(card)
            form = table.form("draw-form")
            table.select(form.locator('select[name="player"]'), player)
            table.chip(form, "source", "discard" if take else "stock")
            table.submit(form.locator("button[type=submit]"))
            count("draw", before)
        elif table.state["went_out"]:  # after the draw of a final turn (FC-4)
            form = table.form("final-turn-form")
            table.fill(form.locator('input[name="cards"]'), " ".join(hand))  # the referee picks the discard
            table.submit(form.locator("button[type=submit]"))
            discard, _ = best_discard(hand, wild)
            hand.remove(discard)
            pile.append(discard)
            count("final_turn", before)
        elif go_out_discard(hand, wild) is not None:
            table.open(table.page.locator("summary", has_text="goes out"))
            form = table.form("go-out-form")
            table.fill(form.locator('input[name="cards"]'), " ".join(hand))  # the referee picks the discard
            table.submit(form.locator("button[type=submit]"))
            discard = go_out_discard(hand, wild)
            hand.remove(discard)
            pile.append(discard)
            count("go_out", before)
        else:
            discard, _ = best_discard(hand, wild)
            form = table.form("discard-form")
            table.select(form.locator('select[name="player"]'), player)
            table.select(form.locator('select[name="card"]'), discard)
            table.submit(form.locator("button[type=submit]"))
            hand.remove(discard)
            pile.append(discard)
            count("discard", before)
    return {"counts": counts, "taps": taps_at}


# ---------------------------------------------------------------- 69

def sixty_nine_points(table: Table) -> str:
    form = table.form("round-result-form")
    table.chip(form, "emptied", "Ann")
    points = [15, 6, 0, 3]  # a blank counts 0: a player who scored nothing costs no tap
    for i, n in enumerate(points):
        if n:
            table.fill(form.locator(f'input[name="points-{i}"]'), str(n))
    table.submit(form.locator("button[type=submit]"))
    return "whose hand emptied (Ann), the points that are not 0 (15, 6, 0, 3)"


def sixty_nine_sets(table: Table) -> str:
    """Two players' captured sets typed (one line each), one of them with cards left in hand;
    the others' points."""
    form = table.form("round-result-form")
    table.chip(form, "emptied", "Bob")
    cards = {1: ("5A 5B 5C\n1D 2E 3F", ""), 2: ("6A 7B 8C 9D", "3")}
    for i, (sets, hand) in cards.items():
        table.open(form.locator("summary", has_text=f"Or {table.players[i]}'s cards"))
        table.fill(form.locator(f'textarea[name="captured-{i}"]'), sets)
        if hand:
            table.fill(form.locator(f'input[name="hand-{i}"]'), hand)
    table.fill(form.locator('input[name="points-0"]'), "4")
    table.submit(form.locator("button[type=submit]"))
    return "whose hand emptied (Bob), Bob's and Cy's sets typed (Cy: 3 cards left), Ann's points"


def sixty_nine_moves(table: Table, rng: random.Random) -> dict:
    """A whole round as the random player of the test suite plays it: the deal, plays of a card into
    a set, passes with a flip, chances, flips after a capture, a Scramble declined. A chance that
    adds nothing is entered as the table would, "Nobody else adds" (S69-4, one tap for the rest)."""
    counts, taps_at = Counter(), {}
    guard = 0
    while not table.state["rounds"]:
        guard += 1
        if guard > 400:
            raise NotMeasured("the round did not end in 400 entries")
        move = table.planned = sixty_nine_player.random_move(table.state, table.allowed(), rng)
        kind = move["type"]
        before = table.taps
        if kind == "deal":
            form = table.form("deal-form")
            table.select(form.locator('select[name="dealer"]'), move["dealer"])
            table.select(form.locator('select[name="flip"]'), move["flip"])
        elif kind == "play":
            form = table.form("play-form")
            table.select(form.locator('select[name="player"]'), move["player"])
            table.chip(form, "set", move["set"])
            table.fill(form.locator('input[name="cards"]'), " ".join(move["cards"]))
        elif kind == "pass":
            table.open(table.page.locator("summary", has_text="Pass and flip"))
            form = table.form("pass-form")
            table.select(form.locator('select[name="player"]'), move["player"])
            table.select(form.locator('select[name="flip"]'), move["flip"])
        elif kind == "flip":
            form = table.form("flip-form")
            table.select(form.locator('select[name="card"]'), move["card"])
        elif kind == "pass_chances":
            form = table.form("pass-chances-form")
        elif kind == "chance" and not any((move.get("sets") or {}).values()) and not move.get("cards"):
            # a player who adds nothing: the table says "Nobody else adds" once (S69-4)
            move = table.planned = {"type": "pass_chances"}
            kind = "pass_chances"
            form = table.form("pass-chances-form")
        elif kind == "chance":
            form = table.form("chance-form")
            many = form.locator('input[name="many"]').count() > 0
            for set_id, added in (move.get("sets") or {}).items():
                field = f'input[name="set-{set_id}"]' if many else 'input[name="cards"]'
                table.fill(form.locator(field), " ".join(added))
        elif kind == "scramble":
            form = table.form("scramble-form")
            table.submit(form.locator('button[name="decline"]'))
            counts[kind] += 1
            taps_at[kind] = taps_at.get(kind, 0) + table.taps - before
            continue
        else:
            raise NotMeasured(f"no page form planned for a {kind}")
        table.submit(form.locator("button[type=submit]").first)
        counts[kind] += 1
        taps_at[kind] = taps_at.get(kind, 0) + table.taps - before
    return {"counts": counts, "taps": taps_at}


# ---------------------------------------------------------------- XIX

def xix_rounds(table: Table) -> str:
    form = table.form("exchange-result-form")
    table.chip(form, "strikes-0", 1)
    table.chip(form, "strikes-1", 2)
    table.chip(form, "abandoned", "Bob")
    table.submit(form.locator("button[type=submit]"))
    return "strikes (Ann 1, Bob 2; 0 prefilled), who abandoned (Bob)"


def xix_moves(table: Table, rng: random.Random) -> dict:
    """One exchange as the random player of the test suite plays it (cards from either hand; a
    player raises at the first strike, then raises or abandons at random), then the draft and the
    trade the page asks for."""
    counts, taps_at = Counter(), {}
    exchange = table.state["exchange"]
    guard = 0
    while table.state["exchange"] == exchange and table.state["phase"] != "finished":
        guard += 1
        if guard > 100:
            raise NotMeasured("the exchange did not end in 100 entries")
        move = table.planned = xix_player.random_move(table.state, table.allowed(), rng)
        kind = move["type"]
        before = table.taps
        if kind == "decide":  # a table raises at its first strike, then decides either way
            choice = "raise" if table.state["strikes"][move["player"]] < 2 else move["choice"]
            move = table.planned = {**move, "choice": choice}
            form = table.form("decide-form")
            table.submit(form.locator(f'button[name="choice"][value="{move["choice"]}"]'))
        else:
            form = table.form(f"{kind}-form")
            table.select(form.locator('select[name="player"]'), move["player"])
            table.chip(form, "card", move["card"])
            if kind in ("play", "trade"):
                table.chip(form, "from", move["from"])
            if kind == "trade":
                table.chip(form, "slot", move["slot"])
            table.submit(form.locator("button[type=submit]"))
        counts[kind] += 1
        taps_at[kind] = taps_at.get(kind, 0) + table.taps - before
    if not table.state["rounds"]:
        raise NotMeasured("the exchange ended without a round")
    return {"counts": counts, "taps": taps_at}


# ---------------------------------------------------------------- the rows

def breakdown(result: dict) -> str:
    """Entries by kind with the taps each took on average: ``turn 24x3.5``."""
    parts = []
    for kind, n in result["counts"].items():
        taps = result["taps"].get(kind)
        parts.append(f"{kind} {n}x{taps / n:.1f}" if taps is not None else f"{kind} {n}")
    return ", ".join(parts)


def run(browser, base: str, seed: int, only: set[str] | None = None) -> list[dict]:
    rows: list[dict] = []

    def row(game: str, record: str, players: list[str], what: str, play, goal: str = "-", before: str = "-"):
        """One round of ``game`` entered by ``play(table)``, which may return what it entered (words, or
        a dict of the row's fields); ``what`` says it beforehand. A failure is a row that says why."""
        if only and game not in only:
            return
        out = {"game": game, "record": record, "players": len(players), "goal": goal, "before": before,
               "what": what}
        table = None
        try:
            table = Table(browser, base, ENGINE_NAMES[game], players, record)
            rounds = table.rounds()
            said = play(table)
            if table.rounds() != rounds + 1:
                raise NotMeasured("the round was not scored (the state's rounds did not grow)")
            out.update(taps=table.taps, entries=table.entries)
            out.update({"what": said} if isinstance(said, str) else said or {})
            if table.errors:
                out["note"] = f"page errors: {table.errors[:2]}"
        except Exception as exc:  # noqa: BLE001  a bench prints what broke and goes on
            said = str(exc) if isinstance(exc, NotMeasured) else f"{type(exc).__name__}: {exc}"
            out["failed"] = " ".join(said.split())[:300]
            if table is not None:  # the page as it was, for whoever looks into it
                shot = Path(tempfile.gettempdir()) / f"bench-taps-{ENGINE_NAMES[game]}-{record}.png"
                try:
                    table.page.screenshot(path=str(shot), full_page=True)
                    out["failed"] += f" (the page: {shot})"
                except Exception as why:  # noqa: BLE001  the row says why it failed either way
                    out["failed"] += f" (no screenshot: {type(why).__name__})"
        finally:
            if table is not None:
                table.close()
        rows.append(out)

    def points_goal(players: list[str]) -> str:
        return f"<= {len(players) + 2} taps"  # issue 33: a points-only round in players + 2 taps

    # Ninety-nine: card by card, then the same round entered whole
    played: dict = {}

    def n99_moves(table):
        result = ninety_nine_moves(table, random.Random(seed))
        played.update(result)
        before = 3 * result["cards"] + result["tens_and_aces"]
        return {"what": f"a whole round card by card through the card pad: {result['cards']} cards, "
                        f"{result['tens_and_aces']} of them a 10 or an A",
                "per_card": table.taps / result["cards"],
                "before": f"3/card, 4 for a 10 or an A: {before} for this round (37 for 12 cards)"}

    def n99_rounds(table):
        if played.get("entry"):
            return "the same round entered whole: " + ninety_nine_rounds(table, played["entry"])
        return "a typical round (the card-by-card row failed): " + ninety_nine_rounds(
            table, {"lost": {"Cy": 2, "Ann": 1}, "ended_by": "Cy"})

    row("Ninety-nine", "moves", FOUR, "a whole round card by card through the card pad", n99_moves,
        goal="<= 1.2/card")
    row("Ninety-nine", "rounds", FOUR, "the round whole: tokens lost, who ended it", n99_rounds,
        goal=points_goal(FOUR), before="- (card by card only)")

    # Nines
    row("Nines", "rounds", FOUR, "each player's points", nines_points, goal=points_goal(FOUR),
        before="31 per hand (3 players, the grids)")
    row("Nines", "rounds", FOUR, "every final grid, cell by cell", nines_grids,
        before="31 per hand (3 players: 27 cells)")
    row("Nines", "rounds", FOUR, "every final grid, with the card pad", nines_grids_pad)
    row("Nines", "moves", FOUR, "a whole hand through the move forms",
        lambda table: {"what": "a whole hand: " + breakdown(nines_moves(table, random.Random(seed)))})

    # Five Crowns
    row("Five Crowns", "rounds", FOUR, "who went out, the others' points", five_crowns_points,
        goal=points_goal(FOUR), before="9 plus typing (4 players, scores only)")
    row("Five Crowns", "rounds", FOUR, "who went out, the others' cards", five_crowns_cards)
    row("Five Crowns", "moves", FOUR, "round 1 through the move forms",
        lambda table: {"what": "round 1 (3 cards, 3s wild): " + breakdown(five_crowns_moves(table,
                                                                                           random.Random(seed)))})

    # 69
    row("69", "rounds", FOUR, "whose hand emptied, the points", sixty_nine_points, goal=points_goal(FOUR),
        before="about 24 for a short round (3 players)")
    row("69", "rounds", FOUR, "whose hand emptied, captured sets typed", sixty_nine_sets)
    row("69", "moves", FOUR, "a whole round through the move forms",
        lambda table: {"what": "a whole round: " + breakdown(sixty_nine_moves(table, random.Random(seed)))})

    # XIX
    row("XIX", "rounds", TWO, "an exchange whole: strikes, who abandoned", xix_rounds, goal=points_goal(TWO),
        before="12 per exchange")
    row("XIX", "moves", TWO, "an exchange, its draft and trade through the move forms",
        lambda table: {"what": "an exchange, its draft and trade: " + breakdown(xix_moves(table,
                                                                                          random.Random(seed)))})
    return rows


ENGINE_NAMES = {"Ninety-nine": "ninety-nine", "Nines": "nines", "Five Crowns": "five-crowns", "69": "sixty-nine",
                "XIX": "xix"}
ALIASES = {**{engine: game for game, engine in ENGINE_NAMES.items()}, "69": "69"}  # --only


def show(rows: list[dict]) -> None:
    """A line of figures per row, and under it the round that was entered."""
    print(f"{'game':<12} {'record':<7} {'players':>7} {'taps':>5} {'entries':>7} {'taps/entry':>10}  "
          f"{'goal':<19} before (the old pages, issue 33)")
    for r in rows:
        if "failed" in r:
            print(f"{r['game']:<12} {r['record']:<7} {r['players']:>7} {'-':>5} {'-':>7} {'-':>10}  "
                  f"{r['goal']:<19} {r['before']}")
            print(f"{'':<12} NOT MEASURED: {r['failed']}")
            continue
        if "per_card" in r:
            per, met = f"{r['per_card']:.2f}/card", r["per_card"] <= 1.2
        else:
            per = f"{r['taps'] / r['entries']:.1f}" if r["entries"] else "-"
            met = r["taps"] <= int(r["goal"].split()[1]) if r["goal"].startswith("<=") else None
        goal = r["goal"] + ("" if met is None else " ok" if met else " MISSED")
        print(f"{r['game']:<12} {r['record']:<7} {r['players']:>7} {r['taps']:>5} {r['entries']:>7} {per:>10}  "
              f"{goal:<19} {r['before']}")
        print(f"{'':<12} {r['what']}" + (f" [{r['note']}]" if r.get("note") else ""))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.taps", description="Taps per round on the phone "
                                     "pages, one round of each game in each recording mode (issue 33).")
    parser.add_argument("--seed", type=int, default=1, help="the shuffles and the random players (default 1)")
    parser.add_argument("--show", action="store_true", help="a visible browser instead of headless")
    parser.add_argument("--only", nargs="+", choices=sorted(ALIASES), metavar="GAME",
                        help="only these games: " + ", ".join(sorted(ALIASES)))
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    print(f"Taps per round on the phone pages; python -m bench.taps --seed {args.seed}")
    print(f"Machine: {machine()}; Chromium {CHROMIUM} at {PHONE['width']}x{PHONE['height']}")
    print("A tap: a click (key, chip, button, a summary opening a folded form) or a field filled; a select "
          "changed counts one; a prefilled value left as it is counts nothing; the submit counts.")
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="bench-taps-") as tmp, \
            Server("wsgi:app", f"sqlite:///{tmp}/bench.sqlite3") as server, sync_playwright() as p:
        server.wait("/healthz")
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=[a for a in CHROMIUM_ARGS if not (args.show and a == "--headless")],
                                    headless=not args.show)
        try:
            rows = run(browser, server.base, args.seed, {ALIASES[g] for g in args.only or ()})
        finally:
            browser.close()
    print()
    show(rows)
    print()
    print(f"({time.time() - started:.0f} s; goal: issue 33, a points-only round in at most players + 2 taps, "
          "a Ninety-nine card in at most 1.2 on average; taps/entry: taps per form submitted)")


if __name__ == "__main__":
    main()
