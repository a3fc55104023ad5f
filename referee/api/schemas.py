"""marshmallow schemas: they validate the shared request shapes and document the API."""
from __future__ import annotations

import unicodedata
from datetime import UTC

from marshmallow import INCLUDE, RAISE, Schema, ValidationError, fields, post_load, validate

from referee.rules import ENGINES
from referee.texts import N_, T


class OpenSchema(Schema):
    """A schema whose objects carry more (game-specific) fields than it names."""

    class Meta:
        unknown = INCLUDE


def _known_game(name: str) -> None:
    if name not in ENGINES:  # read when called: an engine registered after import counts
        raise ValidationError(T("Unknown game. Known: {games}.", games=", ".join(ENGINES)))


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
    group = fields.String(validate=validate.Length(min=1, max=32), metadata={
        "description": "Create the game in this group: needs 'Authorization: Bearer <the group's token>'."})


class RoundSchema(OpenSchema):
    round = fields.Integer()
    scores = fields.Dict(keys=fields.String(), values=fields.Integer())
    totals = fields.Dict(keys=fields.String(), values=fields.Integer())
    breakdown = fields.Dict(keys=fields.String(), values=fields.List(fields.Dict()))


class EventSchema(OpenSchema):
    text = fields.String(required=True)
    rule = fields.String(allow_none=True, metadata={"description": "The ruling applied."})


class AdjustmentSchema(Schema):
    player = fields.String(required=True)
    points = fields.Integer(required=True, metadata={"description": "Added to the player's total as the game counts it (T-2)."})
    reason = fields.String(required=True)
    round = fields.Integer(allow_none=True, metadata={"description": "The round it was made in."})
    total = fields.Integer(required=True, metadata={"description": "The player's total after it."})


class OutcomeSchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf(["in_progress", "finished"]))
    winners = fields.List(fields.String(), required=True)
    reason = fields.String(required=True, allow_none=True)
    rule = fields.String(required=True, allow_none=True, metadata={"description": "The ruling that ended the game."})


class AllowedMoveSchema(Schema):
    players = fields.List(fields.String(), required=True, allow_none=True, metadata={
        "description": "Who may make it now; null when the table records it as a whole."})
    choices = fields.Dict(keys=fields.String(), metadata={
        "description": "The legal values of its fields now, where the choice is small: keyed by the move's own "
                       "field names only, each the list of the values that field may hold now (null among them "
                       "where the field may be null or left out).",
        "example": {"source": ["stock", "discard"], "position": [0, 1, 2, 3, 4, 5, 6, 7, 8, None]}})
    facts = fields.Dict(keys=fields.String(), metadata={
        "description": "What else helps to fill the move in and is no field's values, by name, as each game "
                       "declares it (its rules listing): such as the grid positions face down, the ids of the "
                       "sets that take a chance, the cards face up by slot, the values a card may be declared "
                       "as. Left out when empty.",
        "example": {"face_down": [1, 4, 7]}})


