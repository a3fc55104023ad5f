"""Every error is application/problem+json (RFC 9457); no input produces a 500."""
from __future__ import annotations

import logging
import re

from flask import Flask, jsonify
from sqlalchemy.exc import DBAPIError
from werkzeug.exceptions import HTTPException

from referee import metrics
from referee.i18n import language, say
from referee.models import db
from referee.rules.base import RuleError
from referee.store import StoreError
from referee.texts import N_, T, Text, joined

PROBLEM = "application/problem+json"
TYPE_BASE = "https://referee.invalid/problems/"
log = logging.getLogger(__name__)


def problem(status: int, title: str, detail: str, kind: str, headers: dict | None = None, **extra):
    """The problem+json answer; ``detail`` (a marked text) in the request's language, which
    ``Content-Language`` names. ``type``, ``title`` and ``rule`` never change with the language."""
    body = {"type": TYPE_BASE + kind, "title": title, "status": status, "detail": say(detail)}
    body.update({k: v for k, v in extra.items() if v is not None})
    response = jsonify(body)
    response.status_code = status
    response.mimetype = PROBLEM
    for name, value in (headers or {}).items():
        response.headers[name] = value
    response.headers["Content-Language"] = language()
    response.vary.add("Accept-Language")
    return response


def _header(description: str, kind: str = "string") -> dict:
    return {"schema": {"type": kind}, "description": description}


RETRY_AFTER = {"Retry-After": _header("Seconds to wait before trying again.", "integer")}
# Flask-Limiter's, on every answer of a route under a limit (the creation of games)
RATE_LIMIT = {"X-RateLimit-Limit": _header("Games this address may create in the window.", "integer"),
              "X-RateLimit-Remaining": _header("Games it may still create in this window.", "integer"),
              "X-RateLimit-Reset": _header("When the window ends (Unix time, seconds).", "integer")}
ETAG = {"ETag": _header("The state's ETag (quoted), for If-Match and If-None-Match.")}
# what an error answer carries besides its body, by status (503: when the database may be back)
ERROR_HEADERS = {412: {"ETag": _header("The game's ETag now (quoted).")}, 429: {**RETRY_AFTER, **RATE_LIMIT},
                 503: RETRY_AFTER}


# The example of each status's refusal (referee.api.examples), where one refusal stands for them all;
# a 409 says a different thing on each route, and names its own (``problem_response``'s ``example``).
PROBLEM_EXAMPLES = {400: "problem malformed", 401: "problem no token", 403: "problem wrong token",
                    404: "problem no game", 412: "problem stale version", 413: "problem too large",
                    415: "problem not json", 422: "problem invalid input", 429: "problem too many games",
                    503: "problem database unavailable"}


def problem_example(status: int, name: str | None = None):
    """The example refusal ``name``, else the one of ``status`` (None: the Problem schema's own)."""
    from referee.api.examples import example

    name = name or PROBLEM_EXAMPLES.get(status)
    return example(name) if name else None


def problem_response(blp, status: int, description: str, example: str | None = None):
    """Documents an error response of a flask-smorest view as problem+json, with its headers and an
    example (``example`` names one of referee.api.examples; by default the status's)."""
    from referee.api.schemas import ProblemSchema

    return blp.alt_response(status, schema=ProblemSchema, content_type=PROBLEM, description=description,
                            headers=ERROR_HEADERS.get(status), example=problem_example(status, example))


def database_unavailable(error: Exception):
    """The database is down, refused, read-only or too slow: a 503 that says what is known. A
    write whose commit answer was lost may have been applied: its Idempotency-Key tells."""
    log.warning("Database unavailable: %s (%s)", error.__class__.__name__,  # no SQL, no parameters
                type(getattr(error, "orig", None) or error).__name__)
    metrics.DATABASE_ERRORS.inc()
    try:
        db.session.rollback()
    except Exception:  # the connection itself may be gone; the pool replaces it
        pass
    return problem(503, "Database unavailable",
                   N_("The database did not answer in time or refused the request, so this request did not "
                      "complete. A write may still have been applied if its answer was lost: send it again "
                      "with the same Idempotency-Key to learn which."), "database-unavailable",
                   headers={"Retry-After": "5"})


def rule_problem(error: RuleError):
    if error.rule:
        metrics.REFUSALS.labels(error.rule).inc()
    return problem(error.status, error.title, error.detail, error.kind, rule=error.rule, legal=error.legal)


