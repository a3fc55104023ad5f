"""Export and import of a game's record, its score sheet as CSV, and a group's stats and export: the
thin HTTP layer over ``referee.records`` and ``referee.stats``."""
from __future__ import annotations

from flask import Response, current_app, request, url_for
from flask.views import MethodView
from marshmallow import ValidationError

from referee import groups, records, stats, store
from referee.api.blueprint import GAME_TOKEN, GROUP_TOKEN, Blueprint, optional
from referee.api.errors import ETAG, RATE_LIMIT, _validation_detail, problem, problem_response
from referee.api.examples import example, optional_example
from referee.api.games import _game_response, bearer_token, game_links
from referee.api.limits import limit_game_creation
from referee.api.schemas import (
    GameRecordSchema,
    GroupStatsSchema,
    RecordMoveSchema,
    StatsQuerySchema,
)

blp = Blueprint("records", __name__, url_prefix="/api/v1",
                description="A game's record (export and import), score sheets as CSV, a group's stats.")

IMPORT_ENDPOINT = "records.ImportGame"
CSV = "text/csv"


@blp.before_app_request
def _import_body_limit() -> None:
    """A whole game's record is larger than any move: the import alone takes up to IMPORT_MAX_BYTES
    (this runs before the API's body check, which reads the body under the limit)."""
    if request.endpoint == IMPORT_ENDPOINT:
        request.max_content_length = current_app.config.get("IMPORT_MAX_BYTES", records.IMPORT_MAX_BYTES)


def _csv_response(text: str, filename: str) -> Response:
    response = Response(text, mimetype=CSV)
    response.headers["Content-Type"] = f"{CSV}; charset=utf-8"
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _complete_allowed(game) -> bool:
    """The whole record for the game's token once the game is over; otherwise the public record. A
    wrong token is refused (403), as on any write.

    G-5 keeps a face-down card unseen while it can still matter: during play, even the token's
    holder (a phone at the table) gets the record without it. Once the game is finished nothing is
    left to hide from, and the whole record is what an import needs to replay the card accounting."""
    token = bearer_token()
    if token is None and not request.headers.get("Authorization"):
        return False
    store.check_token(game, token)
    return game.status == "finished"


@blp.route("/games/<game_id>/export")
class ExportGame(MethodView):
    @blp.doc(operationId="exportGame", security=optional(GAME_TOKEN), responses={200: {"links": {"importGame": {
        "operationId": "importGame", "requestBody": "$response.body",
        "description": "Import the record as a new game (a whole record: exported with the token once the game "
                       "is over)."}}}})
    @blp.response(200, GameRecordSchema, example=example("exportGame 200"))
    @problem_response(blp, 401, "An Authorization header without a token")
    @problem_response(blp, 403, "Wrong token")
    @problem_response(blp, 404, "No such game")
    def get(self, game_id):
        """The game's whole record as JSON: type, players, options, group, times, and every move of the
        log in order with its version, voided flag, payload and time; POST /games/import takes it back.
        The game's token is optional: once the game is finished it gets the whole record, with the cards
        put face down (G-5) that an import needs; without it, or during play, they are left out."""
        game = store.get_game(game_id)
        complete = _complete_allowed(game)
        # a download is saved under the game's name, as the score sheet is
        headers = {"Vary": "Authorization", "Content-Disposition": f'inline; filename="{game.game}-{game.id}.json"'}
        if complete:
            headers["Cache-Control"] = "no-store"  # it holds cards nobody at the table has seen
        return records.export_record(game, complete=complete), 200, headers


@blp.route("/games/<game_id>/export.csv")
class ExportScoreSheet(MethodView):
    @blp.doc(operationId="exportScoreSheet", responses={200: {
        "description": "The score sheet: a header row (the round's name, then the players in seat order), "
                       "one row per finished round, and a last row 'total' with the game's standings.",
        "content": {CSV: {"schema": {"type": "string"}, **optional_example("exportScoreSheet 200")}}}})
    @problem_response(blp, 404, "No such game")
    def get(self, game_id):
        """The game's score sheet as CSV (text that a spreadsheet would read as a formula is quoted
        with a leading apostrophe)."""
        game = store.get_game(game_id)
        return _csv_response(records.to_csv(records.score_sheet(game)), f"{game.game}-{game.id}.csv")