class GameSchema(OpenSchema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    players = fields.List(fields.String(), required=True)
    options = fields.Dict(required=True)
    version = fields.Integer(required=True, metadata={"description": "Moves in effect."})
    etag = fields.String(required=True, metadata={
        "description": "The ETag of this state, for If-Match and If-None-Match: the version while no "
                       "move was ever undone, then 'version-writes', so that it never names another state; "
                       "a past table (`at`) is 'version@position', the log position of the move that made it."})
    status = fields.String(required=True, validate=validate.OneOf(["in_progress", "finished"]))
    round = fields.Integer(allow_none=True)
    to_play = fields.String(allow_none=True)
    standings = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    winners = fields.List(fields.String(), required=True)
    rounds = fields.List(fields.Nested(RoundSchema), metadata={
        "description": "Each finished round's scores and breakdown. Left out of a write's answer under "
                       "`Prefer: return=minimal` (they grow with the game; GET has them), and only there."})
    phase = fields.String(required=True, allow_none=True, metadata={"description": "Which moves the table takes now."})
    events = fields.List(fields.Nested(EventSchema), required=True, metadata={"description": "What the last move did."})
    outcome = fields.Nested(OutcomeSchema, required=True)
    allowed = fields.Dict(keys=fields.String(), values=fields.Nested(AllowedMoveSchema), required=True, metadata={
        "description": "The moves allowed now, by type: who may make each and its small choices."})
    group = fields.String(required=True, allow_none=True, metadata={
        "description": "The group the game belongs to (its token also writes the game), or null."})
    rematch = fields.String(required=True, allow_none=True, metadata={
        "description": "The next game at the table (POST /games/{game_id}/rematch made it), or null."})
    adjustments = fields.List(fields.Nested(AdjustmentSchema), metadata={
        "description": "The table's score adjustments (T-2), in the games that take them."})
    rematch_of = fields.String(required=True, allow_none=True, metadata={
        "description": "The game this one is the rematch of, or null."})


NEXT_PAGE = {"description": "The next page's whole URL (as in the Link header), or null on the last page."}


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


def _plain(what: str):
    """A validator of a short text shown at the table (a link's label, a group's name)."""
    def check(value: str) -> None:
        if not value.strip():
            raise ValidationError(T("{what} is not blank.", what=what))
        if any(unicodedata.category(ch).startswith("C") for ch in value):
            raise ValidationError(T("{what} holds no control, format or unassigned characters.", what=what))

    return check


_plain_text = _plain(N_("A label"))


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
                raise ValidationError(N_("Longer than 80 characters in Unicode NFC."), "label")
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


class RecordMoveSchema(Schema):
    class Meta:
        unknown = RAISE

    seq = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=2**31 - 1), metadata={
        "description": "Position in the log, voided moves included: 1, 2, 3..."})
    version = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=2**31 - 1), metadata={
        "description": "The game version this move produced."})
    voided = fields.Boolean(required=True, truthy={True}, falsy={False}, metadata={
        "description": "Undone: a voided move stays in the log, out of effect."})
    payload = fields.Dict(required=True, metadata={
        "description": "The move as the log keeps it (the game's `<Game>LoggedMove`: as it was sent, the player "
                       "named). Exported without the game's token, or before the end, the fields G-5 hides are "
                       "left out and named in `hidden`."})
    created_at = fields.String(allow_none=True, validate=validate.Length(max=64), metadata={
        "description": "When it was made (ISO 8601)."})


class RecordServiceSchema(Schema):
    class Meta:
        unknown = RAISE

    name = fields.String(validate=validate.Length(max=80))
    version = fields.String(validate=validate.Length(max=80))


class GameRecordSchema(Schema):
    """A game's whole record (``referee.records``): what export gives and import takes."""

    class Meta:
        unknown = RAISE

    format = fields.String(required=True, metadata={"description": "Always 'referee-game'.",
                                                    "example": "referee-game"})
    format_version = fields.Integer(required=True, strict=True, metadata={
        "description": "The record format's version (this service reads 1).", "example": 1})
    service = fields.Nested(RecordServiceSchema, metadata={"description": "The service that exported it."})
    id = fields.String(allow_none=True, validate=validate.Length(max=64), metadata={
        "description": "The exported game's id (an import makes a new game with a new id)."})
    game = fields.String(required=True, validate=lambda name: _known_game(name))
    players = fields.List(fields.String(validate=validate.Length(min=1, max=40)), required=True,
                          validate=validate.Length(min=1, max=64), metadata={"description": "In seat order (G-1)."})
    options = fields.Dict(keys=fields.String(), required=True)
    group = fields.String(allow_none=True, validate=validate.Length(max=64), metadata={
        "description": "The group the game is in, or null. An import into a group needs the group's token."})
    created_at = fields.String(allow_none=True, validate=validate.Length(max=64))
    updated_at = fields.String(allow_none=True, validate=validate.Length(max=64))
    exported_at = fields.String(allow_none=True, validate=validate.Length(max=64))
    complete = fields.Boolean(truthy={True}, falsy={False}, metadata={
        "description": "True when exported with the game's token: nothing left out (G-5). Import needs it."})
    status = fields.String(validate=validate.OneOf(["in_progress", "finished"]))
    version = fields.Integer(strict=True, validate=validate.Range(min=0, max=2**31 - 1), metadata={
        "description": "The final version: the moves in effect."})
    moves = fields.List(fields.Nested(RecordMoveSchema), required=True, metadata={
        "description": "The whole log in seq order, voided moves included."})


