"""Groups (a regular table: its games, players and renames) and rematches: the thin HTTP layer over
``referee.groups``. Reads need only the group's id; writes need the group's token."""
from __future__ import annotations

from urllib.parse import urlencode

from flask import url_for
from flask.views import MethodView

from referee import groups, store
from referee.api.blueprint import GAME_TOKEN, GROUP_TOKEN, Blueprint
from referee.api.errors import problem_response
from referee.api.examples import example
from referee.api.games import _game_response, bearer_token, game_links, next_link
from referee.api.limits import limit_game_creation
from referee.api.schemas import (
    CreatedGroupSchema,
    GroupGamesQuerySchema,
    GroupGamesSchema,
    GroupNameSchema,
    GroupSchema,
    RematchSchema,
    RenameSchema,
    RotatedTokenSchema,
)

blp = Blueprint("groups", __name__, url_prefix="/api/v1",
                description="Groups of players (a regular table) and the next game at the table.")

NO_STORE = {"Cache-Control": "no-store"}  # answers that carry a token are kept by no cache


# What a client can do next with a group just made (OpenAPI links, as games.game_links)
GROUP_LINKS = {
    **{operation: {"operationId": operation, "parameters": {"group_id": "$response.body#/id"}, "description": text}
       for operation, text in [("getGroup", "The group."), ("renameGroup", "Rename it (the group's token)."),
                               ("renamePlayer", "Rename a player in its history (the group's token)."),
                               ("rotateGroupToken", "Replace its token (the group's token)."),
                               ("listGroupGames", "Its games."), ("getGroupStats", "Its stats."),
                               ("exportGroup", "Its games and stats as CSV.")]},
    "createGame": {"operationId": "createGame", "requestBody": {"group": "$response.body#/id"},
                   "description": "Create a game in the group (the group's token), the body's other members as "
                                  "createGame says."},
}


def with_group_token(view):
    for status, description, refusal in [(401, "No token", "problem no group token"),
                                         (403, "Wrong token (another group's, or a game's)",
                                          "problem wrong group token"),
                                         (404, "No such group", "problem no group")]:
        view = problem_response(blp, status, description, refusal)(view)
    return blp.doc(security=GROUP_TOKEN)(view)


def with_body(view):
    for status, description in [(400, "Malformed request"), (413, "Body too large"), (415, "Not JSON"),
                                (422, "Invalid input")]:
        view = problem_response(blp, status, description)(view)
    return view


@blp.route("/groups")
class Groups(MethodView):
    @limit_game_creation  # one budget per address with the creation of games
    @blp.doc(operationId="createGroup", responses={201: {"links": GROUP_LINKS}})
    @blp.arguments(GroupNameSchema, example=example("createGroup request"))
    @blp.response(201, CreatedGroupSchema, headers={"Location": {"schema": {"type": "string"}}},
                  example=example("createGroup 201"))
    @with_body
    @problem_response(blp, 429, "Too many games and groups created from this address")
    def post(self, data):
        """Create a group: its id and its token (shown once). Games created with the group's token belong
        to it."""
        group, token = groups.create_group(data["name"])
        body = dict(groups.describe(group), token=token)
        return body, 201, {"Location": url_for("groups.Group", group_id=group.id), **NO_STORE}


@blp.route("/groups/<group_id>", endpoint="Group")
class GroupResource(MethodView):
    @blp.doc(operationId="getGroup")
    @blp.response(200, GroupSchema, example=example("getGroup 200"))
    @problem_response(blp, 404, "No such group", "problem no group")
    def get(self, group_id):
        """The group: its name, how many games, its players (as renamed) and its renames."""
        return groups.describe(groups.get_group(group_id))

    @blp.doc(operationId="renameGroup")
    @blp.arguments(GroupNameSchema, example=example("renameGroup request"))
    @blp.response(200, GroupSchema, example=example("renameGroup 200"))
    @with_group_token
    @with_body
    def patch(self, data, group_id):
        """Rename the group."""
        return groups.describe(groups.rename_group(group_id, bearer_token(), data["name"]))


