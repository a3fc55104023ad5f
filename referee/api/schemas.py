"""marshmallow schemas: they validate the shared request shapes and document the API."""
from __future__ import annotations

from marshmallow import INCLUDE, RAISE, Schema, ValidationError, fields, validate

from referee.rules import ENGINES


class OpenSchema(Schema):
    """A schema whose objects carry more (game-specific) fields than it names."""

    class Meta:
        unknown = INCLUDE


def _known_game(name: str) -> None:
    if name not in ENGINES:  # read when called: an engine registered after import counts
        raise ValidationError(f"Unknown game. Known: {', '.join(ENGINES)}.")


class CreateGameSchema(Schema):
    class Meta:
        unknown = RAISE

    game = fields.String(required=True, validate=lambda name: _known_game(name),
                         metadata={"description": "Which game: one of the names GET /api/v1/rules lists."})
    players = fields.List(fields.String(validate=validate.Length(min=1, max=40)), required=True,
                          validate=validate.Length(min=1, max=64),  # each game refuses its own count, citing its ruling
                          metadata={"description": "Names in seat order (G-1).",
                                    "example": ["Ann", "Bob", "Cid"]})
    options = fields.Dict(keys=fields.String(), load_default=dict,
                          metadata={"description": "Game options; see GET /rules/{game}."})


class RoundSchema(OpenSchema):
    round = fields.Integer()
    scores = fields.Dict(keys=fields.String(), values=fields.Integer())
    totals = fields.Dict(keys=fields.String(), values=fields.Integer())
    breakdown = fields.Dict(keys=fields.String(), values=fields.List(fields.Dict()))


class EventSchema(OpenSchema):
    text = fields.String(required=True)
    rule = fields.String(allow_none=True, metadata={"description": "The ruling applied."})


class OutcomeSchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf(["in_progress", "finished"]))
    winners = fields.List(fields.String(), required=True)
    reason = fields.String(required=True, allow_none=True)
    rule = fields.String(required=True, allow_none=True, metadata={"description": "The ruling that ended the game."})


class AllowedMoveSchema(Schema):
    players = fields.List(fields.String(), required=True, allow_none=True, metadata={
        "description": "Who may make it now; null when the table records it as a whole."})
    choices = fields.Dict(keys=fields.String(), metadata={
        "description": "The legal values of its fields, where the choice is small."})


class GameSchema(OpenSchema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    players = fields.List(fields.String(), required=True)
    options = fields.Dict(required=True)
    version = fields.Integer(required=True, metadata={"description": "Moves in effect."})
    etag = fields.String(required=True, metadata={
        "description": "The ETag of this state, for If-Match and If-None-Match: the version while no "
                       "move was ever undone, then 'version-writes', so that it never names another state."})
    status = fields.String(required=True, validate=validate.OneOf(["in_progress", "finished"]))
    round = fields.Integer(allow_none=True)
    to_play = fields.String(allow_none=True)
    standings = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    winners = fields.List(fields.String(), required=True)
    rounds = fields.List(fields.Nested(RoundSchema), required=True)
    phase = fields.String(required=True, allow_none=True, metadata={"description": "Which moves the table takes now."})
    events = fields.List(fields.Nested(EventSchema), required=True, metadata={"description": "What the last move did."})
    outcome = fields.Nested(OutcomeSchema, required=True)
    allowed = fields.Dict(keys=fields.String(), values=fields.Nested(AllowedMoveSchema), required=True, metadata={
        "description": "The moves allowed now, by type: who may make each and its small choices."})


class CreatedGameSchema(GameSchema):
    token = fields.String(required=True, metadata={
        "description": "Shown once: the Bearer token for every write on this game."})


class LoggedMoveSchema(Schema):
    seq = fields.Integer(metadata={"description": "Position in the log, voided moves included."})
    version = fields.Integer(metadata={"description": "The game version this move produced."})
    move = fields.Dict()
    voided = fields.Boolean()
    created_at = fields.String()


class MoveLogSchema(Schema):
    id = fields.String()
    version = fields.Integer()
    moves = fields.List(fields.Nested(LoggedMoveSchema))


class GameQuerySchema(Schema):
    at = fields.Integer(validate=validate.Range(min=0), metadata={
        "description": "Show the table as it was after this many moves (a past version)."})


class MoveLogQuerySchema(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**31 - 1), metadata={
        "description": "Only the entries after this position in the log (`seq`): the `Link` header's "
                       "`rel=\"next\"` gives the next page."})
    limit = fields.Integer(load_default=500, validate=validate.Range(min=1, max=1000), metadata={
        "description": "Entries per page (1-1000)."})


class RulesSchema(Schema):
    game = fields.String()
    title = fields.String()
    players = fields.Dict()
    options = fields.Dict()
    moves = fields.Dict(metadata={"description": "Each move type: label, description, rulings and fields."})
    phases = fields.Dict(metadata={"description": "Each phase: the move types it accepts."})
    rulings = fields.Dict()
    judges = fields.Dict()


class ProblemSchema(OpenSchema):
    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    rule = fields.String(metadata={"description": "The ruling id for a rule violation."})
    legal = fields.Raw(metadata={"description": "What would be allowed instead, where it helps."})
