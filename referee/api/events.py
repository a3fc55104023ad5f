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
STREAM_DOC = {"200": {"description": "text/event-stream: events 'move', 'undo' and 'sync', each with id = the "
                                     "game's revision and data = {\"version\", \"etag\", \"revision\", \"kind\"}; "
                                     "a comment line every 15 s. The stream ends after EVENTS_MAX_SECONDS "
                                     "(the client reconnects with Last-Event-ID).",
                      "content": {"text/event-stream": {"schema": {"type": "string"}}}}}


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
