"""marshmallow schemas: they validate the shared request shapes and document the API."""
from __future__ import annotations

from marshmallow import INCLUDE, RAISE, Schema, fields, validate

from referee.rules import ENGINES


class OpenSchema(Schema):
    """A schema whose objects carry more (game-specific) fields than it names."""

    class Meta:
        unknown = INCLUDE


class CreateGameSchema(Schema):
    class Meta:
        unknown = RAISE

    game = fields.String(required=True, validate=validate.OneOf(sorted(ENGINES)),
                         metadata={"description": "Which game.", "example": "ninety-nine"})
    players = fields.List(fields.String(validate=validate.Length(min=1, max=40)), required=True,
                          validate=validate.Length(min=1, max=20),
                          metadata={"description": "Names in seat order (G-1).",
                                    "example": ["Ann", "Bob", "Cid"]})
    options = fields.Dict(keys=fields.String(), load_default=dict,
                          metadata={"description": "Game options; see GET /rules/{game}."})


class MoveSchema(OpenSchema):
    type = fields.String(required=True, metadata={"description": "The move type; see GET /rules/{game}.",
                                                  "example": "play"})
    player = fields.String(metadata={"example": "Ann"})


class RoundSchema(OpenSchema):
    round = fields.Integer()
    scores = fields.Dict(keys=fields.String(), values=fields.Integer())
    totals = fields.Dict(keys=fields.String(), values=fields.Integer())
    breakdown = fields.Dict(keys=fields.String(), values=fields.List(fields.Dict()))


class GameSchema(OpenSchema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    players = fields.List(fields.String(), required=True)
    options = fields.Dict(required=True)
    version = fields.Integer(required=True, metadata={"description": "Moves in effect; also the ETag."})
    status = fields.String(required=True, validate=validate.OneOf(["in_progress", "finished"]))
    round = fields.Integer(allow_none=True)
    to_play = fields.String(allow_none=True)
    standings = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    winners = fields.List(fields.String(), required=True)
    rounds = fields.List(fields.Nested(RoundSchema), required=True)


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


class RulesSchema(Schema):
    game = fields.String()
    title = fields.String()
    players = fields.Dict()
    options = fields.Dict()
    moves = fields.Dict()
    rulings = fields.Dict()
    judges = fields.Dict()


class ProblemSchema(OpenSchema):
    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    rule = fields.String(metadata={"description": "The ruling id for a rule violation."})
    legal = fields.Raw(metadata={"description": "What would be allowed instead, where it helps."})
