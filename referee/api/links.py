"""Table links, phones and the game's token: list, make and revoke the keys the pages use, and
rotate the token itself (``referee.links``). Every operation here needs the game's token."""
from __future__ import annotations

from flask.views import MethodView

from referee import links
from referee.api.blueprint import GAME_TOKEN, Blueprint
from referee.api.errors import problem_response
from referee.api.examples import example
from referee.api.games import bearer_token
from referee.api.schemas import CreatedLinkSchema, CreateLinkSchema, CredentialListSchema, RotatedTokenSchema

blp = Blueprint("links", __name__, url_prefix="/api/v1",
                description="Table links and phones (revocable keys for the pages) and the game's token.")

NO_STORE = {"Cache-Control": "no-store"}  # answers that carry a secret are kept by no cache


def with_token(view):
    """The game's token in the header, and its refusals."""
    for status, description in [(401, "No token"), (403, "Wrong token"), (404, "No such game")]:
        view = problem_response(blp, status, description)(view)
    return blp.doc(security=GAME_TOKEN)(view)


def with_body(view):
    for status, description in [(400, "Malformed request"), (413, "Body too large"), (415, "Not JSON")]:
        view = problem_response(blp, status, description)(view)
    return view


@blp.route("/games/<game_id>/links")
class Links(MethodView):
    @blp.doc(operationId="listLinks")
    @blp.response(200, CredentialListSchema, example=example("listLinks 200"))
    @with_token
    def get(self, game_id):
        """Every table link and phone of the game, with what each joined through and whether it is
        revoked; never a secret."""
        return {"links": [links.describe(c) for c in links.list_all(game_id, bearer_token())]}

    @blp.doc(operationId="createLink", responses={201: {"links": {"revokeLink": {
        "operationId": "revokeLink",
        "parameters": {"game_id": "$request.path.game_id", "link_id": "$response.body#/id"},
        "description": "Revoke the link (and the phones that joined through it)."}}}})
    @blp.arguments(CreateLinkSchema, required=False, example=example("createLink request"))
    @blp.response(201, CreatedLinkSchema, example=example("createLink 201"))
    @with_token
    @with_body
    @problem_response(blp, 409, "Too many links and phones in use")
    @problem_response(blp, 422, "Invalid label")
    def post(self, data, game_id):
        """Make a table link: its code (shown once) lets a phone join and enter moves with a key of its
        own, until the link or the phone is revoked."""
        issued = links.create_link(game_id, bearer_token(), data.get("label"))
        body = dict(links.describe(issued.credential), code=issued.code, url=links.join_url(game_id, issued.code))
        return body, 201, NO_STORE


@blp.route("/games/<game_id>/links/<link_id>")
class Link(MethodView):
    @blp.doc(operationId="revokeLink")
    @blp.response(204)
    @with_token
    @problem_response(blp, 404, "No such game, link or phone")
    def delete(self, game_id, link_id):
        """Revoke a link (and the phones that joined through it) or one phone (and the links it made stop
        taking new phones). Revoking again changes nothing."""
        links.revoke(game_id, bearer_token(), link_id)


@blp.route("/games/<game_id>/token")
class Token(MethodView):
    @blp.doc(operationId="rotateToken")
    @blp.response(200, RotatedTokenSchema, example=example("rotateToken 200"))
    @with_token
    @with_body
    def post(self, game_id):
        """Replace the game's token: the new one is in the answer (once), the old one is refused (403)
        from now on. Links and phones are not touched."""
        return {"id": game_id, "token": links.rotate_token(game_id, bearer_token())}, 200, NO_STORE
