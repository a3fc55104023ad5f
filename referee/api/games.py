"""Games, moves, undo: the thin HTTP layer over ``referee.store``."""
from __future__ import annotations

from flask import current_app, jsonify, request, url_for
from flask.views import MethodView

from referee import groups, store
from referee.api.blueprint import GAME_TOKEN, GROUP_TOKEN, Blueprint, optional
from referee.api.errors import ETAG, RATE_LIMIT, problem_response
from referee.api.examples import example, optional_example
from referee.api.limits import limit_game_creation
from referee.api.schemas import (
    CreateGameSchema, GameQuerySchema, MoveLogQuerySchema,
)
from referee.models import aware
from referee.rules import get_engine
from referee.rules.base import public_move
from referee.texts import N_

blp = Blueprint("games", __name__, url_prefix="/api/v1", description="Games, their moves and undo.")

WRITE_HEADERS = [  # and the game's token (GAME_TOKEN)
    {"in": "header", "name": "If-Match", "required": False, "schema": {"type": "string"},
     "description": 'The ETag of the state the client saw, e.g. "3" (or a list, or *), compared strongly: '
                    '412 when the game has moved on, or for a weak tag (W/"3").'},
    {"in": "header", "name": "Idempotency-Key", "required": False, "schema": {"type": "string", "maxLength": 200},
     "description": "A retry with the same key returns the first answer and applies nothing."},
    {"in": "header", "name": "Prefer", "required": False, "schema": {"type": "string", "example": "return=minimal"},
     "description": "return=minimal (RFC 7240): the new state without the finished rounds (`rounds`), which "
                    "grow with the game; `GET /games/{id}` has them. Answered with Preference-Applied."},
]


WRITE_REFUSALS = [(401, "No token"), (403, "Wrong token"), (404, "No such game"),
                  (412, "Stale version (If-Match)")]


def documented_write(view):
    """What every write shares in the docs: its headers, and the token, game and version refusals."""
    for status, description in WRITE_REFUSALS:
        view = problem_response(blp, status, description)(view)
    return blp.doc(parameters=WRITE_HEADERS, security=GAME_TOKEN)(view)


# What a client can do next with a game an answer names (OpenAPI links: generated clients and
# schemathesis's stateful run follow them), by operationId.
GAME_OPERATIONS = {
    "getGame": "Its public state.", "applyMove": "Make a move (the game's token).",
    "undoMove": "Undo the last move (the game's token).", "getMoveLog": "Its move log.",
    "followGame": "Follow it live.", "exportGame": "Its record.", "exportScoreSheet": "Its score sheet.",
    "listLinks": "Its table links and phones (the game's token).",
    "createLink": "Make a table link (the game's token).",
    "rotateToken": "Replace its token (the game's token).", "rematch": "The next game at the table (the game's token).",
}


def game_links(game_id: str = "$response.body#/id", *operations: str) -> dict:
    """The links from an answer that names a game (``game_id``: where it names it, as an OpenAPI
    runtime expression) to ``operations`` on it (all of GAME_OPERATIONS by default)."""
    return {operation: {"operationId": operation, "parameters": {"game_id": game_id},
                        "description": GAME_OPERATIONS[operation]}
            for operation in operations or GAME_OPERATIONS}


SAME_GAME = "$request.path.game_id"


def next_link(url: str | None) -> dict:
    """The headers of a page of a list: the next page (also the body's ``next``) in ``Link``."""
    return {"Link": f'<{url}>; rel="next"'} if url else {}


def _game_response(body: dict, status: int = 200, **headers):
    response = jsonify(body)
    response.status_code = status
    response.headers["ETag"] = f'"{body["etag"]}"'
    response.headers.update(headers)
    return response


def _not_modified(tag: str):
    # JSON's type, not the default text/html, which the language hook would give a Vary
    return current_app.response_class(status=304, headers={"ETag": f'"{tag}"'}, mimetype="application/json")


def token_of(authorization: str) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header's value, else None."""
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return None


