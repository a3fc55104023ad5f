"""The engine contract shared by every game: declared moves and phases, one pipeline that applies
every move, the moves allowed now, and the outcome.

A game is one module that ends with ``GAME = Game(...)`` (``Game`` below), registered in
``referee.rules.ENGINES`` under its ``name`` (``register(module.GAME)``). Its parts:

``module``          the engine module's ``__name__`` (its page module and templates share its last part)
``name``            the game's name in URLs (``"ninety-nine"``)
``title``           its printed name
``players``         ``(min, max)`` number of players
``options``         ``{option: {"default": ..., "description": ..., "schema": JSON Schema, "rule": id}}``;
                    ``rule`` is the ruling a refused value of the option cites (G-3); declared as
                    fields, ``declared_options(Int(...), Choice(...), ...)``, the schema the field's
``rulings``         ``{ruling id: one-line summary}``
``moves``           ``{move type: Move}``: each move's fields, description, ruling ids and handler
``phases``          ``{phase: (move types it accepts)}``; ``state["phase"]`` names the current one
``judges``          ``{verdict name: Judge}``: stateless dispute verdicts
``new_game(players, options=None) -> state``
``public_view(state) -> dict``       the game's own public fields (JSON-able)
``standings(state) -> {name: total}``
``outcome(state) -> Outcome``        whether the game is over, who won, why and by which ruling

and, each with its default here:

``view``            the fields ``public_view`` shows, typed (``referee.rules.vocabulary``): the API's
                    ``<Game>State`` schema; default none
``first_deal``      ``(option, default seat)``: the option naming who deals (or starts) first and the
                    seat its default takes (G-2); a rematch moves it one seat on. None: the table
                    deals as it likes
``whole_round``     the move that enters a round whole (T-4), or None
``round_label``     what the game calls a round: ``"round"``, ``"exchange"``, ``"hand"``
``lower_is_better`` True where totals are penalty points (the standings and the stats rank upwards)
``phase_labels``    ``{phase: N_(label)}`` for a phase (or step) the pages' shared catalogue of
                    phase labels lacks; the others print from the catalogue
``figures``         the game's own figures in the group's stats (``Figures``); default none
``example``         a short game the API's documentation plays (``Example``); default none
``actors(state, kind) -> [names] | None``   who may make the move now (None: the move names no
                                             player who must be entitled); default ``to_play``
``choices(state, kind) -> dict | None``     the legal values of its fields where the choice is
                                             small, keyed by the move's own field names, each a
                                             list; None when the move is not possible after all;
                                             default none
``facts(state, kind) -> dict``              what else a client needs to fill the move in and that
                                             is no field's values (Nines' face-down positions)
``refuse_phase(state, kind) -> IllegalMove`` why a move the phase does not accept is refused;
                                             None: the contract's (it names the phase's moves)
``refuse_actor(state, kind, player) -> IllegalMove``  why this player may not make it now; None:
                                             the contract's (it names whose turn it is)

Why a frozen, keyword-only dataclass rather than a ``Protocol`` over engine modules: a misspelt
or unknown part (``refuse_phse=``) is a ``TypeError`` where the game is built, at import, and a
missing one too, where a module's misspelt hook was silently never called; every default is
written here once, visible beside its part, instead of a ``getattr`` at each reader; and mypy
checks each part's type (a hook's arguments, a table's shape) at the one place the game is built.
``tests/rules/test_engine_contract.py`` checks every registered game on top (each hook's arity).

``GAME.apply(state, move) -> state`` runs the pipeline (never mutating ``state``; raises
``RuleError``), ``GAME.allowed(state)`` lists the moves allowed now. The module keeps its
functions and tables, so its tests may call them one by one.

Table moves (T-1, T-2) are declared here once and listed by the engines that take them:
``adjust_move(...)`` (a score adjustment, every game) and ``correction_move(...)`` (a finished
round's result replaced, the games whose rounds the table may enter whole). A table move is
accepted in every phase and after the game's end too; there, one that would change the result
(the winners or the status) is refused unless it says ``change_result``.

States are plain JSON-able data (dicts, lists, str, int, bool, None), so they can be stored,
compared and replayed. Nothing here knows about HTTP or a database.
"""
from __future__ import annotations

import copy
import unicodedata
from dataclasses import dataclass, field
from string import Formatter
from typing import Any, Callable, Protocol, TypedDict

from referee.errors import IllegalMove, InvalidInput, RuleError
from referee.rules.fields import (Choice, Field, Flag, Int, Player, Shaped, Text as TextField, between, check_type,
                                  load_fields)
from referee.texts import N_, Joined, T, Text, joined

__all__ = ["RuleError", "InvalidInput", "IllegalMove", "Move", "Judge", "Outcome", "Game", "apply_move", "load_move",
           "implied_actor", "SAYS", "Figures", "Example",
           "allowed_moves", "public_state", "public_move", "next_state", "SHARED_RULINGS", "shared", "adjust_move",
           "correction_move", "round_index", "replace_round", "RECORD_MODES", "RECORD_OPTION", "record_move",
           "between", "moves_instead", "declared_options"]


class Outcome(TypedDict):
    """Like python-chess's ``outcome()``: ``status`` is ``in_progress`` or ``finished``."""

    status: str
    winners: list[str]
    reason: str | None
    rule: str | None


def in_progress() -> Outcome:
    return {"status": "in_progress", "winners": [], "reason": None, "rule": None}


def finished(winners: list[str], reason: str, rule: str) -> Outcome:
    return {"status": "finished", "winners": list(winners), "reason": reason, "rule": rule}


