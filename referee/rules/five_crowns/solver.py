"""Five Crowns melds and the exact best lay-down (FC-3, FC-5, FC-6).

Cards are canonical codes (``7H``, ``10*``, ``JK``); ``wild`` is the round's wild rank
(``"3"`` ... ``"K"``). Jokers and cards of the wild rank are wild (FC-2). A wild may stand for
any card, itself included (FC-3), so a card of the wild rank is simply treated as a wild.

The best lay-down
-----------------
Because a wild may stand for anything, laying down is a question about the *natural* cards
only: which of them go into books and runs, and how many wilds those melds need. Once at least
one meld is on the table every spare wild can join it (a book takes any number; a run grows
to eleven cards and a full run can be split in two), so spare wilds never score; with no
natural melded, three or more wilds still make a meld of their own.

The search walks the natural cards in (rank, suit) order. Each card is left over, joins the
book of its rank, starts a run, or extends a run of its suit that is still open (a gap costs
one wild per missing rank). The state is (card index, open runs, size of the current book,
wilds committed); an open run is (suit, last rank, length capped at 3). Runs that no later
card can reach are closed on the spot, paying the wilds that bring them to three cards, and
so is the book when the rank changes. The state is memoised, so the search is exact: no
greedy choice is ever made. It is kept small by pruning that never loses the optimum:

- a gap too wide to be worth bridging is never bridged (see ``_MAX_GAP``);
- a run is only started when a later card of its suit may join it (a run of one natural card
  and two wilds does no better than a book of it);
- a card is never left over when it joins a begun book or a run ending just below it for free;
- a state whose open melds need more wilds than are left (each rank an unfinished run still
  has to cover takes a card still to come or a wild) is dropped at once;
- a branch that reaches 0 points stops the search, as nothing can beat it.

``bench/five_crowns_solver.py`` measures it: for 14 cards, the lay-down and the go-out check
together take about 0.3 ms at the median and about 2 ms for the worst hands found.
"""
from __future__ import annotations

from dataclasses import dataclass

from referee.cards import FIVE_CROWNS_RANKS, FIVE_CROWNS_SUITS, JOKER, rank_of, suit_of
from referee.texts import N_, T

RANKS = FIVE_CROWNS_RANKS            # "3" .. "K"
SUITS = FIVE_CROWNS_SUITS            # "*", "H", "C", "S", "D"
RANK_INDEX = {rank: i for i, rank in enumerate(RANKS)}
SUIT_INDEX = {suit: i for i, suit in enumerate(SUITS)}
FACE_VALUE = {rank: i + 3 for i, rank in enumerate(RANKS)}   # J 11, Q 12, K 13 (FC-5)
JOKER_POINTS = 50
WILD_POINTS = 20
MAX_RUN = len(RANKS)                 # a run fits in 3..K: at most eleven cards
_INF = 1 << 30


def wild_rank_of_round(round_no: int) -> str:
    """FC-2: round r deals r+2 cards and that rank is wild."""
    return RANKS[round_no - 1]


def is_wild(card: str, wild: str) -> bool:
    return card == JOKER or rank_of(card) == wild


def card_points(card: str, wild: str) -> int:
    """FC-5: face value, J 11, Q 12, K 13, a Joker 50, a card of the wild rank 20."""
    if card == JOKER:
        return JOKER_POINTS
    if rank_of(card) == wild:
        return WILD_POINTS
    return FACE_VALUE[rank_of(card)]


def sort_key(card: str) -> tuple[int, int]:
    if card == JOKER:
        return (len(RANKS) + 1, 0)
    return (RANK_INDEX[rank_of(card)], SUIT_INDEX[card[-1]])  # not a Joker: its last character is its suit


# ---------------------------------------------------------------- one meld (FC-3)