# marshmallow's own messages (its English defaults), marked so that ``detail`` can be translated
_MARSHMALLOW = {str(text): text for text in (
    N_("Missing data for required field."), N_("Field may not be null."), N_("Invalid value."), N_("Unknown field."),
    N_("Invalid input type."), N_("Not a valid string."), N_("Not a valid utf-8 string."),
    N_("Not a valid integer."), N_("Not a valid number."), N_("Not a valid boolean."), N_("Not a valid list."),
    N_("Not a valid tuple."), N_("Not a valid mapping type."), N_("Not a valid datetime."), N_("Number too large."),
    N_("Must be greater than or equal to {min}."), N_("Must be less than or equal to {max}."),
    N_("Must be greater than or equal to {min} and less than or equal to {max}."),
    N_("Shorter than minimum length {min}."), N_("Longer than maximum length {max}."),
    N_("Length must be between {min} and {max}."), N_("Length must be {equal}."), N_("Must be one of: {choices}."))}
# those with values, as patterns that find the values in marshmallow's formatted message (the
# longest first: "between {min} and {max}" before "{equal}")
_MARSHMALLOW_FORMATS = [(re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+?)", re.escape(text)) + r"\Z"), text)
                        for text in sorted(_MARSHMALLOW, key=len, reverse=True) if "{" in text]


def _marshmallow_text(message):
    """One of marshmallow's messages as a marked text when it is one of its own (else as it is)."""
    if isinstance(message, Text) or not isinstance(message, str):
        return message
    if message in _MARSHMALLOW:
        return _MARSHMALLOW[message]
    for pattern, msgid in _MARSHMALLOW_FORMATS:
        found = pattern.match(message)
        if found:
            return T(msgid, **found.groupdict())
    return message


def _validation_detail(messages) -> str:
    """Flatten marshmallow's nested messages into one readable sentence (marked, so that it is
    translated with the rest of the refusal)."""
    parts = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, path + [str(key)])
        elif isinstance(node, list) and all(isinstance(m, str) for m in node):
            parts.append(T("{field}: {messages}", field=".".join(p for p in path if p not in ("json",)) or "body",
                           messages=joined([_marshmallow_text(m) for m in node])))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, path + [str(i)])
        else:
            parts.append(_marshmallow_text(str(node)))

    walk(messages, [])
    return joined(parts, "; ") if parts else N_("The request is not valid.")


# werkzeug's own descriptions of the errors a client meets (its English words, marked)
_HTTP_DETAILS = {
    400: N_("The browser (or proxy) sent a request that this server could not understand."),
    404: N_("The requested URL was not found on the server. If you entered the URL manually please check your "
            "spelling and try again."),
    405: N_("The method is not allowed for the requested URL."),
    406: N_("The resource identified by the request is only capable of generating response entities which have "
            "content characteristics not acceptable according to the accept headers sent in the request."),
    413: N_("The data value transmitted exceeds the capacity limit."),
    415: N_("The server does not support the media type transmitted in the request."),
    429: N_("This user has exceeded an allotted request count. Try again later."),
    500: N_("The server encountered an internal error and was unable to complete your request. Either the server "
            "is overloaded or there is an error in the application."),
}


def _http_detail(error: HTTPException):
    described = error.description or error.name
    if described == type(error).description and _HTTP_DETAILS.get(error.code) == described:
        return _HTTP_DETAILS[error.code]
    return described


def register(app: Flask) -> None:
    @app.errorhandler(RuleError)
    def _rule(error: RuleError):
        return rule_problem(error)

    @app.errorhandler(StoreError)
    def _store(error: StoreError):
        return problem(error.status, error.title, error.detail, error.kind, headers=error.headers, **error.extra)

    @app.errorhandler(HTTPException)
    def _http(error: HTTPException):
        data = getattr(error, "data", None) or {}
        messages = data.get("messages") if isinstance(data, dict) else None
        if messages:  # webargs/marshmallow validation from flask-smorest
            return problem(422, "Invalid input", _validation_detail(messages), "invalid-input",
                           errors=messages)
        kind = (error.name or "error").lower().replace(" ", "-")
        headers = dict(error.get_headers())
        headers.pop("Content-Type", None)
        return problem(error.code or 500, error.name, _http_detail(error), kind, headers=headers)

    @app.errorhandler(DBAPIError)
    def _database(error: DBAPIError):
        return database_unavailable(error)

    @app.errorhandler(Exception)
    def _unexpected(error: Exception):  # pragma: no cover - a bug, reported without internals
        log.exception("Unhandled error")
        return problem(500, "Internal error", N_("The service failed; the move was not applied."), "internal")