@dataclass(frozen=True)
class Move:
    """One move type, declared once: everything else (validation, the rules listing, the OpenAPI
    schema, the phone page's form, the text of a logged move) is read from here.

    ``handler(state, move)`` changes the new state in place; ``move`` is already clean (every field
    parsed). ``actor`` names the field that says who makes the move (checked against ``actors``),
    or is None for a move that the table records as a whole. ``says`` is a format string over the
    move's fields (or a function of the move and of ``show``, which prints a card) that reads a
    logged move aloud. ``check(move)`` checks what spans several fields (which of them go
    together) and raises ``InvalidInput``, like a malformed field. ``private(move)`` names the
    fields that record what nobody at the table can see (a card put face down): the service keeps
    them for card accounting but never shows them (G-5)."""

    handler: Callable[[dict, dict], None]
    fields: tuple[Field, ...]
    description: str
    rules: tuple[str, ...]
    label: str = ""
    says: str | Callable[[dict, Callable[[Any], str]], str] = ""
    actor: str | None = "player"
    check: Callable[[dict], Any] | None = None
    private: Callable[[dict], tuple[str, ...]] | None = None
    # A table move (T-1, T-2): its ruling, named by every refusal of it; accepted after the end too.
    table_rule: str | None = None
    # The legal values of its fields now (None: not possible now), in place of the engine's choices.
    offer: Callable[[dict], dict | None] | None = None

    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]

    def schema(self, kind: str) -> dict:
        """The JSON Schema of a move of this type (for the OpenAPI document and API clients)."""
        properties = {"type": {"type": "string", "enum": [kind]}}
        properties.update((f.name, f.schema()) for f in self.fields)
        if self.actor in properties:  # implied when left out and only one player may make the move (G-1)
            properties[self.actor] = {**properties[self.actor], "description": ACTOR_IMPLIED}
        return {"type": "object", "description": f"{self.description} ({', '.join(self.rules)})",
                "properties": properties,
                "required": ["type", *(f.name for f in self.fields if f.required and f.name != self.actor)],
                "additionalProperties": False}

    def listing(self, kind: str) -> dict:
        """What the rules listing says about this move type: enough for a client to build a form."""
        return {"label": self.label or kind, "description": self.description, "rules": list(self.rules),
                "actor": self.actor,
                "fields": [{"name": f.name, "required": f.required, "nullable": f.nullable, "widget": f.widget,
                            "schema": f.schema()} for f in self.fields]}

    def load(self, move: dict, state: dict) -> dict:
        """Check every field of ``move`` against the declaration; returns the clean move."""
        if self.table_rule is None:
            return self._load(move, state)
        try:
            return self._load(move, state)
        except InvalidInput as error:
            raise self.named(error) from None

    def named(self, error: InvalidInput) -> InvalidInput:
        """A table move's refusals all name its ruling (T-1, T-2), a malformed field's too."""
        return error if error.rule or not self.table_rule else InvalidInput(error.detail, rule=self.table_rule,
                                                                           legal=error.legal)

    def _load(self, move: dict, state: dict) -> dict:
        unknown = sorted(set(move) - {"type", *self.field_names()})
        if unknown:
            raise InvalidInput(T("Unknown field(s) in the move: {fields}.", fields=", ".join(map(str, unknown))))
        clean = {"type": move["type"], **load_fields(self.fields, move, state)}
        if self.check is not None:
            self.check(clean)
        return clean

    def public(self, move: dict) -> dict:
        """The logged move as the table may see it: private fields left out and listed in ``hidden``."""
        hidden = [name for name in (self.private(move) if self.private else ()) if name in move]
        if not hidden:
            return move
        return {**{k: v for k, v in move.items() if k not in hidden}, "hidden": hidden}

    def text(self, move: dict, show: Callable[[Any], str] = str) -> str:
        """The logged move in words (``show`` prints a value, e.g. a card with its suit symbol)."""
        if callable(self.says):
            return self.says(move, show)
        if self.says:  # a marked format string (N_) over the move's fields
            names = [name for _, name, _, _ in Formatter().parse(self.says) if name]
            return T(self.says, **{name: show_value(move.get(name), show) for name in names})
        who = move.get(self.actor) if self.actor else None
        label = self.label or str(move.get("type"))
        rest = ", ".join(f"{k} {show_value(v, show)}" for k, v in move.items() if k not in ("type", self.actor))
        if who and rest:
            return T("{player}: {move} {fields}", player=who, move=label, fields=rest)
        if who:
            return T("{player}: {move}", player=who, move=label)
        return T("{move} {fields}", move=label, fields=rest) if rest else label


NONE = N_("none")
ACTOR_IMPLIED = ("The player who makes the move. Left out, it is the one player who may make it now (the player to "
                 "play); when several may, it must be given.")


def show_value(value: Any, show: Callable[[Any], str] = str) -> str:
    if isinstance(value, list):
        return " ".join(show_value(v, show) for v in value) or NONE
    if isinstance(value, dict):
        return "; ".join(f"{k}: {show_value(v, show)}" for k, v in value.items())
    return NONE if value is None else show(value)


# ---------------------------------------------------------------- the pipeline

def default_actors(state: dict, kind: str) -> list[str] | None:
    return [state["to_play"]] if state.get("to_play") else []


def no_choices(state: dict, kind: str) -> dict | None:
    return {}


def no_facts(state: dict, kind: str) -> dict:
    return {}


def accepted_now(engine: Game, state: dict) -> tuple[str, ...]:
    """The move types the current phase accepts (none in a phase the game does not declare)."""
    phase = state.get("phase")
    return engine.phases.get(phase, ()) if isinstance(phase, str) else ()


def default_refuse_phase(engine: Game, state: dict, kind: str) -> IllegalMove:
    accepted = accepted_now(engine, state)
    if not accepted:
        return IllegalMove(engine.moves[kind].rules[0],
                           T("A '{move}' move is not possible now: the table is at '{phase}', which takes no move.",
                             move=kind, phase=state.get("phase")), legal={"type": []})
    return IllegalMove(engine.moves[kind].rules[0],
                       T("A '{move}' move is not possible now: the table is at '{phase}', which takes {moves}.",
                         move=kind, phase=state.get("phase"), moves=", ".join(accepted)),
                       legal=moves_instead(engine, state, accepted))


