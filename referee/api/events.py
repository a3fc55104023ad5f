"""A game's live events as server-sent events (``referee.events``): the thin HTTP side.

Each event carries the table itself (the public state, as ``GET /games/{id}`` answers it), so a
follower needs no second request. What an event carries is made once per process for every
follower of the game (``SharedEvents``): followers that wake together for a move wait for the one
that encodes it. The pages' stream (``referee.web.views.live``) uses the same stream with the
page's rendered parts instead of the state.
"""
from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Hashable

from flask import Response, current_app, request
from flask.views import MethodView
from marshmallow import Schema, fields, validate

from referee import store
from referee.api.blueprint import Blueprint
from referee.api.errors import problem_response
from referee.api.examples import example
from referee.events import Change, hub

log = logging.getLogger(__name__)

blp = Blueprint("events", __name__, url_prefix="/api/v1", description="Live events of a game (server-sent events).")

HEARTBEAT_SECONDS = 15.0  # a comment line now and then: proxies keep the stream, dead clients show up
LAST_EVENT_ID = {"in": "header", "name": "Last-Event-ID", "required": False, "schema": {"type": "string"},
                 "description": "The id of the last event the client has (its revision): a missed write "
                                "is sent at once as a 'sync' event. Also accepted as ?last_event_id= "
                                "(a browser's EventSource sends the header itself only when it reconnects)."}


class EventsQuerySchema(Schema):
    last_event_id = fields.String(metadata={"description": "Last-Event-ID, for a first connection."})
    state = fields.String(load_default="full", validate=validate.OneOf(["full", "none"]), metadata={
        "description": "'full' (the default): each event carries the game's public state; 'none': notices "
                       "only (version, etag, revision, kind), for a client that needs to know that the table "
                       "changed, not what it is now."})


# a move's event as the recorded scenario saw it (referee/api/examples.py): its state is the move's answer
_MOVED = example("applyMove 201") or {}
EXAMPLE = {"kind": "move", "version": _MOVED.get("version", 1), "etag": _MOVED.get("etag", "1"),
           "revision": _MOVED.get("version", 1), "state": _MOVED}
# What one event's data holds: OpenAPI 3.0 cannot type a stream's events, so the stream's schema
# names this component (GameEvent) for a client to read each event's data with.
EVENT_SCHEMA = {
    "type": "object", "required": ["version", "etag", "revision", "kind"],
    "description": "The data of one event of GET /games/{game_id}/events (JSON on its data: line). The event's "
                   "name (its event: line) is the same as 'kind', and its id: line is 'revision'. Version, etag "
                   "and revision are those of the state it carries: the game's newest when the event was sent, "
                   "which may be a write or more past the one that woke it (then its kind is 'sync').",
    "properties": {
        "kind": {"type": "string", "enum": ["move", "undo", "sync"],
                 "description": "'move': a move was applied; 'undo': the last move was voided; 'sync': several "
                                "writes since the client's last event, or sent at once on a connection whose "
                                "Last-Event-ID is behind the game (it missed changes)."},
        "version": {"type": "integer", "description": "The game's version (moves in effect)."},
        "etag": {"type": "string", "description": "The state's entity tag, unquoted (the ETag header quotes it); "
                                                  "the same as state.etag."},
        "revision": {"type": "integer", "description": "Every write counts: the id of this event, for Last-Event-ID."},
        "state": {"allOf": [{"$ref": "#/components/schemas/AnyGame"}],
                  "description": "The game's public state at this etag, exactly as GET /games/{game_id} answers "
                                 "it. Left out with ?state=none."},
    },
    "example": EXAMPLE,
}
STREAM_DOC = {"200": {"description": "text/event-stream: events 'move', 'undo' and 'sync', each with id = the "
                                     "game's revision and data a GameEvent (JSON) that carries the game's "
                                     "state; a comment line every 15 s. The stream ends after "
                                     "EVENTS_MAX_SECONDS (the client reconnects with Last-Event-ID).",
                      "content": {"text/event-stream": {"schema": {
                          "type": "string", "description": "Server-sent events; each event's data is a GameEvent.",
                          "x-event-data": {"$ref": "#/components/schemas/GameEvent"},
                          "example": f"id: 1\nevent: move\ndata: {json.dumps(EXAMPLE, separators=(',', ':'))}\n\n"}}}}}


def last_event_id() -> int | None:
    """The client's Last-Event-ID (the header, else ``?last_event_id=``) when it is one of ours."""
    given = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    if given and given.isascii() and given.isdigit() and len(given) <= 12:
        return int(given)
    return None  # none, or not one of ours: the stream starts from now


def event_data(change: Change, name: str | None = None, encoded: str | None = None) -> str:
    """An event's data: the change's numbers, and ``encoded`` JSON (made once for every follower)
    under ``name``, joined as text rather than encoded again."""
    head = (f'{{"kind":"{change.kind}","version":{change.version},"etag":"{change.etag}",'
            f'"revision":{change.revision}')
    return f"{head},\"{name}\":{encoded}}}" if name is not None else head + "}"