def meld_kind(cards: list[str], wild: str) -> tuple[str | None, str | None]:
    """``("book"|"run", None)`` for a legal meld, else ``(None, reason)``.

    A meld that is both (all wilds, or one natural card and wilds) is called a book."""
    if len(cards) < 3:
        return None, N_("a meld needs at least three cards")
    naturals = [c for c in cards if not is_wild(c, wild)]
    wilds = len(cards) - len(naturals)
    ranks = [rank_of(c) for c in naturals]
    if len(set(ranks)) <= 1:
        return "book", None
    if len(set(suit_of(c) for c in naturals)) > 1:
        if len(set(ranks)) < len(ranks):
            return None, N_("a book needs one rank and a run needs one suit")
        return None, N_("a run needs one suit")
    if len(set(ranks)) < len(ranks):
        return None, N_("a run cannot hold the same rank twice")
    if len(cards) > MAX_RUN:
        return None, N_("a run holds at most eleven cards (3 to K)")
    indexes = sorted(RANK_INDEX[r] for r in ranks)
    missing = indexes[-1] - indexes[0] + 1 - len(indexes)
    if missing > wilds:
        # Would the ranks lie closer if K wrapped round to 3? Then say that FC-3 forbids it.
        wrap_gap = indexes[0] + len(RANKS) - indexes[-1]
        inner_gap = max(b - a for a, b in zip(indexes, indexes[1:]))
        stand_in = (N_("0 wild cards") if not wilds else N_("only 1 wild card") if wilds == 1 else
                    T("only {n} wild cards", n=wilds))
        if wrap_gap < inner_gap:
            return None, T("a run needs consecutive ranks: {missing} missing, {wilds} to stand in (no wrap from K "
                           "to 3)", missing=missing, wilds=stand_in)
        return None, T("a run needs consecutive ranks: {missing} missing, {wilds} to stand in", missing=missing,
                       wilds=stand_in)
    return "run", None


def stand_ins(cards: list[str], wild: str, kind: str) -> list[tuple[str, str]]:
    """For a legal meld (``meld_kind``): each wild card and the rank it stands for (FC-3), in the
    order they lie. In a book a wild stands for the book's rank; in a run the wilds fill the gaps
    first, lowest first, then extend the run upward (or below 3 when K is reached). A wild of the
    wild rank that can stand for itself does so where its own rank is missing."""
    naturals = [c for c in cards if not is_wild(c, wild)]
    wilds = [c for c in cards if is_wild(c, wild)]
    if kind == "book":
        rank = rank_of(naturals[0]) if naturals else rank_of(wilds[0]) if wilds and wilds[0] != JOKER else wild
        return [(card, rank) for card in wilds if not (naturals and rank_of(card) == rank)]
    have = sorted(RANK_INDEX[rank_of(c)] for c in naturals)
    wanted = [i for i in range(have[0], have[-1] + 1) if i not in have]
    high = have[-1]
    while len(wanted) < len(wilds):
        high += 1
        wanted.append(high if high < len(RANKS) else have[0] - (high - len(RANKS) + 1))
    ranks = [RANKS[i] for i in wanted]
    found = []
    for card in wilds:
        own = rank_of(card)
        rank = own if own in ranks and card != JOKER else ranks[0]
        ranks.remove(rank)
        found.append((card, rank))
    return found


# ---------------------------------------------------------------- the search

# _MAX_GAP[length]: the widest gap worth bridging with wilds from an open run of ``length``
# (capped at 3) to the next card of its suit. Bridging ``g`` ranks costs ``g`` wilds; closing
# the run instead (3 - length wilds at most) and starting a new run at the card (2 wilds at
# most, fewer if it grows) never costs more once ``g >= 5 - length``, and melds the same cards.
_MAX_GAP = (0, 3, 2, 1)


def _run_code(suit: int, last: int, length: int) -> int:
    return (suit << 6) | (last << 2) | min(length, 3)


