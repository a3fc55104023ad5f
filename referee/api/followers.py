"""A follower's read in front of Flask.

A phone that follows a game asks ``GET /api/v1/games/<id>`` again and again, and is mostly told
"not modified". Flask, flask-smorest and the hooks cost such a read three times what the read
itself costs (bench/README.md, "Move speed and a follower's read"), so this WSGI layer answers it
from the game's tag alone when the answer is a 304 or the view already encoded at that tag
(``store.views``). The tag is one indexed read (``store.read_head``); on PostgreSQL, where that
read is a round trip, it comes from what this process's listener has heard of the game's writes
(``events.TagBook``), with no query at all. Everything else goes on to
Flask and is answered there as before: another method or path, a query string (``at``, ``lang``),
no such game, a view not encoded yet (Flask encodes it and keeps it for the next follower), or a
database that fails (Flask's error handlers make the 503).

It never refuses anything itself, and it answers with the same status, body and headers as the
Flask view would. Its requests are logged and counted as every other (``logs.answered``).
"""
from __future__ import annotations

import time

from referee import events, logs, store

PREFIX = "/api/v1/games/"
ROUTE = "/api/v1/games/<game_id>"  # the route's pattern, as Flask's log line names it


class Followers:
    """WSGI middleware over the app's ``wsgi_app``; ``engine`` is the app's database engine."""

    def __init__(self, wsgi_app, engine):
        self.wsgi_app = wsgi_app
        self.engine = engine
        self.heard = events.hub.tags if engine.dialect.name == "postgresql" else None

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if (environ.get("REQUEST_METHOD") != "GET" or not path.startswith(PREFIX) or environ.get("QUERY_STRING")
                or "/" in path[len(PREFIX):]):
            return self.wsgi_app(environ, start_response)
        started = time.perf_counter()
        game_id = path[len(PREFIX):]
        try:
            tag = self._tag(game_id)
        except Exception:  # the database failed: Flask's path answers (a 503 problem) and logs it
            tag = None
        if tag is None:
            return self.wsgi_app(environ, start_response)
        if store.not_modified(environ.get("HTTP_IF_NONE_MATCH"), tag):
            status, body, headers = 304, b"", []
        else:
            body = store.views.get(game_id, tag)
            if body is None:
                return self.wsgi_app(environ, start_response)
            status, headers = 200, [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
        rid = logs.request_id(environ.get("HTTP_X_REQUEST_ID", ""))
        start_response("304 NOT MODIFIED" if status == 304 else "200 OK",
                       [("ETag", f'"{tag}"'), *headers, (logs.REQUEST_ID, rid)])
        logs.answered(rid, "GET", ROUTE, status, time.perf_counter() - started)
        return [body]

    def _tag(self, game_id: str) -> str | None:
        """The game's tag: as heard (PostgreSQL), else read, and then kept in the book."""
        book = self.heard
        if book is not None and not events.hub.watch(self.engine):  # the listener, started with the first follower
            book = None  # it hears another database
        if book is not None:
            tag = book.tag(game_id)
            if tag is not None:
                return tag
            epoch = book.epoch  # before the read: a read that raced a lost connection teaches nothing
        head = store.read_head(self.engine, game_id)
        if head is None:
            return None
        version, revision = head
        if book is not None:
            book.learn(game_id, revision, version, epoch)
        return events.tag_of(version, revision)