def bearer_token() -> str | None:
    return token_of(request.headers.get("Authorization", ""))


def write_request(game_id: str, payload) -> store.WriteRequest:
    """A write as its request's path, body and headers state it."""
    headers = request.headers
    key = headers.get("Idempotency-Key")
    if key is not None and not (1 <= len(key) <= 200 and key.isprintable() and key.isascii()):
        raise store.StoreError(400, "Bad Idempotency-Key",
                               N_("An Idempotency-Key has 1 to 200 printable ASCII characters."),
                               "bad-idempotency-key")
    return store.WriteRequest(
        game_id=game_id,
        token=bearer_token(),
        if_match=headers.get("If-Match"),
        idempotency_key=key,
        # what a replay is compared with: only a write with a key can be replayed
        fingerprint=store.request_fingerprint([request.path, payload]) if key else "",
    )


def prefers_minimal() -> bool:
    """``Prefer: return=minimal`` (RFC 7240) among a write's ``Prefer`` headers."""
    return any(part.strip().lower() == "return=minimal"
               for value in request.headers.getlist("Prefer") for part in value.split(","))


def _written(result: store.WriteResult):
    """A write's answer: its body, the ETag (the body's ``etag``), and whether it is a replay."""
    headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
    body = result.body
    minimal = prefers_minimal()
    if minimal:  # the finished rounds grow with the game: a follower reads them with GET
        body = {key: value for key, value in body.items() if key != "rounds"}
        headers["Preference-Applied"] = "return=minimal"
    response = _game_response(body, result.status, **headers)
    if not (minimal or result.replayed):
        # the new table as GET and the events give it: this process's followers are sent it without
        # reading the game (at 1,000 tables those reads were a quarter of the workers' CPU)
        store.views.put(body["id"], body["etag"], response.get_data())
    return response


@blp.route("/games")
class Games(MethodView):
    @limit_game_creation
    @blp.doc(operationId="createGame", security=optional(GROUP_TOKEN),  # the group's, for a game in a group
             responses={201: {"links": game_links()}})
    @blp.arguments(CreateGameSchema, example=example("createGame request"))
    @blp.response(201, "AnyCreatedGame", headers={"Location": {"schema": {"type": "string"}}, **ETAG, **RATE_LIMIT},
                  example=example("createGame 201"))
    @problem_response(blp, 401, "A group named without its token", "problem group token needed")
    @problem_response(blp, 403, "Wrong token for the group named", "problem wrong group token")
    @problem_response(blp, 404, "No such group", "problem no group")
    @problem_response(blp, 422, "Invalid players or options", "problem invalid players")
    @problem_response(blp, 429, "Too many games created from this address")
    def post(self, data):
        """Create a game: returns its id, its token (shown once) and the starting state."""
        if "group" in data:  # a game of a group: the group's token, never a game's
            game, token = groups.create_game(data["group"], bearer_token(), data["game"], data["players"],
                                             data["options"])
        else:
            game, token = store.create_game(data["game"], data["players"], data["options"])
        body = dict(store.game_view(game), token=token)
        return _game_response(body, 201, Location=url_for("games.Game", game_id=game.id))


IF_NONE_MATCH = {"in": "header", "name": "If-None-Match", "required": False, "schema": {"type": "string"},
                 "description": 'The ETag of the state the client holds, e.g. "3" (a list, W/"3" or * too): 304 '
                                "when it is still the state asked for; with `at`, the tag that table was sent with."}