class _Search:
    """Memoised search over the natural cards, sorted by (rank, suit), with ``wilds`` wilds."""

    def __init__(self, naturals: list[tuple[int, int]], values: list[int], wilds: int,
                 allow_leftover: bool):
        self.rank = [r for r, _ in naturals]
        self.suit = [s for _, s in naturals]
        self.value = values
        self.n = len(naturals)
        self.wilds = wilds
        self.allow_leftover = allow_leftover
        self.memo: dict[tuple, int] = {}      # settled state -> least points
        self.choice: dict[tuple, int] = {}    # settled state -> the action that reaches it
        self.run_needs: dict[tuple, int] = {}  # (i, open runs) -> wilds they still need, at least
        # above[r][s]: lowest rank above r of suit s among all the cards (a large number if none)
        above = [[_INF] * len(SUITS) for _ in RANKS]
        for rank, suit in naturals:
            for lower in range(rank):
                above[lower][suit] = min(above[lower][suit], rank)
        self.above = above
        # gap_at[i][suit << 4 | last]: wilds a run (suit, last) needs to reach the next card of
        # its suit still to come before card i is placed; built when first needed.
        self.gap_at: list[list[int] | None] = [None] * (self.n + 1)
        # supply[i][suit << 4 | rank]: copies of that card among cards i..
        self.supply = [[0] * (len(SUITS) << 4)]
        for i in range(self.n - 1, -1, -1):
            counts = self.supply[0][:]
            counts[self.suit[i] << 4 | self.rank[i]] += 1
            self.supply.insert(0, counts)
        # left_of_rank[i]: cards i.. of card i's rank (they come next: the cards are sorted)
        self.left_of_rank = [sum(1 for r in self.rank[i:] if r == self.rank[i])
                             for i in range(self.n)] + [0]

    def _gaps(self, i: int) -> list[int]:
        gaps = [_INF] * (len(SUITS) << 4)
        for suit in set(self.suit[i:]):
            ahead = {r for r, s in zip(self.rank[i:], self.suit[i:]) if s == suit}
            reach = _INF
            for last in range(len(RANKS) - 1, -1, -1):
                gaps[suit << 4 | last] = reach - last - 1
                if last in ahead:
                    reach = last
        self.gap_at[i] = gaps
        return gaps

    def settle(self, i: int, runs: tuple, book: int, used: int):
        """Before card ``i``: close the book when the rank changes, and every run that no later
        card can still usefully reach (see _MAX_GAP), paying the wilds that bring it to three
        cards. Returns the new state and the closed items (``("book", size)`` /
        ``("run", code)``), for the replay."""
        closed = []
        if book and (i == self.n or self.rank[i] != self.rank[i - 1]):
            used += max(0, 3 - book)
            closed.append(("book", book))
            book = 0
        if runs:
            budget = self.wilds - used
            gaps = self.gap_at[i] or self._gaps(i)
            kept = []
            for code in runs:
                gap = gaps[code >> 2]
                if gap <= budget and gap <= _MAX_GAP[code & 3]:
                    kept.append(code)
                else:
                    used += 3 - (code & 3)
                    closed.append(("run", code))
            if len(kept) < len(runs):
                runs = tuple(kept)
        return runs, book, used, closed

    def best(self, i: int, runs: tuple, book: int, used: int) -> int:
        """Least points of cards i.. left over, or _INF when the wilds cannot cover the melds."""
        if runs or book:
            runs, book, used, _ = self.settle(i, runs, book, used)
            if used > self.wilds:
                return _INF
        if i == self.n:
            return 0
        key = (i, runs, book, used)
        result = self.memo.get(key)
        if result is None:
            if (runs or 0 < book < 3) and used + self.wilds_still_needed(i, runs, book) > self.wilds:
                result = _INF
            else:
                result, self.choice[key] = self._expand(i, runs, book, used)
            self.memo[key] = result
        return result

    def wilds_still_needed(self, i: int, runs: tuple, book: int) -> int:
        """A lower bound on the wilds the open melds still need: every rank an unfinished run
        must still cover takes a card of that suit and rank still to come, or a wild; the book
        likewise takes cards of its rank still to come, or wilds."""
        need = max(0, 3 - book - self.left_of_rank[i]) if 0 < book < 3 else 0
        if runs:
            key = (i, runs)
            for_runs = self.run_needs.get(key)
            if for_runs is None:
                for_runs = self.run_needs[key] = self._run_needs(i, runs)
            need += for_runs
        return need

    def _run_needs(self, i: int, runs: tuple) -> int:
        demand: dict[int, int] = {}
        for code in runs:
            for step in range(1, 4 - (code & 3)):
                slot = (code >> 2) + step
                demand[slot] = demand.get(slot, 0) + 1
        supply = self.supply[i]
        # a slot past K (rank index 11 or 12) has no supply: those entries stay 0
        return sum(wanted - supply[slot] for slot, wanted in demand.items() if wanted > supply[slot])

    def _expand(self, i: int, runs: tuple, book: int, used: int) -> tuple[int, int]:
        rank, suit = self.rank[i], self.suit[i]
        best, action = _INF, -1
        # Leaving the card over is pointless when it fits somewhere for free: a book already
        # begun, or a run of its suit that ends just below it (either needs no more wilds
        # with the card than without it, and a run ending higher reaches further).
        free_fit = book > 0
        # Extend an open run of this suit (each distinct run once); a gap costs wilds.
        tried = set()
        for code in runs:
            if code >> 6 != suit or code in tried:
                continue
            tried.add(code)
            last, length = (code >> 2) & 15, code & 3
            gap = rank - last - 1
            if gap < 0 or gap > _MAX_GAP[length]:    # one card of each rank in a run
                continue
            free_fit = free_fit or gap == 0
            rest = list(runs)
            rest.remove(code)
            rest.append(_run_code(suit, rank, length + gap + 1))
            rest.sort()
            got = self.best(i + 1, tuple(rest), book, used + gap)
            if got < best:
                best, action = got, code
                if best == 0:
                    return best, action
        # Join the book of this rank.
        got = self.best(i + 1, runs, min(book + 1, 3), used)
        if got < best:
            best, action = got, -2
            if best == 0:
                return best, action
        # Start a run, only if a later card of this suit may join it: a run of one natural
        # card and wilds is no better than a book of it.
        if self.above[rank][suit] - rank - 1 <= min(self.wilds - used, _MAX_GAP[1]):
            got = self.best(i + 1, tuple(sorted(runs + (_run_code(suit, rank, 1),))), book, used)
            if got < best:
                best, action = got, -3
                if best == 0:
                    return best, action
        if self.allow_leftover and not free_fit and self.value[i] < best:
            got = self.value[i] + self.best(i + 1, runs, book, used)
            if got < best:
                best, action = got, -1
        return best, action


