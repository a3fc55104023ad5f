"""A game's live events as server-sent events (``referee.events``): the thin HTTP side."""
from __future__ import annotations

import json
import time

from flask import Response, current_app, request
from flask.views import MethodView

from referee import store
from referee.api.blueprint import Blueprint
from referee.api.errors import problem_response
from referee.events import Change, hub

blp = Blueprint("events", __name__, url_prefix="/api/v1", description="Live events of a game (server-sent events).")

HEARTBEAT_SECONDS = 15.0  # a comment line now and then: proxies keep the stream, dead clients show up
LAST_EVENT_ID = {"in": "header", "name": "Last-Event-ID", "required": False, "schema": {"type": "string"},
                 "description": "The id of the last event the client has (its revision): a missed write "
                                "is sent at once as a 'sync' event. Also accepted as ?last_event_id= "
                                "(a browser's EventSource sends the header itself only when it reconnects)."}
LAST_EVENT_ID_QUERY = {"in": "query", "name": "last_event_id", "required": False,
                       "schema": {"type": "string"}, "description": "Last-Event-ID, for a first connection."}
# What one event's data holds: OpenAPI 3.0 cannot type a stream's events, so the stream's schema
# names this component (GameEvent) for a client to read each event's data with.
EVENT_SCHEMA = {
    "type": "object", "required": ["version", "etag", "revision", "kind"],
    "description": "The data of one event of GET /games/{game_id}/events (JSON on its data: line). The event's "
                   "name (its event: line) is the same as 'kind', and its id: line is 'revision'.",
    "properties": {
        "kind": {"type": "string", "enum": ["move", "undo", "sync"],
                 "description": "'move': a move was applied; 'undo': the last move was voided; 'sync': sent at "
                                "once on a connection whose Last-Event-ID is behind the game (it missed changes)."},
        "version": {"type": "integer", "description": "The game's version now (moves in effect)."},
        "etag": {"type": "string", "description": "The state's entity tag, unquoted (the ETag header quotes it): "
                                                  "GET the game with If-None-Match to read it once."},
        "revision": {"type": "integer", "description": "Every write counts: the id of this event, for Last-Event-ID."},
    },
    "example": {"kind": "move", "version": 12, "etag": "12", "revision": 12},
}
STREAM_DOC = {"200": {"description": "text/event-stream: events 'move', 'undo' and 'sync', each with id = the "
                                     "game's revision and data a GameEvent (JSON); a comment line every 15 s. "
                                     "The stream ends after EVENTS_MAX_SECONDS (the client reconnects with "
                                     "Last-Event-ID).",
                      "content": {"text/event-stream": {"schema": {
                          "type": "string", "description": "Server-sent events; each event's data is a GameEvent.",
                          "x-event-data": {"$ref": "#/components/schemas/GameEvent"},
                          "example": 'id: 12\nevent: move\ndata: {"version": 12, "etag": "12", "revision": 12, '
                                     '"kind": "move"}\n\n'}}}}}


def _last_event_id() -> int | None:
    given = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    if given and given.isascii() and given.isdigit() and len(given) <= 12:
        return int(given)
    return None  # none, or not one of ours: the stream starts from now


def event_text(change: Change) -> str:
    data = {"version": change.version, "etag": change.etag, "revision": change.revision, "kind": change.kind}
    return f"id: {change.revision}\nevent: {change.kind}\ndata: {json.dumps(data)}\n\n"


@blp.route("/games/<game_id>/events")
class Events(MethodView):
    @blp.doc(operationId="followGame", parameters=[LAST_EVENT_ID, LAST_EVENT_ID_QUERY], responses=STREAM_DOC)
    @problem_response(blp, 404, "No such game")
    def get(self, game_id):
        """Follow a game: every move and undo, as it is committed on any process or machine."""
        app = current_app._get_current_object()
        follower = hub.follow(app, game_id)  # listening before the read: nothing falls in between
        try:
            game = store.get_game(game_id)
        except Exception:
            hub.leave(follower)
            raise
        now = Change(game.id, game.revision, game.version, "sync")
        last = _last_event_id()
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
                    yield event_text(change) if change is not None else ": still here\n\n"
            finally:
                hub.leave(follower)

        return Response(stream(), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
