"""The HTTP API: flask-smorest blueprints, OpenAPI from the marshmallow schemas, /docs."""
from __future__ import annotations

import json
from http import HTTPStatus

import yaml
from flask import Flask, g, request, send_from_directory
from flask_smorest import Api
from flask_smorest.spec import openapi_cli
from sqlalchemy import text
from werkzeug.exceptions import BadRequest, UnsupportedMediaType

from referee import deadlines
from referee.api import (declared, errors, events, games, groups, judge, limits, links, records,
                         rules_info)
from referee.api.examples import optional_example, write_examples
from referee.api.schemas import GameSchema, ProblemSchema
from referee.models import db
from referee.texts import N_, T, Text

API_VERSION = "1.0.0"

# The engines' marked texts (descriptions in the spec) are strings: written as such in openapi.yaml
for _dumper in (yaml.Dumper, yaml.SafeDumper):
    yaml.add_multi_representer(Text, lambda dumper, text: dumper.represent_str(str(text)), Dumper=_dumper)


class RefereeApi(Api):
    """flask-smorest's Api, with every error documented as problem+json (our error handlers)."""

    ERROR_SCHEMA = ProblemSchema

    def _register_responses(self):
        # As flask-smorest does, one named response per status (@blp.arguments refers to
        # UNPROCESSABLE_ENTITY) and a default one; but errors are problem+json here.
        from flask_smorest.utils import prepare_response

        # named before any response refers to it, with the refusal most met as its example
        self.spec.components.schema("Problem", optional_example("problem illegal move"), schema=ProblemSchema)
        named = [(status.name, status.phrase, status >= 400, errors.ERROR_HEADERS.get(status), status)
                 for status in HTTPStatus]
        default = (self.DEFAULT_ERROR_RESPONSE_NAME, "Error (a 503, the database unavailable, says when to try "
                                                     "again in Retry-After)", True, errors.RETRY_AFTER, 503)
        for name, description, is_error, headers, status in named + [default]:
            response = {"description": description}
            if is_error:
                response["schema"] = ProblemSchema
                refusal = errors.problem_example(status)
                if refusal is not None:
                    response["example"] = refusal
                prepare_response(response, self.spec, errors.PROBLEM)
            if headers:
                response["headers"] = headers
            self.spec.components.response(name, response, lazy=True)


def configure_openapi(app: Flask) -> None:
    import swagger_ui_bundle

    app.config.setdefault("API_TITLE", "Referee")
    app.config.setdefault("API_VERSION", API_VERSION)
    app.config.setdefault("OPENAPI_VERSION", "3.0.3")
    app.config.setdefault("OPENAPI_URL_PREFIX", "/")
    app.config.setdefault("OPENAPI_JSON_PATH", "openapi.json")
    app.config.setdefault("OPENAPI_SWAGGER_UI_PATH", "/docs")
    # Swagger UI assets come from the swagger-ui-bundle package on PyPI, served by us: no CDN.
    app.config.setdefault("OPENAPI_SWAGGER_UI_URL", "/docs/assets/")
    app.config.setdefault("API_SPEC_OPTIONS", {
        "info": {"description": "A referee and scorekeeper for card games played with real cards "
                                "(GET /api/v1/rules lists them). Errors are application/problem+json; "
                                "rule violations carry the ruling id in `rule`."},
        "components": {"securitySchemes": {
            "gameToken": {"type": "http", "scheme": "bearer", "description": (
                "The game's token (returned once when it was created, or by its latest rotation) or, for a "
                "game of a group, the group's token. A phone's key (the pages' cookie) is not accepted.")},
            "groupToken": {"type": "http", "scheme": "bearer", "description": (
                "The group's token (returned once when it was created, or by its latest rotation); a game's "
                "token is not accepted.")},
        }},
    })

    @app.get("/docs/assets/<path:filename>")
    def swagger_assets(filename):
        return send_from_directory(swagger_ui_bundle.swagger_ui_path, filename, max_age=86400)


def _json_body() -> None:
    """Parse every JSON body once, strictly: UTF-8, no NaN, bounded depth, JSON content type."""
    if request.method not in ("POST", "PUT", "PATCH") or not request.path.startswith("/api/"):
        return
    if request.routing_exception is not None:
        return  # no such route or method: the 404 or the 405 (with Allow) comes first
    try:
        raw = request.get_data(cache=True)  # MAX_CONTENT_LENGTH turns an oversized body into a 413
    except (OSError, ValueError):
        # the server could not read the body (a malformed chunked encoding, a dropped client)
        raise BadRequest(N_("The request body could not be read (malformed chunked encoding?).")) from None
    if not raw and request.path.endswith(("/undo", "/links", "/token", "/rematch")):
        return  # these take an empty body (optional: a link's label, a rematch's force; undo and rotation take none)
    if not request.is_json:
        raise UnsupportedMediaType(N_("Send the body as JSON with 'Content-Type: application/json'."))
    data = parse_json(raw)
    request._cached_json = (data, data)  # flask-smorest and the views read this parsed body
    g.json_checked = True


def parse_json(raw: bytes):
    """A JSON body, strictly (UTF-8, no NaN, no key twice, bounded depth), else a 400."""
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        why = f": {exc}" if isinstance(exc, ValueError) and "twice" in str(exc) else ""
        raise BadRequest(T("The body is not valid UTF-8 JSON: {error}.", error=f"{exc.__class__.__name__}{why}")) from None
    if _depth(data) > 32:
        raise BadRequest(N_("The JSON body is nested too deeply."))
    return data


def _unique_keys(pairs: list) -> dict:
    """An object naming a key twice is refused: "last wins" would let a body say two things."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(f"the key {twice!r} appears twice")
    return found


def _reject_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _depth(value, level: int = 0) -> int:
    if level > 32:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level


def init_app(app: Flask) -> None:
    configure_openapi(app)
    openapi_cli.add_command(write_examples)  # flask openapi examples, beside flask-smorest's write
    limits.limiter.init_app(app)
    api = RefereeApi(app)
    api.spec.components.schema("Game", schema=GameSchema)  # what every game's state shares
    for name, schema in declared.components().items():
        api.spec.components.schema(name, schema)
    api.spec.components.schema("GameEvent", events.EVENT_SCHEMA)  # the data of the event stream
    for blueprint in (games.blp, events.blp, links.blp, judge.blueprint(), rules_info.blp, records.blp, groups.blp):
        api.register_blueprint(blueprint)
    errors.register(app)
    app.before_request(_json_body)

    @app.get("/healthz")
    def healthz():
        return {"status": "ok"}

    @app.get("/readyz")
    def readyz():
        """Ready when a write would work: the database answers and takes a write (a write statement
        that changes nothing, rolled back), not only a read."""
        try:
            db.session.execute(text("SELECT 1"))
            db.session.execute(text("UPDATE games SET version = version WHERE 1 = 0"))
            if db.engine.dialect.name == "sqlite":
                db.session.execute(text("PRAGMA quick_check(1)"))
        except Exception as exc:  # the database does not answer or refuses writes: not ready
            try:
                db.session.rollback()
            except Exception:
                pass
            return errors.problem(503, "Not ready", T("The database does not answer or refuses writes ({error}).",
                                                      error=exc.__class__.__name__), "not-ready",
                                  headers={"Retry-After": "5"})
        db.session.rollback()
        return {"status": "ready"}

    app.extensions["referee_api"] = api
    app.wsgi_app = deadlines.Bounded(app.wsgi_app, app.config["DB_TIMEOUT_SECONDS"])