def default_refuse_actor(engine: Game, state: dict, kind: str, player: str) -> IllegalMove:
    who = list(engine.actors(state, kind) or [])
    legal = {engine.moves[kind].actor or "player": who}
    if not who:
        return IllegalMove("G-1", T("It is nobody's turn, not {player}'s.", player=player), legal=legal)
    return IllegalMove("G-1", T("It is {to_play}'s turn, not {player}'s.", to_play=or_names(who), player=player),
                       legal=legal)


def moves_instead(engine: Game, state: dict, kinds) -> dict:
    """``legal`` for a move that is not possible at this point of the game: those of ``kinds``
    (move types the refusal names) that are allowed now."""
    now = allowed_moves(engine, state)
    return {"type": [kind for kind in kinds if kind in now]}


def move_kind(engine: Game, move: Any) -> str:
    if not isinstance(move, dict):
        raise InvalidInput(N_("A move must be a JSON object."))
    kind = move.get("type")
    if "type" not in move:
        raise InvalidInput(T("Missing field '{field}'.", field="type"))
    check_type("type", kind, str)
    if kind == "correct_round" and kind not in engine.moves and "adjust" in engine.moves:
        raise IllegalMove("T-1", N_("This game's rounds are scored by the referee move by move, never entered "
                                    "whole, so there is no round result to replace: a score the table disputes "
                                    "is changed with an adjustment ('adjust', T-2)."), legal={"type": ["adjust"]})
    if kind not in engine.moves:
        raise InvalidInput(T("Unknown move type '{move}'. This game knows: {moves}.", move=kind,
                             moves=", ".join(engine.moves)))
    return kind


def load_move(engine: Game, state: dict, move: Any) -> tuple[str, dict]:
    """The move's type and its clean fields, or ``InvalidInput`` for a malformed move."""
    kind = move_kind(engine, move)
    return kind, engine.moves[kind].load(implied_actor(engine, state, move), state)


def implied_actor(engine: Game, state: dict, move: Any) -> Any:
    """``move`` with the player who makes it filled in when it names none and exactly one player may
    make it now: the player to play is implied (a tap per card; a move queued offline after another
    is made by whoever is to play when it arrives). The log keeps the move so completed."""
    kind = move.get("type") if isinstance(move, dict) else None
    spec = engine.moves.get(kind) if isinstance(kind, str) else None
    if spec is None or not spec.actor or spec.actor in move:
        return move
    who = engine.actors(state, move["type"])
    return {**move, spec.actor: who[0]} if who is not None and len(who) == 1 else move


def apply_move(engine: Game, state: dict, move: Any) -> dict:
    """Every move of every game, in one order: a known type and well-formed fields, the game not
    over, the phase accepts it, the right player; then the engine's handler on a copy of the
    state. (A malformed body is refused as malformed whenever it is sent.)"""
    kind, clean = load_move(engine, state, move)
    spec = engine.moves[kind]
    result = engine.outcome(state)
    over = result["status"] == "finished"
    if over and not spec.table_rule:
        assert result["rule"], "a finished game names the ruling that ended it"
        raise IllegalMove(result["rule"], T("The game is over: {reason}", reason=result["reason"]))
    if not recorded_now(engine, state, kind):
        raise by_rounds_refusal(engine)
    if kind not in accepted_now(engine, state) and kind != RECORD_MOVE:
        raise (engine.refuse_phase(state, kind) if engine.refuse_phase
               else default_refuse_phase(engine, state, kind))
    if spec.actor and clean.get(spec.actor) is not None:
        who = engine.actors(state, kind)
        if who is not None and clean[spec.actor] not in who:
            raise (engine.refuse_actor(state, kind, clean[spec.actor]) if engine.refuse_actor
                   else default_refuse_actor(engine, state, kind, clean[spec.actor]))
    new = next_state(state)
    new["events"] = []
    try:
        spec.handler(new, clean)
    except InvalidInput as error:
        raise spec.named(error) from None
    if over and spec.table_rule:  # (after the end, only a table move gets here)
        _check_result(engine, spec.table_rule, kind, clean, result, new)
    return new


def _check_result(engine: Game, rule: str, kind: str, move: dict, before: Outcome, new: dict) -> None:
    """T-3: after the end, a table move (T-1, T-2) that changes the result (the winners or the
    status) needs the table's explicit ``change_result``, and its refusal cites T-1 or T-2; when it
    has it, the change is said aloud."""
    after = engine.outcome(new)
    if after["status"] == before["status"] and sorted(after["winners"]) == sorted(before["winners"]):
        return
    was = and_names(before["winners"]) if before["winners"] else N_("nobody")
    if not move.get("change_result"):
        if after["status"] != "finished":
            detail = T("The game is over ({reason}) and this '{move}' move would change its result: the game "
                       "would go on. Send change_result true if the table decides so.",
                       reason=before["reason"], move=kind)
        else:
            detail = T("The game is over ({reason}) and this '{move}' move would change its result: {winners} "
                       "would win instead of {was}. Send change_result true if the table decides so.",
                       reason=before["reason"], move=kind, winners=and_names(after["winners"]), was=was)
        raise IllegalMove(rule, detail, legal={"change_result": [True]})
    if after["status"] != "finished":
        text = T("The table changed the game's result: the game goes on (the winner was {was}).", was=was)
    else:
        text = T("The table changed the game's result: {winners} now win(s) (it was {was}).",
                 winners=and_names(after["winners"]), was=was)
    new["events"].append({"text": text, "rule": rule})