@dataclass(frozen=True)
class LayDown:
    points: int
    melds: list[list[str]]
    leftover: list[str]


def _split(cards: list[str], wild: str):
    naturals = sorted((c for c in cards if not is_wild(c, wild)), key=sort_key)
    # Jokers first: which wild fills which hole does not matter to the score.
    wilds = sorted((c for c in cards if is_wild(c, wild)), key=lambda c: (c != JOKER, sort_key(c)))
    return naturals, wilds


def _search(naturals: list[str], wilds: int, wild: str, allow_leftover: bool) -> _Search:
    keys = [sort_key(c) for c in naturals]
    return _Search(keys, [card_points(c, wild) for c in naturals], wilds, allow_leftover)


def best_lay_down(cards: list[str], wild: str) -> LayDown:
    """FC-6: the least possible score of ``cards`` over every way to lay down books and runs,
    with one lay-down that reaches it."""
    naturals, wilds = _split(cards, wild)
    search = _search(naturals, len(wilds), wild, allow_leftover=True)
    points = search.best(0, (), 0, 0)
    if points >= sum(search.value):          # no natural card can be melded
        if len(wilds) >= 3 or not wilds:
            return LayDown(sum(search.value), [wilds] if wilds else [], naturals)
        return LayDown(sum(search.value) + sum(card_points(c, wild) for c in wilds), [],
                       naturals + wilds)
    melds, leftover = _replay(search, naturals, wilds)
    return LayDown(points, melds, leftover)


def can_meld_all(cards: list[str], wild: str) -> bool:
    """Can every one of ``cards`` be laid down in books and runs?"""
    naturals, wilds = _split(cards, wild)
    if not naturals:
        return len(wilds) != 1 and len(wilds) != 2
    return _search(naturals, len(wilds), wild, allow_leftover=False).best(0, (), 0, 0) == 0


def go_out_discard(cards: list[str], wild: str) -> str | None:
    """A card whose discard leaves all the others melded (FC-4), or None.

    One search finds the fewest natural cards that must stay out (each counting 1). If that is
    one card, it is the discard. If none must, a meld of four or more cards of that lay-down
    gives up a natural card at one of its ends. Only when every meld is tight is each card
    tried in turn (natural cards first, low to high, then a wild)."""
    naturals, wilds = _split(cards, wild)
    if len(naturals) >= 2:
        search = _Search([sort_key(c) for c in naturals], [1] * len(naturals), len(wilds), True)
        out = search.best(0, (), 0, 0)
        if out > 1:
            return None
        # At least one natural card is melded, so every wild has a meld to join.
        melds, leftover = _replay(search, naturals, wilds)
        if out == 1:
            return leftover[0]
        for meld in melds:
            for card in sorted((c for c in meld if not is_wild(c, wild)), key=sort_key):
                rest = list(meld)
                rest.remove(card)
                if meld_kind(rest, wild)[0]:
                    return card
    for card in sorted(set(naturals), key=sort_key) + wilds[:1]:
        rest = list(cards)
        rest.remove(card)
        if can_meld_all(rest, wild):
            return card
    return None


def best_discard(cards: list[str], wild: str) -> tuple[str, LayDown]:
    """FC-4, FC-6 for a final turn given as its cards alone: the discard that leaves the least
    score, with the best lay-down of the cards kept. Every distinct card is tried (the hand holds
    at most 14). Among discards that leave the same score, a natural card goes before a wild (a
    discarded wild helps the next player, as the sheet warns), then the card worth more points,
    then the lowest card: the same hand always gives the same discard."""
    if not cards:
        raise ValueError("a final turn discards one card: the hand is empty")
    found: tuple[tuple[int, bool, int, tuple[int, int]], str, LayDown] | None = None
    for card in sorted(set(cards), key=sort_key):
        rest = list(cards)
        rest.remove(card)
        kept = best_lay_down(rest, wild)
        key = (kept.points, is_wild(card, wild), -card_points(card, wild), sort_key(card))
        if found is None or key < found[0]:
            found = (key, card, kept)
    assert found is not None  # the hand is not empty
    return found[1], found[2]


