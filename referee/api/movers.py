"""A move in front of Flask.

A move is the service's one frequent write, and under load Flask's request context, its hooks and
flask-smorest's wrappers cost it about a quarter of the workers' CPU (bench/README.md, tenth pass).
This WSGI layer hands a plain move (``POST /api/v1/games/<id>/moves``, a JSON body within the size
limit, no query string) to the store itself, in an application context, and answers the store's
201 as the Flask view would: the same status, body and headers (``referee.api.games`` builds both).

Everything else goes on to Flask, untouched: another method or path, a body Flask would refuse
(not JSON, too large, malformed, chunked), a bad ``Idempotency-Key``, an operator's rate limit on
every request (Flask-Limiter's check must then run), pretty-printed answers (the debug mode). A move
that the store refuses or fails (a rule, a token, a version, the database) is answered by Flask's own
error handlers and after-request hooks, in a request context made for it, without being judged
again: nothing runs twice, and every refusal has one rendering (problem+json, in the request's
language).

Its requests are logged and counted as every other (``logs.answered``), with the same request id.
"""
from __future__ import annotations

import io
import re
import time

from flask import Flask, g
from werkzeug.http import HTTP_STATUS_CODES

from referee import logs, store
from referee.api import limits
from referee.api.games import prefers_minimal, write_request_of, written_answer

ROUTE = "/api/v1/games/<game_id>/moves"  # the route's pattern, as Flask's log line names it
PATH = re.compile(r"/api/v1/games/([^/]+)/moves")


class Movers:
    """WSGI middleware over the app's ``wsgi_app``; ``parse_json`` is the API's strict JSON reader."""

    def __init__(self, wsgi_app, app: Flask, parse_json):
        self.wsgi_app = wsgi_app
        self.app = app
        self.parse_json = parse_json

    def __call__(self, environ, start_response):
        game_id = self._plain_move(environ)
        if game_id is None:
            return self.wsgi_app(environ, start_response)
        started = time.perf_counter()
        length = int(environ["CONTENT_LENGTH"])
        raw = environ["wsgi.input"].read(length)
        environ["wsgi.input"] = io.BytesIO(raw)  # Flask reads it again if it answers instead
        if len(raw) != length:  # the client went away in the middle: Flask's answer (a 400)
            return self.wsgi_app(environ, start_response)
        try:
            move = self.parse_json(raw)
            write = write_request_of(game_id, environ["PATH_INFO"], move, environ.get("HTTP_AUTHORIZATION", ""),
                                     environ.get("HTTP_IF_MATCH"), environ.get("HTTP_IDEMPOTENCY_KEY"))
        except Exception:  # a malformed body or key: nothing was done, Flask refuses it as such
            return self.wsgi_app(environ, start_response)
        rid = logs.request_id(environ.get("HTTP_X_REQUEST_ID", ""))
        refusal = None
        with self.app.app_context():
            try:
                result = store.apply_move(write, move)
                body, extra = written_answer(result, prefers_minimal([environ.get("HTTP_PREFER", "")]))
                data = self.app.json.answer(body)
            except Exception as error:  # refused or failed: Flask's handler answers it, as in the view
                refusal = error
        if refusal is not None:
            return self._answer_error(environ, start_response, refusal, rid, started)
        headers = [("Content-Type", self.app.json.mimetype), ("Content-Length", str(len(data))),
                   ("ETag", f'"{body["etag"]}"'), *extra.items(), (logs.REQUEST_ID, rid)]
        start_response(f"{result.status} {HTTP_STATUS_CODES[result.status].upper()}", headers)
        logs.answered(rid, "POST", ROUTE, result.status, time.perf_counter() - started)
        return [data]

    def _plain_move(self, environ) -> str | None:
        """The game's id when the request is a move this layer answers, else None."""
        if environ.get("REQUEST_METHOD") != "POST" or environ.get("QUERY_STRING"):
            return None
        match = PATH.fullmatch(environ.get("PATH_INFO", ""))
        if match is None or not store._possible_id(match.group(1)):
            return None  # no game has such an id: Flask's answer (a 404)
        if environ.get("CONTENT_TYPE", "").partition(";")[0].strip().lower() != "application/json":
            return None
        length, most = environ.get("CONTENT_LENGTH", ""), self.app.config.get("MAX_CONTENT_LENGTH")
        if not length.isdigit() or int(length) == 0 or (most is not None and int(length) > most):
            return None  # chunked, empty or too large: Flask's answer (a 400, 413...)
        if "HTTP_TRANSFER_ENCODING" in environ or self.app.json.pretty:
            return None  # chunked, or answers pretty-printed: Flask's
        if limits.limiter.enabled and limits.limiter.limits_beyond_views():
            return None  # an operator's limit on every request: Flask-Limiter checks it
        return match.group(1)

    def _answer_error(self, environ, start_response, error: Exception, rid: str, started: float):
        """The store's refusal or failure, answered as Flask answers it in the view: its error
        handler, then the after-request hooks (the log line and metrics among them)."""
        app = self.app
        context = app.request_context(environ)
        context.push()
        try:
            g.request_id, g.started = rid, started  # as the before-request hook of referee.logs sets them
            try:
                response = app.finalize_request(app.handle_user_exception(error))
            except Exception as unhandled:
                response = app.handle_exception(unhandled)
            return response(environ, start_response)
        finally:
            context.pop()
