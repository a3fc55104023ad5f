"""A game's whole record: export (JSON, and its score sheet as CSV), import by replay, and the plain
data the stats read (``referee.stats``).

The JSON record (``FORMAT``, ``FORMAT_VERSION``) holds the game type, players, options, the group if
any, the times, and every move of the log in ``seq`` order with its version, whether undo voided it,
its payload and when it was made; ``version`` is the final version. A record exported without the
game's token leaves out what G-5 hides (a card put face down) and lists it in the move's ``hidden``,
as the move log does; once the game is finished, the game's token (or its group's) gets the whole
record, which is what an import needs to replay the card accounting (during play G-5 holds even for
the token's holder, a phone at the table).

An import replays the record through the engine, in ``seq`` order: each move must be legal on the
table as it then stood, and the voided moves must be the ones undo could have voided (undo voids
the last move in effect, and the next move takes its version). The imported game's log is the
record's, voided moves included, so every version shows the same table as the original did, and
its revision (count of writes) is the same. The first move the engine refuses, or that contradicts
the log's shape, is named (``ImportRefused``) and nothing is stored.
"""
from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

from sqlalchemy import insert, select

from referee import groups, stats, store
from referee.models import Game, Move, _now, aware, db
from referee.names import refuse_confusable
from referee.rules import get_engine
from referee.rules.base import RuleError, public_move
from referee.texts import T

FORMAT = "referee-game"
FORMAT_VERSION = 1
MAX_MOVES = 20_000  # a long game has a few hundred; the body's size (IMPORT_MAX_BYTES) binds first
TURN = 100  # moves an import reads, replays or stores before it lets the worker's other requests run
IMPORT_MAX_BYTES = 2 * 1024 * 1024  # the default of the config key: a few thousand moves


def service_version() -> str:
    try:
        return metadata.version("referee")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def _time(moment: datetime | None) -> str | None:
    return aware(moment).isoformat() if moment is not None else None


# ---------------------------------------------------------------- export

def export_record(game: Game, complete: bool) -> dict:
    """The game's record; ``complete`` includes what G-5 hides (only for the game's token holder, and
    only once the game is over: see ``api.records``)."""
    engine = store.engine_for(game.game)
    moves = []
    for move in store.all_moves(game.id):
        payload = move.payload if complete else public_move(engine, move.payload)
        moves.append({"seq": move.seq, "version": move.version, "voided": move.voided, "payload": payload,
                      "created_at": _time(move.created_at)})
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "service": {"name": "referee", "version": service_version()},
        "id": game.id, "game": game.game, "players": list(game.players), "options": dict(game.options),
        "group": game.group_id,
        "created_at": _time(game.created_at), "updated_at": _time(game.updated_at),
        "exported_at": _now().isoformat(),
        "complete": not any("hidden" in m["payload"] for m in moves),  # nothing left out (G-5)
        "status": game.status, "version": game.version, "moves": moves,
    }


def _round_label(engine, state: dict) -> str:
    return engine.round_label  # "hand", "exchange": the game's own word


def score_sheet(game: Game) -> list[list[Any]]:
    """One row per finished round (one column per player), then the totals as the game counts them
    (its standings: a table's adjustments included)."""
    engine = store.engine_for(game.game)
    state = game.state
    players = list(state["players"])
    rows: list[list[Any]] = [[_round_label(engine, state), *players]]
    for number, entry in enumerate(state.get("rounds") or [], start=1):
        scores = entry.get("scores") or {}
        rows.append([entry.get("round", number), *(scores.get(p, "") for p in players)])
    standings = engine.standings(state)
    rows.append(["total", *(standings.get(p, "") for p in players)])
    return rows


# A cell a spreadsheet would read as a formula (or a command, in some) starts with one of these; such
# text is written with a leading apostrophe (OWASP's advice on CSV injection). Numbers stay numbers.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")