class StatsQuerySchema(Schema):
    game = fields.String(validate=lambda name: _known_game(name), metadata={
        "description": "Only this game type's stats."})


class PlayerStatsSchema(OpenSchema):
    games = fields.Integer(metadata={"description": "Finished games played."})
    won = fields.Integer(metadata={"description": "Games won (a shared win counts for each winner)."})
    win_rate = fields.Float(metadata={"description": "won / games."})
    average_final = fields.Float(metadata={"description": "Mean final total (the game's standings)."})
    best_final = fields.Integer(metadata={"description": "Best final total: the lowest where the game counts penalty "
                                                         "points (`lower_is_better`), else the highest."})
    rounds = fields.Integer(metadata={"description": "Rounds (hands, exchanges) scored."})
    best_round = fields.Integer(allow_none=True)
    worst_round = fields.Integer(allow_none=True)
    corrected_rounds = fields.Integer(metadata={"description": "Rounds whose result the table corrected (T-1)."})
    adjusted = fields.Integer(metadata={"description": "Points the table's adjustments (T-2) added to the final "
                                                       "totals (negative: taken off)."})
    figures = fields.Dict(keys=fields.String(), values=fields.Integer(), metadata={
        "description": "The game's own figures, by name, as the game declares them (sets captured, rounds "
                       "won, strikes...), summed over its finished games; empty for a game without."})


class HeadToHeadSchema(Schema):
    player = fields.String()
    opponent = fields.String()
    games = fields.Integer(metadata={"description": "Finished games both played."})
    ahead = fields.Integer(metadata={"description": "Games where player placed ahead of opponent."})
    behind = fields.Integer()
    tied = fields.Integer()


class GameTypeStatsSchema(Schema):
    game = fields.String()
    lower_is_better = fields.Boolean(metadata={"description": "True where the game counts penalty points: the "
                                                              "lowest totals are best."})
    games = fields.Integer(metadata={"description": "Finished games (the only ones scored)."})
    in_progress = fields.Integer()
    players = fields.Dict(keys=fields.String(), values=fields.Nested(PlayerStatsSchema))
    head_to_head = fields.List(fields.Nested(HeadToHeadSchema))
    series = fields.List(fields.Dict(), metadata={
        "description": "Each finished game: id, players, winners, final totals and its rounds' scores and "
                       "running totals (corrected rounds marked)."})


class GroupStatsSchema(Schema):
    group = fields.String()
    games = fields.Dict(keys=fields.String(), values=fields.Nested(GameTypeStatsSchema), metadata={
        "description": "By game type."})


class ProblemSchema(OpenSchema):
    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    rule = fields.String(metadata={"description": "The ruling id for a rule violation."})
    legal = fields.Dict(keys=fields.String(), metadata={
        "description": "What would be allowed instead, where it helps; left out where no field's value can say it "
                       "(the detail does). Keyed by the names of the refused move's fields (or of the verdict "
                       "request's, or of the game's options), or `type` for the move types that would be taken "
                       "instead. Each value says what that field may hold instead: a list of the values allowed; "
                       "for a number in a range, {\"minimum\": lo, \"maximum\": hi} (either bound may be left "
                       "out); for a field that maps names to values (a player's points, tokens lost, strikes), an "
                       "object with those names as keys and one of these forms under each (an entry that is "
                       "itself an object, such as a player's round entered whole, again by its own field names). "
                       "Example: {\"player\": [\"Ann\"]}; {\"points\": {\"minimum\": -2, \"maximum\": 1000}}.",
        "example": {"player": ["Ann"]}})
    errors = fields.Dict(metadata={"description": "A malformed body: each field at fault (by its path) and what "
                                                  "is wrong with it."})
    index = fields.Integer(metadata={"description": "An import refused: the move at fault, counted from 0."})
    seq = fields.Raw(metadata={"description": "An import refused: that move's seq, as the record gave it."})
    rematch = fields.String(metadata={"description": "A rematch that already exists: its game's id."})


# ---------------------------------------------------------------- groups and rematch