@blp.route("/games/import", endpoint="ImportGame")
class ImportGame(MethodView):
    @limit_game_creation
    @blp.doc(operationId="importGame", security=optional(GROUP_TOKEN), responses={201: {"links": game_links()}},
             requestBody={"required": True, "content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/GameRecord"},
                             **optional_example("importGame request")}}})
    @blp.response(201, "AnyCreatedGame", headers={"Location": {"schema": {"type": "string"}}, **ETAG, **RATE_LIMIT},
                  example=example("importGame 201"))
    @problem_response(blp, 400, "Malformed request")
    @problem_response(blp, 401, "The record names a group, and no token was sent", "problem group token needed")
    @problem_response(blp, 403, "Not the group's token", "problem wrong group token")
    @problem_response(blp, 404, "No such group", "problem no group")
    @problem_response(blp, 413, "Body too large (IMPORT_MAX_BYTES)")
    @problem_response(blp, 415, "Not JSON")
    @problem_response(blp, 422, "Not a record this service reads, or a move the rules refuse: the first one is "
                                "named (`index`, `seq`, its `rule` and the engine's detail); nothing is stored",
                      "problem import refused")
    @problem_response(blp, 429, "Too many games created from this address")
    def post(self):
        """Import a game's record (as GET /games/{id}/export gives it, with the token): it is replayed
        through the rules engine, move by move, voided moves included, and stored as a new game only if
        every move is legal; returns the new game's id and its token (once). A record that names a
        group needs the group's token."""
        body = request.get_json()
        try:
            records.check_format(body)
            record = load_record(body)
        except records.ImportRefused as refused:
            return _refused(refused)
        except ValidationError as error:
            return problem(422, "Invalid record", _validation_detail(error.messages), "invalid-record",
                           errors=error.messages)
        try:
            game, token = records.import_record(record, group_id=_import_group(record))
        except records.ImportRefused as refused:
            return _refused(refused)
        body = dict(store.game_view(game), token=token)
        return _game_response(body, 201, Location=url_for("games.Game", game_id=game.id), **{"Cache-Control": "no-store"})


def load_record(body: dict) -> dict:
    """``GameRecordSchema``'s load, its moves a slice at a time with the worker's other requests let
    in between (``records.in_turns``): marshmallow takes about 80 us a move, 1.2 s for 15,000. A
    refusal names the same fields, by the same paths, as one load of the whole record."""
    moves = body.get("moves")
    if not isinstance(moves, list):
        return GameRecordSchema().load(body)
    messages: dict = {}
    try:
        record = GameRecordSchema(exclude=("moves",)).load({k: v for k, v in body.items() if k != "moves"})
    except ValidationError as error:
        messages.update(error.messages)
    loaded, refused, schema = [], {}, RecordMoveSchema()
    for start in records.in_turns(range(0, len(moves), records.TURN), every=1):
        try:
            loaded.extend(schema.load(moves[start:start + records.TURN], many=True))
        except ValidationError as error:
            refused.update({start + index: found for index, found in error.messages.items()})
    if refused:
        messages["moves"] = refused
    if messages:
        raise ValidationError(messages)
    return dict(record, moves=loaded)


def _refused(refused: records.ImportRefused):
    return problem(422, refused.title, refused.detail, refused.kind, rule=refused.rule, legal=refused.legal,
                   index=refused.index, seq=refused.seq)


def _import_group(record: dict) -> str | None:
    """The group the record names, once its token is checked (None: no group). Only the group's own
    token: a game's token never acts for its group."""
    if record.get("group") is None:
        return None
    group = groups.get_group(record["group"])
    groups.check_group_token(group, bearer_token())
    return group.id


@blp.route("/groups/<group_id>/stats")
class GroupStats(MethodView):
    @blp.doc(operationId="getGroupStats")
    @blp.arguments(StatsQuerySchema, location="query")
    @blp.response(200, GroupStatsSchema, example=example("getGroupStats 200"))
    @problem_response(blp, 404, "No such group", "problem no group")
    def get(self, query, group_id):
        """The group's stats by game type, computed from its games (finished ones are scored): per player
        games, wins, win rate, average and best final total, best and worst round, the game's own figures;
        who placed ahead of whom; each game's rounds. Names as the group's renames make them."""
        group = groups.get_group(group_id)
        summaries = records.group_summaries(group.id, query.get("game"))
        return {"group": group.id, "games": stats.group_stats(summaries)}


@blp.route("/groups/<group_id>/export.csv")
class GroupExport(MethodView):
    @blp.doc(operationId="exportGroup", responses={200: {
        "description": "Three tables, separated by a blank row: the group's games (one row per game), the "
                       "stats (one row per game type and player) and who placed ahead of whom.",
        "content": {CSV: {"schema": {"type": "string"}, **optional_example("exportGroup 200")}}}})
    @blp.arguments(StatsQuerySchema, location="query")
    @problem_response(blp, 404, "No such group", "problem no group")
    def get(self, query, group_id):
        """The group's games and stats as CSV (text that a spreadsheet would read as a formula is quoted
        with a leading apostrophe)."""
        group = groups.get_group(group_id)
        summaries = records.group_summaries(group.id, query.get("game"))
        rows = records.group_sheet(summaries, stats.group_stats(summaries))
        return _csv_response(records.to_csv(rows), f"group-{group.id}.csv")
