"""Every error is application/problem+json (RFC 9457); no input produces a 500."""
from __future__ import annotations

import logging

from flask import Flask, jsonify
from sqlalchemy.exc import DBAPIError
from werkzeug.exceptions import HTTPException

from referee import metrics
from referee.models import db
from referee.rules.base import RuleError
from referee.store import StoreError

PROBLEM = "application/problem+json"
TYPE_BASE = "https://referee.invalid/problems/"
log = logging.getLogger(__name__)


def problem(status: int, title: str, detail: str, kind: str, headers: dict | None = None, **extra):
    body = {"type": TYPE_BASE + kind, "title": title, "status": status, "detail": detail}
    body.update({k: v for k, v in extra.items() if v is not None})
    response = jsonify(body)
    response.status_code = status
    response.mimetype = PROBLEM
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def problem_response(blp, status: int, description: str):
    """Documents an error response of a flask-smorest view as problem+json."""
    from referee.api.schemas import ProblemSchema

    return blp.alt_response(status, schema=ProblemSchema, content_type=PROBLEM, description=description)


def database_unavailable(error: Exception):
    """The database is down, refused, read-only or too slow: a 503 that says what is known. A
    write whose commit answer was lost may have been applied: its Idempotency-Key tells."""
    log.warning("Database unavailable: %s", error.__class__.__name__)
    metrics.DATABASE_ERRORS.inc()
    try:
        db.session.rollback()
    except Exception:  # the connection itself may be gone; the pool replaces it
        pass
    return problem(503, "Database unavailable",
                   "The database did not answer in time or refused the request, so this request did not "
                   "complete. A write may still have been applied if its answer was lost: send it again "
                   "with the same Idempotency-Key to learn which.", "database-unavailable",
                   headers={"Retry-After": "5"})


def rule_problem(error: RuleError):
    if error.rule:
        metrics.REFUSALS.labels(error.rule).inc()
    return problem(error.status, error.title, error.detail, error.kind, rule=error.rule, legal=error.legal)


def _validation_detail(messages) -> str:
    """Flatten marshmallow's nested messages into one readable sentence."""
    parts = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, path + [str(key)])
        elif isinstance(node, list) and all(isinstance(m, str) for m in node):
            parts.append(f"{'.'.join(p for p in path if p not in ('json',)) or 'body'}: {' '.join(node)}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, path + [str(i)])
        else:
            parts.append(str(node))

    walk(messages, [])
    return "; ".join(parts) or "The request is not valid."


def register(app: Flask) -> None:
    @app.errorhandler(RuleError)
    def _rule(error: RuleError):
        return rule_problem(error)

    @app.errorhandler(StoreError)
    def _store(error: StoreError):
        return problem(error.status, error.title, error.detail, error.kind, headers=error.headers)

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
        return problem(error.code or 500, error.name, error.description or error.name, kind,
                       headers=headers)

    @app.errorhandler(DBAPIError)
    def _database(error: DBAPIError):
        return database_unavailable(error)

    @app.errorhandler(Exception)
    def _unexpected(error: Exception):  # pragma: no cover - a bug, reported without internals
        log.exception("Unhandled error")
        return problem(500, "Internal error", "The service failed; the move was not applied.", "internal")