class StrictBoolean(fields.Boolean):
    """true or false, nothing else: marshmallow's Boolean would read "yes", 1 or "on" as true."""

    def _deserialize(self, value, attr, data, **kwargs):
        if type(value) is not bool:
            raise self.make_error("invalid", input=value)
        return value


class GroupNameSchema(Schema):
    class Meta:
        unknown = RAISE

    name = fields.String(required=True, validate=[validate.Length(min=1, max=80), _plain(N_("A group's name"))],
                         metadata={"description": "What the table calls itself (1-80 characters).",
                                   "example": "Friday cards"})

    @post_load
    def _clean(self, data, **_kwargs):
        data["name"] = unicodedata.normalize("NFC", data["name"].strip())
        if len(data["name"]) > 80:  # NFC may lengthen a few scripts' text
            raise ValidationError(N_("Longer than 80 characters in Unicode NFC."), "name")
        return data


class RenameSchema(Schema):
    class Meta:
        unknown = RAISE

    old = fields.String(required=True, data_key="from", validate=validate.Length(min=1, max=40), metadata={
        "description": "The player's current name in the group.", "example": "Bob"})
    new = fields.String(required=True, data_key="to", validate=validate.Length(min=1, max=40), metadata={
        "description": "The new name; it applies to the group's whole history.", "example": "Robert"})
    merge = StrictBoolean(load_default=False, metadata={
        "description": "'to' is another player of the group and they are one person: merge them (refused "
                       "when both played in one game)."})


class RenameRecordSchema(Schema):
    old = fields.String(required=True, data_key="from", attribute="from")
    new = fields.String(required=True, data_key="to", attribute="to")
    merge = fields.Boolean(required=True)
    created_at = fields.DateTime(required=True)


class GroupSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    created_at = fields.DateTime(required=True)
    updated_at = fields.DateTime(required=True)
    games = fields.Integer(required=True, metadata={"description": "How many games the group has."})
    players = fields.List(fields.String(), required=True, metadata={
        "description": "The names used in the group's games, as renamed, in alphabetical order."})
    renames = fields.List(fields.Nested(RenameRecordSchema), required=True, metadata={
        "description": "The group's renames, oldest first; the history shows each name as they make it."})


class CreatedGroupSchema(GroupSchema):
    token = fields.String(required=True, metadata={
        "description": "Shown once: the group's token. It creates games in the group, writes them, renames "
                       "the group and its players; it opens no other group and no other group's game."})


class GroupGamesQuerySchema(Schema):
    game = fields.String(validate=lambda name: _known_game(name), metadata={"description": "Only games of this type."})
    status = fields.String(validate=validate.OneOf(["in_progress", "finished"]))
    player = fields.String(validate=validate.Length(min=1, max=40), metadata={
        "description": "Only games this player played in, under any of their names in the group."})
    updated_since = fields.AwareDateTime(default_timezone=UTC, metadata={
        "description": "Only games changed at or after this time (ISO 8601; UTC when no offset is given)."})
    after = fields.String(validate=validate.Length(min=1, max=200), metadata={
        "description": "The position to continue from: the `Link` header's `rel=\"next\"` carries it."})
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200), metadata={
        "description": "Games per page (1-200, default 50)."})


class GameSummarySchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    players = fields.List(fields.String(), required=True, metadata={"description": "As renamed in the group."})
    status = fields.String(required=True, validate=validate.OneOf(["in_progress", "finished"]))
    winners = fields.List(fields.String(), required=True)
    standings = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    version = fields.Integer(required=True)
    created_at = fields.DateTime(required=True)
    updated_at = fields.DateTime(required=True)
    rematch = fields.String(required=True, allow_none=True)
    rematch_of = fields.String(required=True, allow_none=True)


class GroupGamesSchema(Schema):
    group = fields.String(required=True)
    games = fields.List(fields.Nested(GameSummarySchema), required=True, metadata={
        "description": "Newest first; the next page is in `next` and the `Link` header."})
    next = fields.String(allow_none=True, metadata=NEXT_PAGE)


class RematchSchema(Schema):
    class Meta:
        unknown = RAISE

    force = StrictBoolean(load_default=False, metadata={
        "description": "Start the next game although this one is not over (the table gives it up)."})