def safe_cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def to_csv(rows: Iterable[Iterable[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])
    return out.getvalue()


# ---------------------------------------------------------------- import

class ImportRefused(Exception):
    """An import that cannot be stored. ``index``/``seq`` name the move at fault (None when the fault
    is not a move's), ``rule``/``legal``/``kind`` come from the engine's refusal when there is one."""

    def __init__(self, detail: str, index: int | None = None, seq: Any = None, rule: str | None = None,
                 legal: Any = None, kind: str = "invalid-record", title: str = "Import refused"):
        super().__init__(detail)
        self.detail, self.index, self.seq, self.rule, self.legal = detail, index, seq, rule, legal
        self.kind, self.title = kind, title


def _moment(value: Any, index: int | None = None, seq: Any = None) -> datetime | None:
    """A move's time (``index``, ``seq``: the move), else the record's ``created_at``."""
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        detail = (T("created_at: {value} is not an ISO 8601 time.", value=repr(value)) if index is None else
                  T("Move {n} (seq {seq}): {value} is not an ISO 8601 time.", n=index + 1, seq=seq, value=repr(value)))
        raise ImportRefused(detail, index, seq) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def in_turns(items: Iterable, every: int = TURN) -> Iterable:
    """``items``, letting the worker's other requests run after every ``every`` of them: an import of
    15,000 moves is seconds of work, which held up every request of its worker (a gevent worker
    switches greenlets only where one waits). ``time.sleep(0)`` is that wait: under gevent a switch
    to the others, in a thread a release of the GIL."""
    for index, item in enumerate(items):
        if index and index % every == 0:
            time.sleep(0)
        yield item


@dataclass
class Replayed:
    """A record replayed: the game row and its log rows' values, not yet stored."""

    game: Game
    token: str
    moves: list[dict]


def check_format(record: Any) -> None:
    """A record of this service's format and version (checked before its shape: another version may
    have other fields)."""
    if not isinstance(record, dict):
        raise ImportRefused(T("A record is a JSON object (as GET {path} gives it).", path="/api/v1/games/{id}/export"))
    if record.get("format") != FORMAT or record.get("format_version") != FORMAT_VERSION:
        raise ImportRefused(T("This service reads records of format '{format}' version {version}, not {given} "
                              "version {given_version}.", format=FORMAT, version=FORMAT_VERSION,
                              given=repr(record.get("format")), given_version=repr(record.get("format_version"))),
                            kind="unsupported-format", title="Unsupported record format")


def replay_record(record: dict) -> Replayed:
    """Replay ``record`` (already of the right shape: see ``api.schemas.GameRecordSchema``) through
    its engine; ``ImportRefused`` names the first move at fault, ``RuleError`` refuses the players
    or options. Nothing is stored."""
    check_format(record)
    engine = get_engine(record.get("game"))
    if engine is None:
        raise ImportRefused(T("There is no game called '{name}'.", name=record.get("game")), kind="unknown-game")
    moves = record.get("moves") or []
    if len(moves) > MAX_MOVES:
        raise ImportRefused(T("A record holds at most {most} moves, not {n}.", most=MAX_MOVES, n=len(moves)))
    game, token = store.new_game(engine.name, record.get("players"), record.get("options"))
    states = _States(engine, game.state, moves)
    live = states.live     # indices of the moves in effect, in order
    rows: list[dict] = []  # rows[i]: moves[i] as stored, with its checkpoint
    for index, entry in enumerate(in_turns(moves)):
        seq, version, payload = entry.get("seq"), entry.get("version"), entry.get("payload")
        n = index + 1  # "Move {n} (seq {seq})" names the move at fault in every refusal below
        if seq != n:
            raise ImportRefused(T("Move {n} (seq {seq}): the moves must be listed in log order, seq 1, 2, 3...; "
                                  "this one should have seq {n}.", n=n, seq=seq), index, seq)
        hidden = payload.get("hidden") if isinstance(payload, dict) else None
        if hidden:
            raise ImportRefused(T("Move {n} (seq {seq}): the record leaves out {fields}, cards put face down (G-5). "
                                  "Export the game with its token to get the whole record.", n=n, seq=seq,
                                  fields=", ".join(map(str, hidden))),
                                index, seq, rule="G-5", kind="incomplete-record")
        for undone in reversed(live[max(version - 1, 0):]):  # undo voided these before this move took their place
            if not moves[undone]["voided"]:
                raise ImportRefused(T("Move {n} (seq {seq}) has version {version}, so the move at seq {undone} "
                                      "(version {undone_version}) was undone before it, yet the record says it is "
                                      "in effect.", n=n, seq=seq, version=version, undone=undone + 1,
                                      undone_version=moves[undone]["version"]), index, seq)
        states.undo_to(version - 1)
        if len(live) != version - 1:
            raise ImportRefused(T("Move {n} (seq {seq}) has version {version}, but only {live} moves are in effect "
                                  "before it: each move's version is one more than the moves in effect.", n=n,
                                  seq=seq, version=version, live=len(live)), index, seq)
        try:
            state = states.apply(index)
        except RuleError as error:
            raise ImportRefused(T("Move {n} (seq {seq}) is refused: {reason}", n=n, seq=seq, reason=error.detail),
                                index, seq, rule=error.rule,
                                legal=error.legal, kind=error.kind, title=error.title) from None
        rows.append({"seq": seq, "version": version, "payload": payload, "voided": bool(entry.get("voided")),
                     "created_at": _moment(entry.get("created_at"), index, seq) or _now(), "idempotency_key": None,
                     "checkpoint": state if store.checkpoint_due(version, state) else None})
    kept = len(live)
    while kept and moves[live[kept - 1]]["voided"]:  # undone at the end of the log
        kept -= 1
    states.undo_to(kept)
    voided_in_effect = [i for i in live if moves[i]["voided"]]
    if voided_in_effect:
        i = voided_in_effect[0]
        raise ImportRefused(T("Move {n} (seq {seq}) is marked voided, but a later move in effect was made on top "
                              "of it: undo only ever voids the last move in effect.", n=i + 1, seq=i + 1), i, i + 1)
    final_version = record.get("version")
    if final_version is not None and final_version != len(live):
        raise ImportRefused(T("The record says version {version}, but its log leaves {live} moves in effect.",
                              version=final_version, live=len(live)))
    game.state = states.now()
    game.version = len(live)
    game.revision = len(moves) + sum(1 for m in moves if m["voided"])  # every move, and every undo
    game.status = engine.outcome(game.state)["status"]
    created = _moment(record.get("created_at"))
    if created is not None:
        game.created_at = created
    return Replayed(game, token, rows)


class _States:
    """The tables of an import's moves in effect, by position (how many moves are in effect): the
    last ``WINDOW`` of them and every ``WINDOW``-th, each shared with the moves' log rows where it is
    their checkpoint. An undo in the record goes back to one of them and replays at most
    ``WINDOW - 1`` moves, and only when it goes back further than ``WINDOW`` voided moves took it:
    an import applies each move at most about twice. Keeping every table held the square of a long
    record (a list of adjustments in each)."""

    WINDOW = store.CHECKPOINT_EVERY

    def __init__(self, engine, start: dict, moves: list[dict]):
        self.engine, self.moves = engine, moves
        self.live: list[int] = []  # indices of the moves in effect, in order
        self._kept = {0: start}    # position -> the table then

    def now(self) -> dict:
        return self._kept[len(self.live)]

    def apply(self, index: int) -> dict:
        """Move ``index`` applied to the table now; RuleError leaves everything as it was."""
        state = self.engine.apply(self.now(), self.moves[index]["payload"])
        self.live.append(index)
        self._keep(len(self.live), state)
        return state

    def _keep(self, position: int, state: dict) -> None:
        self._kept[position] = state
        old = position - self.WINDOW
        if old > 0 and old % self.WINDOW:
            self._kept.pop(old, None)

    def undo_to(self, position: int) -> None:
        """The moves in effect after ``position`` undone."""
        if position >= len(self.live):
            return
        for gone in range(position + 1, len(self.live) + 1):
            self._kept.pop(gone, None)
        del self.live[position:]
        if position not in self._kept:  # replayed from the newest table kept before it
            start = max(p for p in self._kept if p < position)
            state = self._kept[start]
            for at in range(start, position):
                state = self.engine.apply(state, self.moves[self.live[at]]["payload"])
                self._keep(at + 1, state)


def import_record(record: dict, group_id: str | None = None) -> tuple[Game, str]:
    """Replay and store ``record`` as a new game (in the group ``group_id``, whose token the caller
    checked); returns the game and its token."""
    replayed = replay_record(record)
    game = replayed.game
    if group_id is not None:
        game.group_id = group_id
        # the group's players and the imported names must not read alike (as for a game made there)
        refuse_confusable(groups.players_of(group_id) + list(game.players))
    with store.writer_queue():
        try:
            db.session.add(game)
            db.session.flush()
            # a slice of rows a statement (one INSERT of many rows, not an ORM object each)
            for start in in_turns(range(0, len(replayed.moves), TURN), every=1):
                db.session.execute(insert(Move.__table__), [dict(row, game_id=game.id)
                                                            for row in replayed.moves[start:start + TURN]])
            db.session.commit()
        except Exception:
            db.session.rollback()
            raise
    return game, replayed.token


# ---------------------------------------------------------------- what the stats read

def game_data(games: list[Game]) -> list[stats.GameData]:
    """The games as ``stats`` reads them, oldest first: the payloads of the moves in effect, in order,
    and the current state; one query for all the games' logs."""
    games = sorted(games, key=lambda g: (aware(g.created_at), g.id))
    ids = [g.id for g in games]
    moves: dict[str, list[dict]] = {i: [] for i in ids}
    if ids:
        query = (select(Move.game_id, Move.payload).where(Move.game_id.in_(ids), Move.voided.is_(False))
                 .order_by(Move.game_id, Move.seq))
        for game_id, payload in db.session.execute(query):
            moves[game_id].append(payload)
    return [stats.GameData(id=g.id, game=g.game, players=list(g.players), options=dict(g.options), moves=moves[g.id],
                     state=g.state, created_at=_time(g.created_at), updated_at=_time(g.updated_at))
            for g in games]


def group_summaries(group_id: str, game: str | None = None) -> list[dict]:
    """Each of the group's games (of type ``game``, or all), oldest first, as ``stats.summarize``
    gives it: players by their current names in the group."""
    resolve = groups.resolver(group_id)
    return [stats.summarize(data, resolve) for data in game_data(groups.games_of(group_id, game=game))]


def group_sheet(summaries: list[dict], figures: dict) -> list[list]:
    """A group's export: its games, one row per game; a blank row; the stats table (one row per game
    type and player); a blank row; who placed ahead of whom."""
    rows: list[list] = [["id", "game", "status", "created_at", "updated_at", "rounds", "players", "winners",
                         "final"]]
    for s in summaries:
        rows.append([s["id"], s["game"], s["status"], s["created_at"], s["updated_at"], len(s["rounds"]),
                     "; ".join(s["players"]), "; ".join(s["winners"]),
                     "; ".join(f"{p}: {s['final'][p]}" for p in s["players"])])
    return [*rows, [], *stats.stats_table(figures), [], *stats.head_to_head_table(figures)]
