"""marshmallow schemas: they validate the shared request shapes and document the API."""
from __future__ import annotations

import unicodedata

from marshmallow import INCLUDE, RAISE, Schema, ValidationError, fields, post_load, validate

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
        "description": "Shown once: the Bearer token for every write on this game, and for its table links "
                       "(POST /games/{game_id}/token replaces it)."})


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


def _plain_text(value: str) -> None:
    if not value.strip():
        raise ValidationError("A label is not blank.")
    if any(unicodedata.category(ch).startswith("C") for ch in value):
        raise ValidationError("A label holds no control, format or unassigned characters.")


class CreateLinkSchema(Schema):
    class Meta:
        unknown = RAISE

    label = fields.String(validate=[validate.Length(min=1, max=80), _plain_text], metadata={
        "description": "What the link is for, shown in the list (default: 'Table link <n>').",
        "example": "Bob's phone"})

    @post_load
    def _clean(self, data, **_kwargs):
        if "label" in data:
            data["label"] = unicodedata.normalize("NFC", data["label"].strip())
            if len(data["label"]) > 80:  # NFC may lengthen a few scripts' text
                raise ValidationError("Longer than 80 characters in Unicode NFC.", "label")
        return data


class CredentialSchema(Schema):
    id = fields.String(required=True, metadata={"description": "The public id of the link or phone."})
    kind = fields.String(required=True, validate=validate.OneOf(["link", "phone"]), metadata={
        "description": "'link': a table link, whose code a phone opens once to join; 'phone': the key of "
                       "one phone that joined (or started the game on the pages)."})
    label = fields.String(required=True, allow_none=True)
    parent = fields.String(required=True, allow_none=True, metadata={
        "description": "For a phone, the link it joined through; for a link, the phone whose share page "
                       "made it; null when the game's token made it (or the phone started the game)."})
    created_at = fields.DateTime(required=True)
    last_used_at = fields.DateTime(required=True, allow_none=True, metadata={
        "description": "A link's last join, a phone's last write (to the minute)."})
    revoked = fields.Boolean(required=True)
    revoked_at = fields.DateTime(required=True, allow_none=True)


class CreatedLinkSchema(CredentialSchema):
    code = fields.String(required=True, metadata={
        "description": "Shown once: the link's code, '<id>.<secret>'. Give it (in `url`) only to a phone at "
                       "the table."})
    url = fields.String(required=True, metadata={
        "description": "The table link, '/g/{game_id}/join#<code>': the code is in the fragment, which "
                       "browsers never send to the server; the page posts it once and forgets it."})


class CredentialListSchema(Schema):
    links = fields.List(fields.Nested(CredentialSchema), required=True, metadata={
        "description": "Every link and phone of the game, the ones in use first; never a secret."})


class RotatedTokenSchema(Schema):
    id = fields.String(required=True)
    token = fields.String(required=True, metadata={
        "description": "Shown once: the game's new token. The old one opens nothing from now on."})


class ProblemSchema(OpenSchema):
    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    rule = fields.String(metadata={"description": "The ruling id for a rule violation."})
    legal = fields.Raw(metadata={"description": "What would be allowed instead, where it helps."})
