"""Stats of a group's games, computed from the games themselves, never typed in. Pure: no Flask, no
database; the store hands each game over as plain data (``GameData``) with a name-resolver (a
group's renames), and everything here is read from the engines' states or from a replay of the
log with the engine.

Per game type and per player (finished games only; a game in progress is counted, not scored):

- ``games``, ``won``, ``win_rate``: from the engine's ``outcome`` (a shared win is a win for each);
- ``average_final``, ``best_final``: the final ``standings`` (so a table's adjustments count);
- ``best_round``, ``worst_round``, ``rounds``: each finished round's score as the final state keeps
  it (a corrected round counts as corrected, T-1; ``corrected_rounds`` says how many were);
- ``adjusted``: the points the table's adjustments (T-2) moved the player's totals by (already in
  the final totals);
- the game's own figures (its ``figures``, ``referee.rules.base.Figures``), summed over the games;
- ``head_to_head``: for each pair of players, the games both finished and who placed ahead.

"Best" per game (the game's ``lower_is_better``): where a game counts penalty points, the lowest
final total and the lowest round score are the best; where it counts points scored or tokens kept
(a round's score may be minus what was lost), the highest is. (Where a game's winner may have fewer
points, placing reads the outcome first, so the winner is ahead whatever the points say.)

Placing in a game: winners first; then, among winners and among the others, the better final total
in the game's direction; then the game's own placing, where it declares one (``Figures.placing``,
such as who was put out later); equal keys share a place.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from referee.rules import get_engine
from referee.rules.base import Game, load_move


@dataclass
class GameData:
    """One game as the store keeps it: ``moves`` are the payloads of the moves in effect (voided
    ones left out), in order. ``state``, when given, is the state after them (saves a replay for
    the games whose figures read only the final state)."""

    id: str
    game: str
    players: list[str]
    options: dict
    moves: list[dict]
    state: dict | None = None
    created_at: str | None = None
    updated_at: str | None = None


@dataclass
class _Replay:
    """The states of one game, move by move: ``steps`` holds ``(clean move, before, after)``."""

    final: dict
    steps: list[tuple[dict, dict, dict]] = field(default_factory=list)


def lower_is_better(game: str) -> bool:
    engine = get_engine(game)
    return engine.lower_is_better if engine else False


def replay(engine, game: GameData, keep_steps: bool) -> _Replay:
    state = engine.new_game(list(game.players), dict(game.options))
    steps = []
    for payload in game.moves:
        after = engine.apply(state, payload)
        if keep_steps:
            steps.append((load_move(engine, state, payload)[1], state, after))
        state = after
    return _Replay(state, steps)


# ---------------------------------------------------------------- one game

def _placing_keys(engine: Game, final: dict, steps, standings: dict, winners: list[str]) -> dict:
    """A sort key per player (smaller is ahead): the winners, the totals, then the game's own
    placing where it has one (``Figures.placing``)."""
    sign = 1 if engine.lower_is_better else -1
    keys = {p: (p not in winners, sign * standings[p]) for p in final["players"]}
    spec = engine.figures
    if spec is not None and spec.placing is not None and steps is not None:
        extra = spec.placing(final, steps)
        keys = {p: (*keys[p], extra[p]) for p in keys}
    return keys


def _places(keys: dict) -> dict:
    return {p: 1 + sum(1 for q in keys if keys[q] < keys[p]) for p in keys}


def _resolver(players: list[str], resolve: Callable[[str], str]) -> dict:
    """Each seat's name as the group knows it now. Two seats of one game never become one player:
    should two names of a game resolve to the same one (the group's renames refuse that), the later
    seat keeps its own name, or failing that its name and seat number."""
    names, taken = {}, set()
    for seat, p in enumerate(players, start=1):
        now = resolve(p) if resolve else p
        names[p] = next(n for n in (now, p, f"{p} #{seat}") if n not in taken)
        taken.add(names[p])
    return names


def _adjusted(final: dict) -> dict:
    """The points each player's total moved by the table's adjustments (T-2)."""
    moved = dict.fromkeys(final["players"], 0)
    for entry in final.get("adjustments") or []:
        moved[entry["player"]] += entry["points"]
    return moved


def summarize(game: GameData, resolve: Callable[[str], str] | None = None) -> dict:
    """One game's figures, with every name as the group knows it now."""
    engine = get_engine(game.game)
    spec = engine.figures
    needs_replay = spec is not None and spec.needs_steps
    if game.state is not None and not needs_replay:
        final, steps = game.state, None
    else:
        played = replay(engine, game, keep_steps=needs_replay)
        final, steps = played.final, (played.steps if needs_replay else None)
    outcome = engine.outcome(final)
    standings = engine.standings(final)
    name = _resolver(final["players"], resolve)
    keys = _placing_keys(engine, final, steps, standings, outcome["winners"])
    places = _places(keys)
    figures = spec.count(final, steps) if spec else {p: {} for p in final["players"]}

    def by_name(values: dict) -> dict:
        return {name[p]: v for p, v in values.items() if p in name}

    rounds = [{"round": r.get("round", i + 1), "scores": by_name(r.get("scores") or {}),
               "totals": by_name(r.get("totals") or {}), "corrected": bool(r.get("corrections"))}
              for i, r in enumerate(final.get("rounds") or [])]
    return {
        "id": game.id, "game": game.game, "status": outcome["status"],
        "created_at": game.created_at, "updated_at": game.updated_at,
        "players": [name[p] for p in final["players"]],
        "winners": [name[p] for p in outcome["winners"]],
        "final": by_name(standings), "places": by_name(places) if outcome["status"] == "finished" else {},
        "figures": by_name(figures), "rounds": rounds, "adjusted": by_name(_adjusted(final)),
    }


# ---------------------------------------------------------------- a group

def _player_entry(figure_names: list[str]) -> dict:
    return {"games": 0, "won": 0, "win_rate": None, "average_final": None, "best_final": None,
            "rounds": 0, "best_round": None, "worst_round": None, "corrected_rounds": 0, "adjusted": 0,
            "figures": dict.fromkeys(figure_names, 0), "_finals": []}


def _better(game: str) -> Callable[[int, int], int]:
    return min if lower_is_better(game) else max


def _worse(game: str) -> Callable[[int, int], int]:
    return max if lower_is_better(game) else min


def aggregate(game: str, summaries: list[dict]) -> dict:
    """The figures of one game type over its games' summaries (``summarize``)."""
    better, worse = _better(game), _worse(game)
    finished = [s for s in summaries if s["status"] == "finished"]
    figure_names = sorted({k for s in finished for figs in s["figures"].values() for k in figs})
    players: dict[str, dict] = {}
    pairs: dict[tuple[str, str], dict] = {}
    for s in finished:
        for p in s["players"]:
            entry = players.setdefault(p, _player_entry(figure_names))
            entry["games"] += 1
            entry["won"] += p in s["winners"]
            final = s["final"][p]
            entry["_finals"].append(final)
            entry["adjusted"] += s["adjusted"].get(p, 0)
            entry["best_final"] = final if entry["best_final"] is None else better(entry["best_final"], final)
            for r in s["rounds"]:
                if p not in r["scores"]:
                    continue  # sat the round out (a tie-break round among some players)
                score = r["scores"][p]
                entry["rounds"] += 1
                entry["corrected_rounds"] += r["corrected"]
                entry["best_round"] = score if entry["best_round"] is None else better(entry["best_round"], score)
                entry["worst_round"] = score if entry["worst_round"] is None else worse(entry["worst_round"], score)
            for k, v in s["figures"].get(p, {}).items():
                entry["figures"][k] += v
        for p in s["players"]:
            for q in s["players"]:
                if p == q:
                    continue
                pair = pairs.setdefault((p, q), {"player": p, "opponent": q, "games": 0, "ahead": 0, "behind": 0,
                                                 "tied": 0})
                pair["games"] += 1
                mine, theirs = s["places"][p], s["places"][q]
                pair["ahead" if mine < theirs else "behind" if mine > theirs else "tied"] += 1
    for entry in players.values():
        finals = entry.pop("_finals")
        entry["win_rate"] = round(entry["won"] / entry["games"], 4)
        entry["average_final"] = round(sum(finals) / len(finals), 2)
    return {
        "game": game, "lower_is_better": bool(lower_is_better(game)),
        "games": len(finished), "in_progress": len(summaries) - len(finished),
        "players": dict(sorted(players.items(), key=lambda item: item[0].casefold())),
        "head_to_head": [pairs[k] for k in sorted(pairs, key=lambda k: (k[0].casefold(), k[1].casefold()))],
        "series": [{"id": s["id"], "updated_at": s["updated_at"], "players": s["players"], "winners": s["winners"],
                    "final": s["final"], "rounds": s["rounds"]} for s in finished],
    }


def group_stats(summaries: list[dict]) -> dict:
    """Every game type's figures, from the summaries (``summarize``) of one group's games."""
    by_type: dict[str, list[dict]] = {}
    for summary in summaries:
        by_type.setdefault(summary["game"], []).append(summary)
    return {name: aggregate(name, by_type[name]) for name in sorted(by_type)}


STAT_COLUMNS = ("games", "won", "win_rate", "average_final", "best_final", "rounds", "best_round", "worst_round",
                "corrected_rounds", "adjusted")


def stats_table(stats: dict) -> list[list[Any]]:
    """The stats as a table: a header, then one row per game type and player; the games' own figures
    in columns of their own (blank for the game types that do not have them)."""
    figures = sorted({k for block in stats.values() for entry in block["players"].values() for k in entry["figures"]})
    rows: list[list[Any]] = [["game", "player", *STAT_COLUMNS, *figures]]
    for name, block in stats.items():
        for player, entry in block["players"].items():
            rows.append([name, player, *(entry[k] for k in STAT_COLUMNS),
                         *(entry["figures"].get(k, "") for k in figures)])
    return rows


def head_to_head_table(stats: dict) -> list[list[Any]]:
    rows: list[list[Any]] = [["game", "player", "opponent", "games", "ahead", "behind", "tied"]]
    for name, block in stats.items():
        rows.extend([name, *(pair[k] for k in ("player", "opponent", "games", "ahead", "behind", "tied"))]
                    for pair in block["head_to_head"])
    return rows