def allowed_moves(engine: Game, state: dict) -> dict:
    """The moves allowed now: ``{type: {"players": [names] | None, "choices": {field: [values]},
    "facts": {name: value}}}``. ``players`` None means the move names no player who must be
    entitled (the table records it). ``choices`` is keyed by the move's own field names only, each
    with the list of values the field may hold now (where the choice is small); ``facts`` holds
    what else helps to fill the move in and is no field's values (positions face down, the sets
    waiting for chances). Either is left out when empty. Once the game is over, only the table's
    own moves are (T-1, T-2)."""
    over = engine.outcome(state)["status"] == "finished"
    actors, choices, facts = engine.actors, engine.choices, engine.facts
    found = {}
    for kind in (*accepted_now(engine, state), *([RECORD_MOVE] if RECORD_MOVE in engine.moves else [])):
        spec = engine.moves[kind]
        if over and not spec.table_rule or not recorded_now(engine, state, kind):
            continue
        who = actors(state, kind) if spec.actor else None
        if who is not None and not who:
            continue
        entry: dict[str, Any] = {"players": who}
        values = spec.offer(state) if spec.offer else choices(state, kind)
        if values is None:
            continue
        if values:
            entry["choices"] = values
        known = facts(state, kind) if not spec.offer else None
        if known:
            entry["facts"] = known
        found[kind] = entry
    return found


def public_move(engine: Game, move: Any) -> Any:
    """A logged move as anyone with the game's id may see it (G-5)."""
    kind = move.get("type") if isinstance(move, dict) else None
    spec = engine.moves.get(kind) if isinstance(kind, str) else None
    return spec.public(move) if spec else move


def public_state(engine: Game, state: dict) -> dict:
    """The public state of a game in one vocabulary (``referee.rules.vocabulary``): the engine's own
    view, then ``phase``, ``round``, ``round_label`` and ``lower_is_better`` (from the engine's
    ``round_label`` and ``lower_is_better``), ``events``, ``outcome`` (and ``status``/``winners``
    from it), ``allowed``, and in a game that takes them the way the table records (T-4) and its
    ``adjustments`` (T-2)."""
    view = engine.public_view(state)
    result = engine.outcome(state)
    view.update(phase=state.get("phase"), round=view.get("round", state.get("round")),
                round_label=engine.round_label,
                lower_is_better=engine.lower_is_better,
                events=list(state.get("events") or []), status=result["status"],
                winners=list(result["winners"]), outcome=result, allowed=allowed_moves(engine, state))
    if RECORD_MOVE in engine.moves:
        view["record"] = record_mode(state)
    if "adjust" in engine.moves:
        view["adjustments"] = copy.deepcopy(state.get("adjustments") or [])
    return view


# A state's lists that only ever grow at the end, their entries never edited in place: the finished
# rounds (a correction, T-1, puts a new entry in place of an old one) and the table's adjustments (T-2).
APPEND_ONLY = frozenset({"rounds", "adjustments"})


def next_state(state: dict) -> dict:
    """The copy of ``state`` that a move changes. The lists in ``APPEND_ONLY`` are shared entry by
    entry with the old state (only the list is copied), so a move costs the same at move 1,000 as
    at move 10, however many rounds or adjustments came before (an import of 4,000 adjustments took
    10 s when each move copied every earlier one)."""
    return {key: (list(value) if key in APPEND_ONLY and type(value) is list else plain_copy(value))
            for key, value in state.items()}


_IMMUTABLE = frozenset({str, int, float, bool, type(None), Text, Joined})


