"""Speed of the Five Crowns best lay-down (FC-6) and go-out check (FC-4).

Run on purpose, never as a test:  python bench/five_crowns_solver.py [--hands 200] [--seed 1]

For every hand size from 3 to 14 cards and six families of hands (random deals, many wilds,
many duplicates, long runs, dense: few ranks and suits with Jokers, tight: three-card melds
only), it times what the
``hand`` verdict does, ``best_lay_down`` then ``go_out_discard``, and prints the median, the
90th percentile and the worst, in milliseconds. Each hand is timed three times and the
fastest run kept, so a scheduler hiccup is not taken for the solver's cost.

Baselines, measured in the same run on the same hands: sorting the hand (a trivial operation:
the ratio says how many sorts one verdict costs), and for small hands a plain exhaustive
search over every split into melds (the ratio says how much faster the solver is).
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.rules.five_crowns.brute_force import exhaustive_points  # noqa: E402
from referee.rules.five_crowns.solver import (RANKS, SUITS, best_lay_down, go_out_discard, sort_key)

DECK = [r + s for r in RANKS for s in SUITS] * 2 + ["JK"] * 6
SIZES = range(3, 15)
EXHAUSTIVE_UP_TO = 8


def random_hand(rng, n):
    return rng.sample(DECK, n), rng.choice(RANKS)


def many_wilds(rng, n):
    wild = rng.choice(RANKS)
    wilds = ["JK"] * 6 + [wild + s for s in SUITS] * 2
    k = rng.randint((n + 1) // 2, n)
    naturals = [c for c in DECK if c != "JK" and not c.startswith(wild)]
    return rng.sample(wilds, min(k, len(wilds))) + rng.sample(naturals, n - min(k, len(wilds))), wild


def duplicates(rng, n):
    low = rng.randint(0, 6)
    pool = [r + s for r in RANKS[low:low + 5] for s in SUITS[:2]]
    pairs = rng.sample(pool, (n + 1) // 2)
    hand = (pairs * 2)[:n]
    return hand, rng.choice(RANKS)


def long_runs(rng, n):
    suits = rng.sample(SUITS, rng.randint(1, 2))
    cards = [r + s for s in suits for r in RANKS] * 2
    wild = rng.choice(RANKS)
    jokers = rng.randint(0, min(3, n // 3))
    return rng.sample(cards, n - jokers) + ["JK"] * jokers, wild


def dense(rng, n):
    low = rng.randint(0, 6)
    pool = [r + s for r in RANKS[low:low + rng.randint(3, 5)] for s in SUITS[:rng.randint(1, 3)]] * 2
    jokers = rng.randint(0, min(6, n // 2))
    naturals = rng.sample(pool, min(len(pool), n - jokers))
    return naturals + ["JK"] * (n - len(naturals)), rng.choice(RANKS)


def tight_melds(rng, n):
    """Hands made of three-card melds (the go-out check must then try every discard)."""
    wild = rng.choice(RANKS)
    natural_ranks = [r for r in RANKS if r != wild]
    hand = []
    while len(hand) + 3 <= n:
        if rng.random() < 0.5:
            rank = rng.choice(natural_ranks)
            meld = [rank + s for s in rng.sample(SUITS, 3)]
        else:
            suit, low = rng.choice(SUITS), rng.randint(0, len(RANKS) - 3)
            meld = [r + suit for r in RANKS[low:low + 3]]
        if rng.random() < 0.3:
            meld[rng.randrange(3)] = "JK"
        if all(hand.count(c) + meld.count(c) <= (6 if c == "JK" else 2) for c in meld):
            hand += meld
    while len(hand) < n:
        card = rng.choice(DECK)
        if hand.count(card) < (6 if card == "JK" else 2):
            hand.append(card)
    rng.shuffle(hand)
    return hand, wild


FAMILIES = {"random": random_hand, "many wilds": many_wilds, "duplicates": duplicates,
            "long runs": long_runs, "dense": dense, "tight melds": tight_melds}




def verdict(cards, wild):
    best_lay_down(cards, wild)
    go_out_discard(cards, wild)


def sort_hand(cards, wild):
    sorted(cards, key=sort_key)


def timed(fn, cards, wild, repeats=3):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter_ns()
        fn(cards, wild)
        best = min(best, time.perf_counter_ns() - start)
    return best / 1e6


def figures(times):
    times = sorted(times)
    return statistics.median(times), times[int(0.9 * (len(times) - 1))], times[-1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200, help="hands per size and family")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    print(f"Five Crowns solver: {args.hands} hands per size and family; times in ms "
          f"(best of 3 runs per hand)")
    print(f"{'size':>4} {'family':<11} {'median':>8} {'p90':>8} {'worst':>8} "
          f"{'sort med':>9} {'x sort':>8} {'exh. med':>9} {'exh/solver':>10}")
    overall = {}
    for size in SIZES:
        for family, make in FAMILIES.items():
            hands = [make(rng, size) for _ in range(args.hands)]
            solver = [timed(verdict, c, w) for c, w in hands]
            sorting = [timed(sort_hand, c, w) for c, w in hands]
            med, p90, worst = figures(solver)
            sort_med = statistics.median(sorting)
            line = (f"{size:>4} {family:<11} {med:>8.3f} {p90:>8.3f} {worst:>8.3f} "
                    f"{sort_med:>9.4f} {med / sort_med:>8.0f}")
            if size <= EXHAUSTIVE_UP_TO and family == "random":
                sample = hands[:max(10, args.hands // 10)]
                exhaustive = [timed(exhaustive_points, c, w, repeats=1) for c, w in sample]
                solver_sample = statistics.median(solver[:len(sample)])
                line += (f" {statistics.median(exhaustive):>9.3f} "
                         f"{statistics.median(exhaustive) / solver_sample:>10.1f}")
            print(line, flush=True)
            overall.setdefault(size, []).extend(zip(solver, hands))
    print()
    print("all families together:")
    for size, rows in overall.items():
        med, p90, worst = figures([t for t, _ in rows])
        slowest = max(rows, key=lambda row: row[0])[1]
        print(f"{size:>4} cards: median {med:.3f}  p90 {p90:.3f}  worst {worst:.3f}"
              + (f"   slowest: {' '.join(slowest[0])} (wild {slowest[1]})" if size == 14 else ""))


if __name__ == "__main__":
    main()