# ---------------------------------------------------------------- rebuilding the melds

class _Run:
    def __init__(self, suit: int, card: str, rank: int):
        self.suit = suit
        self.cards: list[tuple[int, str]] = [(rank, card)]

    @property
    def last(self) -> int:
        return self.cards[-1][0]

    def code(self) -> int:
        return _run_code(self.suit, self.last, self.span())

    def span(self) -> int:
        return self.cards[-1][0] - self.cards[0][0] + 1


def _replay(search: _Search, naturals: list[str], wilds: list[str]):
    """Walk the search's recorded choices from the start and build the melds they make."""
    runs: tuple = ()
    book, used = 0, 0
    open_runs: list[_Run] = []
    book_cards: list[str] = []
    melds: list[tuple[str, list[str] | _Run]] = []  # ("book", cards) / ("run", _Run), wilds added later
    leftover: list[str] = []

    def close(closed):
        nonlocal book_cards
        for kind, code in closed:
            if kind == "book":
                melds.append(("book", book_cards))
                book_cards = []
            else:
                run = next(r for r in open_runs if r.code() == code)
                open_runs.remove(run)
                melds.append(("run", run))

    for i, card in enumerate(naturals):
        runs, book, used, closed = search.settle(i, runs, book, used)
        close(closed)
        action = search.choice[(i, runs, book, used)]
        rank, suit = search.rank[i], search.suit[i]
        if action == -1:
            leftover.append(card)
        elif action == -2:
            book_cards.append(card)
            book = min(book + 1, 3)
        elif action == -3:
            open_runs.append(_Run(suit, card, rank))
            runs = tuple(sorted(runs + (_run_code(suit, rank, 1),)))
        else:
            run = next(r for r in open_runs if r.code() == action)
            gap = rank - run.last - 1
            run.cards.append((rank, card))
            used += gap
            rest = list(runs)
            rest.remove(action)
            rest.append(run.code())
            runs = tuple(sorted(rest))
    runs, book, used, closed = search.settle(len(naturals), runs, book, used)
    close(closed)
    return _place_wilds(melds, list(wilds)), leftover


def _run_cards(run: _Run, spare: list[str], extra: int) -> list[str]:
    """The run's cards in rank order, wilds in its gaps, then padded to three cards and
    grown by ``extra`` wilds, upwards while there is room below K, else downwards."""
    out: list[str] = []
    for k, (rank, card) in enumerate(run.cards):
        if k:
            out.extend(spare.pop() for _ in range(rank - run.cards[k - 1][0] - 1))
        out.append(card)
    grow = max(0, 3 - len(out)) + extra
    above = min(grow, len(RANKS) - 1 - run.last)
    out.extend(spare.pop() for _ in range(above))
    return [spare.pop() for _ in range(grow - above)] + out


def _place_wilds(melds, wilds: list[str]) -> list[list[str]]:
    """Give each meld the wilds it needs, then put the spare ones where they fit."""
    need = []
    for kind, item in melds:
        if kind == "book":
            need.append(max(0, 3 - len(item)))
        else:
            need.append(item.span() - len(item.cards) + max(0, 3 - item.span()))
    spare = len(wilds) - sum(need)
    extra = [0] * len(melds)
    books = [k for k, (kind, _) in enumerate(melds) if kind == "book"]
    if books:
        extra[books[0]], spare = spare, 0
    else:
        for k, (_, run) in enumerate(melds):
            extra[k] = min(MAX_RUN - max(3, run.span()), spare)
            spare -= extra[k]
    pool = list(reversed(wilds))          # pop() hands out the wilds in order
    out = []
    for k, (kind, item) in enumerate(melds):
        if kind == "book":
            out.append(list(item) + [pool.pop() for _ in range(need[k] + extra[k])])
        else:
            out.append(_run_cards(item, pool, extra[k]))
    if spare >= 3:
        out.append([pool.pop() for _ in range(spare)])
    elif spare:
        # Every run is full (3 to K): split one into 3..5 and 6..K; the short one grows.
        full = next(m for m in out if len(m) == MAX_RUN)
        out.remove(full)
        out += [full[:3] + [pool.pop() for _ in range(spare)], full[3:]]
    return out