def plain_copy(value: Any) -> Any:
    """A deep copy of a state's plain data (dicts, lists, tuples; strings, numbers, marked texts
    are immutable and shared): what ``copy.deepcopy`` gives, several times faster, because it keeps
    no memo. A state holds no cycles, and no engine may count on two parts being one object: a
    state read back from the database never shares any."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _IMMUTABLE else plain_copy(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _IMMUTABLE else plain_copy(v) for v in value]
    if kind is tuple:
        return tuple(v if type(v) in _IMMUTABLE else plain_copy(v) for v in value)
    if kind in _IMMUTABLE:
        return value
    return copy.deepcopy(value)


# Every verdict's answer says itself in a sentence a player can read aloud, citing its ruling.
SAYS = {"type": "string", "description": "The verdict in a sentence a player can read aloud, citing its ruling.",
        "example": "Yes: 7H 5S 9H is a run, 5S standing in for the 8 (FC-3)."}


@dataclass(frozen=True)
class Judge:
    """A stateless verdict, declared like a move: its request's ``fields`` (``referee.rules.fields``,
    each with the ruling a refused value cites), checked by the code that checks a move's, and
    ``answer(values) -> dict`` given the clean values, an optional field left out as its default.
    ``check(values)`` checks what spans several fields, as a move's ``check`` does. ``fn(body)``
    answers a request as the client sent it (the API, the Check page, the tests). ``response`` is
    the answer's JSON Schema (plain data) for OpenAPI; the request's is read from the fields."""

    answer: Callable[[dict], dict]
    summary: str
    fields: tuple[Field, ...] = ()
    response: dict = field(default_factory=lambda: {"type": "object"})
    example: dict | None = None  # a body the API's documentation asks it (``referee.api.examples``)
    check: Callable[[dict], Any] | None = None

    @property
    def request(self) -> dict:
        """The JSON Schema of a request, from the fields (the spec's and the Check page's)."""
        schema: dict[str, Any] = {"type": "object", "properties": {f.name: f.schema() for f in self.fields},
                                  "required": [f.name for f in self.fields if f.required],
                                  "additionalProperties": False}
        if self.example is not None:
            schema["example"] = self.example
        return schema

    def load(self, body: Any) -> dict:
        """The request checked against the fields: the clean values, defaults filled in."""
        check_keys(body, {f.name for f in self.fields}, what="request")
        values = load_fields(self.fields, body, {}, absent=True)
        if self.check is not None:
            self.check(values)
        return values

    def fn(self, body: Any) -> dict:
        """The verdict on a request body: refused (``InvalidInput``, ``IllegalMove``) or answered."""
        return self.answer(self.load(body))


@dataclass(frozen=True)
class Figures:
    """A game's own figures in a group's stats (``referee.stats``), beside those every game has.

    ``count(final state, steps) -> {player: {figure: number}}``; ``steps`` is the replay, one
    ``(clean move, state before, state after)`` per move in effect, when ``needs_steps`` (a figure
    the final state does not keep), else None. ``labels`` names each figure on the pages
    (``{figure: N_(label)}``). ``placing(final state, steps) -> {player: key}`` orders the players
    the winners and the totals leave level (smaller is ahead), or None: level players share a place."""

    count: Callable[[dict, Any], dict]
    needs_steps: bool = False
    labels: dict[str, str] = field(default_factory=dict)
    placing: Callable[[dict, Any], dict] | None = None


@dataclass(frozen=True, kw_only=True)
class Example:
    """A short game the API's documentation plays (``referee.api.examples``: every body it shows is
    what the service answered). ``players`` sit at the table; ``moves`` are three moves in a row
    from the start, the second leaving its player out (G-1); once the third is undone, ``illegal``
    is refused. A game of ``options`` ends with ``round`` entered whole (T-4), and a record holding
    ``wrong_round`` in its place is refused on import. ``refused_verdict`` names one of the game's
    verdicts and a body it refuses as malformed."""

    players: tuple[str, ...]
    moves: tuple[dict, dict, dict]
    illegal: dict
    options: dict
    round: dict
    wrong_round: dict
    refused_verdict: tuple[str, dict]


class NewGame(Protocol):
    """``new_game(players, options=None) -> state``: the options a table left out take their defaults."""

    def __call__(self, players: Any, options: Any = None, /) -> dict: ...


@dataclass(frozen=True, kw_only=True, eq=False)
class Game:
    """One game, declared whole (the module docstring says what each part is). Keyword-only and
    frozen: an unknown or misspelt part is a ``TypeError`` where the engine builds it, a missing
    one too, and a game does not change once registered. Compared by identity (a game is one
    object in the registry)."""

    module: str  # the engine module's ``__name__``: its page module and templates share its last part
    name: str
    title: str
    players: tuple[int, int]
    options: dict[str, dict[str, Any]]
    rulings: dict[str, str]
    moves: dict[str, Move]
    phases: dict[str, tuple[str, ...]]
    judges: dict[str, Judge]
    new_game: NewGame
    public_view: Callable[[dict], dict]
    standings: Callable[[dict], dict[str, int]]
    outcome: Callable[[dict], Outcome]
    view: tuple[Shaped, ...] = ()
    first_deal: tuple[str, int] | None = None
    whole_round: str | None = None
    round_label: str = "round"
    lower_is_better: bool = False
    phase_labels: dict[str, str] = field(default_factory=dict)
    figures: Figures | None = None
    example: Example | None = None
    actors: Callable[[dict, str], list[str] | None] = default_actors
    choices: Callable[[dict, str], dict | None] = no_choices
    facts: Callable[[dict, str], dict] = no_facts
    # None: the contract's own refusal (``default_refuse_phase``, ``default_refuse_actor``), which
    # reads the whole game and so cannot be a default value here.
    refuse_phase: Callable[[dict, str], IllegalMove] | None = None
    refuse_actor: Callable[[dict, str, str], IllegalMove] | None = None

    def apply(self, state: dict, move: Any) -> dict:
        """The state after ``move`` (``state`` is never changed); raises ``RuleError``."""
        return apply_move(self, state, move)

    def allowed(self, state: dict) -> dict:
        """The moves allowed now (``allowed_moves``)."""
        return allowed_moves(self, state)

    def __repr__(self) -> str:
        return f"<Game {self.name}>"


# ---------------------------------------------------------------- the table's own moves (T-1, T-2)
# Declared once here; an engine lists them in its moves and in every phase (and its rulings with
# shared("T-1", "T-2", "T-4")), giving what only it knows: how a point counts, how a round is scored again.

# The rulings every game shares (docs/rules/README.md gives each in full), declared once: an engine
# lists the ids it uses with shared(...), and words one itself only where its game needs it.
SHARED_RULINGS = {
    "G-1": N_("Players are listed in seat order; left and clockwise mean the next player in the list."),
    "G-2": N_("The service never deals; the table records what becomes public."),
    "T-1": N_("A finished round's result entered wrong is replaced by a correction (correct_round) that names the "
              "round and why: the totals follow it, the replaced result stays beside it and in the log; a "
              "finished game's result changes only when the table says so."),
    "T-2": N_("The table may adjust a player's score (a penalty, a forgotten bonus) with a reason, in any phase: "
              "it counts at once as the game counts points, but the end of the game is judged where the game "
              "judges it (at the end of the round, exchange or hand in progress; between them at once); a finished "
              "game's result changes only when the table says so."),
    "T-4": N_("The table records every act as it happens (record: moves, the default, refereed in full) or each "
              "round whole when it ends (record: rounds), checked as far as what it holds allows; it may switch "
              "between rounds (switch_record), never inside one."),
}


def shared(*ids: str) -> dict[str, str]:
    """The shared rulings ``ids`` as an engine lists them: ``{**shared("G-1", "G-2"), ...}``."""
    return {rid: SHARED_RULINGS[rid] for rid in ids}


ADJUST_LIMIT = 1000  # a penalty or a forgotten bonus, not a new score sheet


@dataclass(frozen=True)
class Reason(TextField):
    """Why the table decided (T-1, T-2): one line of plain text, never blank."""

    def parse(self, value, state):
        text = unicodedata.normalize("NFC", super().parse(value, state)).strip()
        if not text:
            raise InvalidInput(T("Field '{field}' says why the table decided: it cannot be blank.", field=self.name))
        hidden = next((ch for ch in text if unicodedata.category(ch) in _UNSEEN), None)
        if hidden is not None:
            raise InvalidInput(T("Field '{field}' holds an invisible or control character (U+{code}): type it "
                                 "plainly, on one line.", field=self.name, code=f"{ord(hidden):04X}"))
        return text


CHANGE_RESULT = Flag("change_result", required=False, description=N_(
    "True when the table decides that this may change a finished game's result (its winners, or whether it is "
    "over); without it, such a change is refused."))


def signed(points: Any) -> str:
    return f"{points:+d}" if type(points) is int else str(points)


def _check_adjust(move: dict) -> None:
    if move["points"] == 0:
        raise InvalidInput(N_("Field 'points' cannot be 0: an adjustment changes a score."), rule="T-2")


def adjust_move(count: Callable[[dict, str, int], int], point: str,
                round_of: Callable[[dict], Any] = lambda state: state.get("round"),
                who: Callable[[dict], list[str]] | None = None) -> Move:
    """The ``adjust`` move of a game (T-2). ``count(state, player, points)`` adds ``points`` to the
    player's total as the game counts it, settles what follows (the end of the game, who leads),
    refuses what cannot be (``IllegalMove`` citing T-2) and returns the player's new total.
    ``point`` says what a point is in this game (a marked text); ``round_of`` the round the
    adjustment is made in; ``who`` whose score may be adjusted now (default every player)."""

    def handler(state: dict, move: dict) -> None:
        player, points, reason = move["player"], move["points"], move["reason"]
        number = round_of(state)
        total = count(state, player, points)
        state["adjustments"] = [*(state.get("adjustments") or []),
                                {"player": player, "points": points, "reason": reason, "round": number,
                                 "total": total}]
        state["events"].insert(0, {"text": T("{player} {points} by the table's decision ({reason}): {total} now.",
                                             player=player, points=signed(points), reason=reason, total=total),
                                   "rule": "T-2"})

    def offer(state: dict) -> dict | None:
        names = who(state) if who else list(state["players"])
        return {"player": names} if names else None

    return Move(
        handler, (Player("player", description=N_("Whose score the table adjusts.")),
                  Int("points", lo=-ADJUST_LIMIT, hi=ADJUST_LIMIT,
                      description=N_("Added to the player's total (negative: taken off), not 0.")),
                  Reason("reason", description=N_("Why: the table's decision, in a few words.")),
                  CHANGE_RESULT),
        joined([N_("A score adjustment by the table's decision (a penalty, a forgotten bonus), logged with its "
                   "reason; after the game's end it may change the result only with change_result."), point]),
        ("T-2",), label=N_("Adjust a score"), actor=None, check=_check_adjust, table_rule="T-2", offer=offer,
        says=lambda move, show: T("{player} {points} by the table's decision: {reason}", player=move.get("player"),
                                  points=signed(move.get("points")), reason=move.get("reason")))


def correction_move(handler: Callable[[dict, dict], None], result: tuple[Field, ...], description: str,
                    rules: tuple[str, ...], offer: Callable[[dict], dict | None], last: int,
                    what: str = N_("Round"), check: Callable[[dict], Any] | None = None) -> Move:
    """The ``correct_round`` move of a game whose rounds the table may enter whole (T-1): the round
    it replaces, why, the same ``result`` fields as the game's whole-round entry, and
    ``change_result``. ``handler`` scores the result again (``round_index``, ``replace_round``)."""
    return Move(
        handler, (Int("round", lo=1, hi=last, description=N_("The finished round (hand) whose result this "
                                                             "replaces.")),
                  Reason("reason", description=N_("Why: what was entered wrong, in a few words.")),
                  *result, CHANGE_RESULT),
        description, ("T-1", *rules), label=N_("Correct a round"), actor=None, table_rule="T-1", offer=offer,
        check=check,
        says=lambda move, show: T("{what} {round} corrected: {reason}", what=what, round=move.get("round"),
                                  reason=move.get("reason")))


def round_index(state: dict, number: int, current: Any, what: str = N_("Round")) -> int:
    """Where finished round ``number`` is in ``state["rounds"]``; one in progress (``current``) or
    not played yet cannot be corrected (T-1)."""
    rounds = state.get("rounds") or []
    for index, entry in enumerate(rounds):
        if entry.get("round") == number:
            return index
    done = [entry.get("round") for entry in rounds]
    if number == current:
        raise IllegalMove("T-1", T("{what} {round} is in progress: it can be corrected once it is scored.",
                                   what=what, round=number), legal={"round": done})
    raise IllegalMove("T-1", T("{what} {round} has not been played yet: only a finished one can be corrected.",
                               what=what, round=number), legal={"round": done})


def replace_round(state: dict, index: int, entry: dict, reason: str, counts: bool = True,
                  what: str = N_("Round")) -> dict[str, int]:
    """Put ``entry`` (the round scored again, without totals) in place of ``state["rounds"][index]``
    (T-1): the replaced result is kept beside it, in ``corrections``, with why and whose scores
    changed; when its scores ``count`` in the totals, this round's and every later round's totals
    move by the difference, which is returned for the engine's own totals. Round entries are
    shared with earlier states (``next_state``), so they are replaced, never edited."""
    rounds, old = state["rounds"], state["rounds"][index]
    names = list(dict.fromkeys([*old["scores"], *entry["scores"]]))
    changes = {name: {"from": old["scores"].get(name), "to": entry["scores"].get(name)} for name in names
               if old["scores"].get(name) != entry["scores"].get(name)}
    delta = {name: (entry["scores"].get(name) or 0) - (old["scores"].get(name) or 0) for name in names} if counts else {}

    def moved(totals: dict) -> dict:
        return {name: total + delta.get(name, 0) for name, total in totals.items()}

    replaced = {key: value for key, value in old.items() if key != "corrections"}
    rounds[index] = {**entry, "totals": moved(old["totals"]),
                     "corrections": [*(old.get("corrections") or []),
                                     {"rule": "T-1", "reason": reason, "changes": changes, "replaced": replaced}]}
    if any(delta.values()):
        for later in range(index + 1, len(rounds)):
            rounds[later] = {**rounds[later], "totals": moved(rounds[later]["totals"])}
    said = ", ".join(f"{name} {change['from']} -> {change['to']}" for name, change in changes.items())
    state["events"].append({"rule": "T-1", "text": T("{what} {round} corrected ({reason}): {changes}.", what=what,
                                                     round=old["round"], reason=reason,
                                                     changes=said or N_("no score changes"))})
    return delta


# ---------------------------------------------------------------- input helpers
# For what the declared fields do not cover: options, the keys of nested shapes.

def check_keys(obj: dict, allowed: set[str] | frozenset[str], what: str = "move") -> None:
    if not isinstance(obj, dict):
        raise InvalidInput(T("The {what} must be a JSON object.", what=_WHAT.get(what, what)))
    unknown = sorted(set(obj) - set(allowed))
    if unknown:
        raise InvalidInput(T("Unknown field(s) in the {what}: {fields}.", what=_WHAT.get(what, what),
                             fields=", ".join(unknown)))


_WHAT = {"move": N_("move"), "request": N_("request")}  # what ``check_keys`` callers check


def get_field(obj: dict, key: str, kind: type | tuple, required: bool = True, default: Any = None,
              nullable: bool = False) -> Any:
    """Return ``obj[key]`` checked against ``kind``; bool is never accepted as an int."""
    if key not in obj:
        if required:
            raise InvalidInput(T("Missing field '{field}'.", field=key))
        return default
    value = obj[key]
    if value is None and nullable:
        return None
    return check_type(key, value, kind)


# ---------------------------------------------------------------- setup helpers

def in_deck(read: Callable[[Any], Any], rule: str) -> Callable[[Any], Any]:
    """``read`` (a card parser of ``referee.cards``) whose refusal of a card that is not in the
    game's deck names the deck's ruling (G-3)."""

    def parse(code: Any) -> Any:
        try:
            return read(code)
        except InvalidInput as error:
            if error.rule:
                raise
            raise InvalidInput(error.detail, rule=rule, legal=error.legal) from None

    return parse


# Control, format (zero-width, bidi overrides), private-use, surrogate, unassigned, line and
# paragraph separators: nothing a name shown at the table may hold.
_UNSEEN = {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"}


def check_players(players: Any, lo: int, hi: int, rule: str | None = None) -> list[str]:
    """Seat order (G-1): names must be distinct, non-blank strings; a wrong number of players is
    refused citing ``rule`` (G-3)."""
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise InvalidInput(N_("'players' must be a list of names."))
    names = [unicodedata.normalize("NFC", p).strip() for p in players]
    if any(not n for n in names):
        raise InvalidInput(N_("Player names cannot be blank."))
    for name in names:
        hidden = next((ch for ch in name if unicodedata.category(ch) in _UNSEEN), None)
        if hidden is not None:
            raise InvalidInput(T("Player name {name} holds an invisible or control character ({char}): type the "
                                 "name plainly.", name=repr(name),
                                 char=f"U+{ord(hidden):04X} {unicodedata.name(hidden, 'unnamed')}"))
    if any(len(n) > 40 for n in names):
        raise InvalidInput(N_("Player names are at most 40 characters."))
    if len(set(n.casefold() for n in names)) != len(names):
        raise InvalidInput(N_("Player names must be distinct."))
    if not lo <= len(names) <= hi:
        raise InvalidInput(T("This game needs {lo} to {hi} players.", lo=lo, hi=hi) if lo != hi else
                           T("This game needs exactly {n} players.", n=lo), rule=rule)
    return names


def declared_options(*fields: Field) -> dict[str, dict[str, Any]]:
    """A game's ``options``, each declared as a field (``referee.rules.fields``) with its default, its
    description and the ruling its refused values cite (G-3): ``{name: {"default", "schema",
    "rule", "description"}}``, the schema the field's own. A default of None: the engine decides
    from the players (then the option may be null)."""
    return {spec.name: {"default": spec.default, "schema": spec.value_schema(), "rule": spec.rule,
                        "description": spec.description} for spec in fields}


def resolve_options(spec: dict, options: Any) -> dict:
    """Fill defaults for options the table did not record; refuse unknown ones, and a recorded
    value that its declared schema does not allow, citing the option's ``rule`` (G-3).

    A default may be ``None`` when it depends on the players (the engine fills it)."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise InvalidInput(N_("'options' must be an object."))
    unknown = sorted(set(options) - set(spec))
    if unknown:
        raise InvalidInput(T("Unknown option(s): {options}. Known: {known}.", options=", ".join(map(str, unknown)),
                             known=", ".join(spec) or NONE))
    for name in spec:
        if name in options:
            check_option(spec, name, options[name])
    return {name: options.get(name, info.get("default")) for name, info in spec.items()}