def event_text(change: Change, data: str) -> str:
    # one data: line per line of the JSON (a pretty-printed one has several; the client joins them)
    lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    return f"id: {change.revision}\nevent: {change.kind}\n{lines}\n"


class SharedEvents:
    """What this process's followers are sent of each game's newest state, by key (the game; for the
    pages also the language and the kind of phone), made once: the first follower to need a state
    newer than the one kept makes it, and those that woke with it wait on the key's lock and take
    the same. A state names itself by its revision, so the kept one serves every change up to it."""

    STRIPES = 64  # locks, shared by keys: followers of different games seldom wait on each other

    def __init__(self, size: int = 512):
        self.size = size
        self._kept: dict[Hashable, tuple[Change, str]] = {}
        self._lock = threading.Lock()
        self._stripes = [threading.Lock() for _ in range(self.STRIPES)]

    def newest(self, key: Hashable, change: Change, make: Callable[[], tuple[Change, str]]) -> tuple[Change, str]:
        """The kept (state's change, encoded JSON) for ``key`` if it is at least as new as ``change``,
        else what ``make`` gives (the state read now), kept for the next follower."""
        kept = self._kept.get(key)
        if kept is not None and kept[0].revision >= change.revision:
            return kept
        with self._stripes[hash(key) % self.STRIPES]:
            kept = self._kept.get(key)
            if kept is not None and kept[0].revision >= change.revision:
                return kept
            kept = make()
            with self._lock:
                self._kept.pop(key, None)
                self._kept[key] = kept
                while len(self._kept) > self.size:  # the least recently made goes first
                    self._kept.pop(next(iter(self._kept)))
            return kept


states = SharedEvents()


def sent_as(change: Change, state: Change) -> Change:
    """The event for a change, sent with ``state`` (read when it was sent, so it may be newer): its
    numbers, and the change's kind only when it is that same write."""
    kind = change.kind if state.revision == change.revision else "sync"
    return Change(change.game_id, state.revision, state.version, kind)


def state_event(app) -> Callable[[Change], tuple[Change, str]]:
    """The API's events: each change with the game's public state, encoded once per state (the view
    cache ``store.views``, which the API's GET answers from too)."""

    def read(game_id: str) -> tuple[Change, str]:
        with app.app_context():
            game = store.get_game(game_id)
            view = store.game_view(game)
            body = app.json.response(view).get_data()
            store.views.put(game.id, view["etag"], body)
            return Change(game.id, game.revision, game.version, "sync"), body.decode().strip()

    def event(change: Change) -> tuple[Change, str]:
        def make() -> tuple[Change, str]:
            body = store.views.get(change.game_id, change.etag)  # a GET encoded it already
            return (change, body.decode().strip()) if body is not None else read(change.game_id)

        state, encoded = states.newest(change.game_id, change, make)
        sent = sent_as(change, state)
        return sent, event_data(sent, "state", encoded)

    return event


def notice_event(change: Change) -> tuple[Change, str]:
    return change, event_data(change)


def follow(game_id: str, event_of: Callable[[Change], tuple[Change, str]]) -> Response:
    """A follower's stream of the game (in its request): from its Last-Event-ID on, each change as
    ``event_of`` makes it, which is the event sent and its data."""
    app = current_app._get_current_object()
    follower = hub.follow(app, game_id)  # listening before the read: nothing falls in between
    try:
        # its version and revision only: a phone comes back often (Last-Event-ID), and loading the
        # whole game each time was a fifth of the workers' CPU at 1,000 tables (bench/README.md)
        version, revision = store.game_head(game_id)
    except Exception:
        hub.leave(follower)
        raise
    now = Change(game_id, revision, version, "sync")
    last = last_event_id()
    follower.sent = now.revision if last is None else min(last, now.revision)
    if last is not None and last < now.revision:
        follower.offer(now)
    lasts = app.config.get("EVENTS_MAX_SECONDS", 300)

    def stream():
        ends = time.monotonic() + lasts
        try:
            yield "retry: 2000\n\n"
            while time.monotonic() < ends:
                change = follower.next(min(HEARTBEAT_SECONDS, max(0.0, ends - time.monotonic())))
                if change is None:
                    if follower.ended:  # the process is stopping: the client comes back with Last-Event-ID
                        return
                    yield ": still here\n\n"
                    continue
                try:
                    sent, data = event_of(change)
                except Exception:  # the database failed: the client reconnects and catches up
                    log.warning("event stream of %s ends: its state could not be read", game_id, exc_info=True)
                    return
                follower.sent = max(follower.sent, sent.revision)  # the writes it carries are sent
                yield event_text(sent, data)
        finally:
            hub.leave(follower)

    return Response(stream(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@blp.route("/games/<game_id>/events", parameters=[LAST_EVENT_ID])  # (a doc's list would replace the query's)
class Events(MethodView):
    @blp.doc(operationId="followGame", responses=STREAM_DOC)
    @blp.arguments(EventsQuerySchema(), location="query")
    @problem_response(blp, 404, "No such game")
    def get(self, query, game_id):
        """Follow a game: every move and undo as committed on any process or machine, with the table."""
        app = current_app._get_current_object()
        return follow(game_id, notice_event if query["state"] == "none" else state_event(app))
