"""The game page's live stream (``/g/<id>/live``): each event carries the parts of the page that
change with a move, rendered, so a phone shows another phone's move without asking for anything.

The parts depend on the game's state, the page's language and whether the phone holds a key to
the table (its forms), nothing else: they are rendered once per (game, state, language, kind of
phone) in this process and shared by every follower of that kind (``SharedEvents``). What is a
phone's own stays out of them: its CSRF token and its forms' idempotency key are slots
(``CSRF_SLOT``, ``KEY_SLOT``) that the page's script fills in (static/app.js, ``fillSlots``).
The stream itself (Last-Event-ID, the 'sync' after a gap, heartbeats) is the API's
(``referee.api.events.follow``).
"""
from __future__ import annotations

import json
from collections.abc import Callable

from flask import Response, current_app, request

from referee import store
from referee.api.events import SharedEvents, event_data, follow, sent_as
from referee.events import Change
from referee.i18n import language

PARTS = ("live", "moves", "scores")  # the page's sections a move changes (#live, #moves, #scores)
CSRF_SLOT = "{csrf}"  # never a token: app.js puts the page's own there
KEY_SLOT = "{key}"  # app.js puts a fresh key there (the forms' keys are "<key>-<type>")

shared = SharedEvents()


def page_event(app, lang: str, holder: bool, root: str, render: Callable[[object, bool], dict[str, str]]
               ) -> Callable[[Change], tuple[Change, str]]:
    """The page's events for phones of one kind (``holder``: with a key to the table) in ``lang``:
    each change with the parts ``render(game, holder)`` gives, rendered once for them all."""

    def read(game_id: str) -> tuple[Change, str]:
        # a request of its own, in the language asked for and with no phone's session: what it
        # renders is the same for every phone of this kind (``root``: the app's URL, for its links)
        with app.test_request_context(f"/g/{game_id}", base_url=root, query_string={"lang": lang}):
            game = store.get_game(game_id)
            parts = render(game, holder)
            return Change(game.id, game.revision, game.version, "sync"), json.dumps(parts, separators=(",", ":"))

    def event(change: Change) -> tuple[Change, str]:
        state, encoded = shared.newest((change.game_id, lang, holder), change, lambda: read(change.game_id))
        sent = sent_as(change, state)
        return sent, event_data(sent, "parts", encoded)

    return event


def stream(game_id: str, holder: bool, render: Callable[[object, bool], dict[str, str]]) -> Response:
    """The stream of the game's page for this request's phone, in its language: ``holder`` says
    whether it holds a key to the table; ``render(game, holder)`` renders the parts (in a request of
    that language, with the slots in place of a phone's own values)."""
    app = current_app._get_current_object()
    return follow(game_id, page_event(app, language(), holder, request.url_root, render))