def option_refusal(spec: dict, name: str, detail: Text, legal: Any = None) -> InvalidInput:
    """The refusal of a value of option ``name`` (``detail``: a marked sentence without its full
    stop): it names the option's ruling (G-3)."""
    rule = spec[name].get("rule")
    return InvalidInput(T("{detail} ({rule}).", detail=detail, rule=rule) if rule else T("{detail}.", detail=detail),
                        rule=rule, legal=legal)


_OPTION_TYPES: dict[Any, tuple[type | None, str]] = {
    "integer": (int, N_("a whole number")), "string": (str, N_("a text")), "boolean": (bool, N_("true or false"))}


def check_option(spec: dict, name: str, value: Any) -> None:
    """``value`` against option ``name``'s declared schema (type, enum, minimum, maximum); null only
    where the default is null (then the engine decides)."""
    info = spec[name]
    schema = info.get("schema") or {}
    if value is None:
        if info.get("default") is None:
            return
        raise option_refusal(spec, name, T("Option '{option}' cannot be null: omit it for the default ({default})",
                                           option=name, default=repr(info.get("default"))))
    kind, words = _OPTION_TYPES.get(schema.get("type"), (None, ""))
    enum = schema.get("enum")
    if enum is not None and not (value in enum and type(value) in {type(v) for v in enum}):
        raise option_refusal(spec, name, T("Option '{option}' must be one of: {values}", option=name,
                                           values=", ".join(map(str, enum))), legal={name: list(enum)})
    if kind is not None and (not isinstance(value, kind) or isinstance(value, bool) and kind is not bool):
        raise option_refusal(spec, name, T("Option '{option}' must be {kind}", option=name, kind=words))
    lo, hi = schema.get("minimum"), schema.get("maximum")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise option_refusal(spec, name, T("Option '{option}' must be from {lo} to {hi}", option=name, lo=lo, hi=hi)
                             if lo is not None and hi is not None else
                             T("Option '{option}' must be at least {lo}", option=name, lo=lo) if lo is not None else
                             T("Option '{option}' must be at most {hi}", option=name, hi=hi),
                             legal={name: between(lo, hi)})