@blp.route("/games/<game_id>", endpoint="Game", parameters=[IF_NONE_MATCH])  # (a doc's list would replace `at`)
class GameResource(MethodView):
    @blp.doc(operationId="getGame")
    @blp.arguments(GameQuerySchema(), location="query")  # one instance, not one per request
    @blp.response(200, "AnyGame", headers=ETAG, example=example("getGame 200"))
    @blp.alt_response(304, description="Not modified (If-None-Match names this state's ETag)")
    @problem_response(blp, 404, "No such game")
    def get(self, query, game_id):
        """The public state of a game (or, with ``at``, the table as it was after that many moves)."""
        if "at" in query:
            game = store.get_game(game_id)
            at = min(query["at"], game.version)
            tag = store.tag_at(game, at)
            if store.not_modified(request.headers.get("If-None-Match"), tag):
                return _not_modified(tag)
            return _game_response(store.view_at(game, at, tag))
        # A follower asks again and again: answer from the version and revision alone when it can
        # (304, or the view already encoded at this ETag), and load the state only for a new one.
        tag = store.game_tag(game_id)
        if store.not_modified(request.headers.get("If-None-Match"), tag):
            return _not_modified(tag)
        body = store.views.get(game_id, tag)
        if body is None:
            view = store.game_view(store.get_game(game_id))
            body = current_app.json.response(view).get_data()
            store.views.put(game_id, view["etag"], body)
            tag = view["etag"]  # a write may have come between the two reads: this is the view's own
        return current_app.response_class(body, mimetype="application/json", headers={"ETag": f'"{tag}"'})


@blp.route("/games/<game_id>/moves")
class Moves(MethodView):
    @blp.doc(operationId="getMoveLog", responses={200: {"links": game_links(SAME_GAME, "getGame", "applyMove")}})
    @blp.arguments(MoveLogQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, "AnyMoveLog", headers={"Link": {"schema": {"type": "string"}, "description":
                                                        'rel="next": the next page, when there is one'}},
                  example=example("getMoveLog 200"))
    @problem_response(blp, 404, "No such game")
    def get(self, game_id, after, limit):
        """The move log, in order, with each move's version and voided moves marked; a page at a
        time (``after``, ``limit``), the next page in ``next`` and the ``Link`` header."""
        game = store.get_game(game_id)
        engine = get_engine(game.game)
        page = store.moves_page(game.id, after, limit + 1)
        moves = [{"seq": m.seq, "version": m.version, "move": public_move(engine, m.payload), "voided": m.voided,
                  "created_at": aware(m.created_at).isoformat()} for m in page[:limit]]
        following = url_for("games.Moves", game_id=game.id, after=moves[-1]["seq"], limit=limit,
                            _external=True) if len(page) > limit else None
        # a Response: the spec's AnyMoveLog is no marshmallow schema for flask-smorest to dump with
        response = jsonify({"id": game.id, "game": game.game, "version": game.version, "moves": moves,
                            "next": following})
        response.headers.update(next_link(following))
        return response

    @blp.doc(operationId="applyMove", requestBody={"required": True, "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/AnyMove"}, **optional_example("applyMove request")}}},
        responses={201: {"links": game_links(SAME_GAME, "applyMove", "undoMove", "getGame", "getMoveLog")}})
    @blp.response(201, "AnyGame", headers=ETAG, example=example("applyMove 201"))
    @documented_write
    @problem_response(blp, 400, "Malformed request")
    @problem_response(blp, 413, "Body too large")
    @problem_response(blp, 415, "Not JSON")
    @problem_response(blp, 422, "Illegal move (with the ruling id in 'rule'), or invalid input", "problem illegal move")
    def post(self, game_id):
        """Apply one move; it is checked against the rules first and changes nothing when refused."""
        move = request.get_json()  # the whole object: the engine's declared fields check every part
        return _written(store.apply_move(write_request(game_id, move), move))


@blp.route("/games/<game_id>/undo")
class Undo(MethodView):
    @blp.doc(operationId="undoMove", responses={200: {"links": game_links(SAME_GAME, "applyMove", "undoMove",
                                                                           "getMoveLog")}})
    @blp.response(200, "AnyGame", headers=ETAG, example=example("undoMove 200"))
    @documented_write
    @problem_response(blp, 409, "Nothing to undo", "problem nothing to undo")
    def post(self, game_id):
        """Void the last move in effect and rebuild the state from the log."""
        return _written(store.undo(write_request(game_id, None)))