@blp.route("/groups/<group_id>/token")
class GroupToken(MethodView):
    @blp.doc(operationId="rotateGroupToken")
    @blp.response(200, RotatedTokenSchema, example=example("rotateGroupToken 200"))
    @with_group_token
    @with_body
    def post(self, group_id):
        """Replace the group's token: the new one is in the answer (once); the old one is refused (403)
        from now on, for the group and for its games."""
        return {"id": group_id, "token": groups.rotate_group_token(group_id, bearer_token())}, 200, NO_STORE


@blp.route("/groups/<group_id>/renames")
class Renames(MethodView):
    @blp.doc(operationId="renamePlayer")
    @blp.arguments(RenameSchema, example=example("renamePlayer request"))
    @blp.response(201, GroupSchema, example=example("renamePlayer 201"))
    @with_group_token
    @with_body
    @problem_response(blp, 409, "The name is another player's (merge needed or refused), or an earlier name of "
                                "another player", "problem name taken")
    def post(self, data, group_id):
        """Rename a player of the group in its whole history (its listings and stats; the games keep the
        names their moves use). A name that is another player's is a merge: say `"merge": true`."""
        groups.rename_player(group_id, bearer_token(), data["old"], data["new"], data["merge"])
        return groups.describe(groups.get_group(group_id)), 201


@blp.route("/groups/<group_id>/games")
class GroupGames(MethodView):
    @blp.doc(operationId="listGroupGames",
             responses={200: {"links": game_links("$response.body#/games/0/id", "getGame", "getMoveLog")}})
    @blp.arguments(GroupGamesQuerySchema, location="query")
    @blp.response(200, GroupGamesSchema, headers={"Link": {"schema": {"type": "string"}, "description":
                                                           'rel="next": the next page, when there is one'}},
                  example=example("listGroupGames 200"))
    @problem_response(blp, 404, "No such group", "problem no group")
    def get(self, query, group_id):
        """The group's games, newest first, with their players as renamed, status, winners and standings;
        filtered by `game`, `status`, `player` (any of their names), `updated_since`; a page at a time, the
        next in `next` and the `Link` header (games created meanwhile never repeat or hide one)."""
        group = groups.get_group(group_id)
        limit = query.pop("limit")
        page = groups.games_of(group.id, limit=limit + 1, **query)
        resolve = groups.resolver(group.id)
        following = None
        if len(page) > limit:
            page = page[:limit]
            wanted = {k: v.isoformat() if k == "updated_since" else v for k, v in query.items() if k != "after"}
            wanted.update(after=groups.encode_cursor(page[-1]), limit=limit)
            following = url_for("groups.GroupGames", group_id=group.id, _external=True) + "?" + urlencode(wanted)
        return ({"group": group.id, "games": [groups.summary(game, resolve) for game in page], "next": following},
                200, next_link(following))


@blp.route("/games/<game_id>/rematch")
class Rematch(MethodView):
    @blp.doc(operationId="rematch", security=GAME_TOKEN, responses={201: {"links": game_links()}})
    @blp.arguments(RematchSchema, required=False, example=example("rematch request"))
    @blp.response(201, "AnyCreatedGame", headers={"Location": {"schema": {"type": "string"}}},
                  example=example("rematch 201"))
    @problem_response(blp, 401, "No token")
    @problem_response(blp, 403, "Wrong token")
    @problem_response(blp, 404, "No such game")
    @problem_response(blp, 409, "The game has its rematch already (named in `rematch`), or is not over",
                      "problem rematch exists")
    @with_body
    def post(self, data, game_id):
        """The next game at the table: the same game, players and options, the first deal one seat on
        (G-2), in the same group. Its token is in the answer, once. Needs the game's token or its group's;
        made once (a second request is a 409 naming it)."""
        # no Idempotency-Key here: a retry is a 409 naming the rematch (its token is never stored to replay)
        made = groups.rematch(store.WriteRequest(game_id=game_id, token=bearer_token()), force=data.get("force", False))
        body = dict(store.game_view(made.game), token=made.token)
        return _game_response(body, 201, Location=url_for("games.Game", game_id=made.game.id), **NO_STORE)