def player_option(options: dict, key: str, players: list[str], rule: str | None = None) -> str | None:
    value = options.get(key)
    if value is None:
        return None
    if value not in players:
        raise InvalidInput(T("Option '{option}' must name a player ({rule}).", option=key, rule=rule) if rule else
                           T("Option '{option}' must name a player.", option=key), rule=rule,
                           legal={key: list(players)})
    return value


def left_of(players: list[str], name: str, steps: int = 1) -> str:
    """The player ``steps`` seats to the left (G-1: the next one in the list)."""
    return players[(players.index(name) + steps) % len(players)]


def next_deal(engine: Game, players: list[str], options: dict,
              rename: Callable[[str], str] = lambda name: name) -> tuple[list[str], dict]:
    """The players and options of the next game at the same seats: the same (each name through
    ``rename``, a group's renames), with the first deal one seat to the left (G-1, G-2), whether the
    option names the dealer or the first to play (the dealer's left). An engine that declares no
    ``first_deal`` keeps its options: the table deals as it likes."""
    options = dict(options)
    declared = engine.first_deal
    if declared:
        name, default_seat = declared
        current = options.get(name)
        seat = players.index(current) if current in players else default_seat % len(players)
        options[name] = rename(players[(seat + 1) % len(players)])
    return [rename(player) for player in players], options


def and_names(names: list[Any]) -> Any:
    """``Ann``, ``Ann and Bob``, ``Ann, Bob and Cy`` (in the reader's language; marked texts among
    the items stay marked, so they are translated too)."""
    names = list(names)
    if len(names) < 2:
        return names[0] if names else ""
    return T("{names} and {last}", names=joined(names[:-1], ", "), last=names[-1])


def or_names(names: list[Any]) -> Any:
    """``Ann``, ``Ann or Bob`` (in the reader's language)."""
    names = list(names)
    if len(names) < 2:
        return names[0] if names else ""
    return T("{names} or {last}", names=joined(names[:-1], ", "), last=names[-1])


def ranked(totals: dict[str, int], lowest_wins: bool) -> list[str]:
    """Names in finishing order."""
    return sorted(totals, key=lambda n: totals[n] if lowest_wins else -totals[n])


# ---------------------------------------------------------------- how the table records (T-4)
# A game that takes whole rounds names its round entry in ``whole_round`` (``round_result``,
# ``hand_result``, ...), declares the option ``RECORD_OPTION``, keeps the mode in
# ``state["record"]`` and lists ``record_move(...)`` as ``switch_record`` in its moves (not in its
# phases: the switch is taken in every phase until the end, and itself refuses one inside a round).

RECORD_MODES = ("moves", "rounds")
RECORD_MOVE = "switch_record"


RECORD_OPTION = Choice("record", N_("How the table records (T-4): 'moves', every act as it happens, refereed in "
                                    "full; or 'rounds', each round entered whole when it ends. The table may switch "
                                    "between rounds."), choices=RECORD_MODES, default="moves", rule="T-4")


def record_mode(state: dict) -> str:
    return state.get("record") or "moves"  # a state stored before T-4 records moves


def recorded_now(engine: Game, state: dict, kind: str) -> bool:
    """Whether a ``kind`` move fits the way the table records now (T-4): recording by rounds, only
    the round entry, the switch and the table's own moves (T-1, T-2) are taken."""
    whole = engine.whole_round
    return (record_mode(state) != "rounds" or not whole or kind in (whole, RECORD_MOVE)
            or engine.moves[kind].table_rule is not None)


def by_rounds_refusal(engine) -> IllegalMove:
    whole = engine.whole_round
    return IllegalMove("T-4", T("The table records this game by rounds: enter each round whole ('{whole}') when it "
                                "ends, or switch to recording moves between rounds ('{switch}').", whole=whole,
                                switch=RECORD_MOVE), legal={"type": [whole, RECORD_MOVE]})


def record_move(inside_round: Callable[[dict], Any], switched: Callable[[dict, str], None] | None = None) -> Move:
    """The ``switch_record`` move (T-4): the table changes how it records, between rounds only.
    ``inside_round(state)`` says why the state is inside a round (a marked text), or None between
    rounds; ``switched(state, mode)`` does what the game needs on the change (a whole round skips
    what only moves record, such as XIX's draft)."""

    def handler(state: dict, move: dict) -> None:
        mode, now = move["record"], record_mode(state)
        if mode == now:
            raise IllegalMove("T-4", T("The table already records this game by {mode}.", mode=_MODE_WORDS[mode]),
                              legal={"record": [m for m in RECORD_MODES if m != now]})
        why = inside_round(state)
        if why is not None:
            raise IllegalMove("T-4", T("The table switches how it records between rounds, never inside one: {why}",
                                       why=why), legal={"record": []})
        state["record"] = mode
        if switched is not None:
            switched(state, mode)
        state["events"].append({"rule": "T-4", "text": T("From now on the table records {mode}.",
                                                         mode=_MODE_WORDS[mode])})

    def offer(state: dict) -> dict | None:
        if inside_round(state) is not None:
            return None
        return {"record": [m for m in RECORD_MODES if m != record_mode(state)]}

    return Move(
        handler, (Choice("record", choices=RECORD_MODES,
                         description=N_("moves: every act as it happens; rounds: each round whole when it ends.")),),
        N_("The table changes how it records the game (T-4): move by move, or each round whole; between rounds "
           "only."), ("T-4",), label=N_("Switch recording"), actor=None, offer=offer,
        says=lambda move, show: T("The table records {mode} from here", mode=_MODE_WORDS.get(move.get("record"),
                                                                                          move.get("record"))))


_MODE_WORDS: dict[Any, Text] = {"moves": N_("move by move"), "rounds": N_("round by round")}
