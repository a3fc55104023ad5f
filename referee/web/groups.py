"""The table's memory on the phone (issue 14): groups, their games and stats, the rematch, and the
table's corrections.

- A group is made from the home page; the phone keeps a key of its own to the group (``<id>.<secret>``,
  revocable, ``groups.start_group``) in its signed session cookie beside its games' keys
  (``views.remember_group``), never the group's token, and never in a page or a URL. A phone that holds
  the group's token (a group made through the API) opens the group with it on the group's page and
  keeps a key of its own the same way; a cookie from before group keys held the token: it is exchanged
  for a key on the phone's next visit (``views.group_key``). A phone with a key starts games in the
  group (the start form offers its groups), renames the group and its players, and lists and revokes
  the group's phone keys (its own too: "Forget"). The key is never the API's Bearer. Anyone with the
  group's link reads its page: its games (filtered, a page at a time), its stats per game type
  (``referee.stats``), a chart of wins over time and the CSV export.
- A finished game offers the next game at the table: ``groups.rematch`` makes it once; a phone at
  the table that presses after another one did joins that same game (``links.join_rematch``).
- A round entered whole (T-4) is corrected on its own page, filled with the round's
  result (``correct_round``, T-1); a score is adjusted from the game page (``adjust``, T-2).

Every write goes through the store's functions, as the API's do; the engines decide what is legal.
"""
from __future__ import annotations

import secrets

from flask import flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext
from marshmallow import ValidationError

from referee import groups, links, records, stats, store
from referee.api.limits import limit_game_creation
from referee.api.schemas import GroupNameSchema
from referee.errors import InvalidInput
from referee.i18n import say
from referee.rules.base import RuleError
from referee.web import chart
from referee.web.games import FormError, ui_for
from referee.web.views import (
    _engine, _error_page, _groups, _not_at_the_table, _remember, bp, device_label, drop_group, form_write,
    group_key, home, remember_group, revoke_own_key, standing, table_key, usable_engines,
)

PAGE = 20  # games per page of a group's list
STATUSES = {"in_progress": lazy_gettext("in progress"), "finished": lazy_gettext("finished")}


# ---------------------------------------------------------------- make a group

@bp.post("/groups")
@limit_game_creation  # one budget per address with the creation of games, as in the API
def create_group():
    name = request.form.get("name", "")
    try:
        clean = GroupNameSchema().load({"name": name})["name"]
    except ValidationError as exc:
        return home(422, group_error=_field_error(exc), group_name=name[:80])
    group, key = groups.start_group(clean, f"Made the group ({device_label(request.user_agent.string)})")
    remember_group(group.id, key)  # the phone's own key: the group's token is never seen
    flash(_("Group made. Start its games from here: they count in its stats."), "info")
    return redirect(url_for(".group_page", group_id=group.id))


def _field_error(exc: ValidationError) -> str:
    """The first message of a schema's refusal, in the page's language."""
    messages = exc.messages.get("name") if isinstance(exc.messages, dict) else exc.messages
    first = messages[0] if isinstance(messages, list) and messages else messages
    return str(say(first))


# ---------------------------------------------------------------- the group's page

@bp.get("/groups/<group_id>")
def group_page(group_id):
    return _group_page(groups.get_group(group_id))


def _group_page(group, status: int = 200, refusal: dict | None = None, values: dict | None = None):
    game_type = request.args.get("game", "")
    state = request.args.get("status", "")
    after = request.args.get("after", "")
    if game_type and game_type not in usable_engines():
        return _error_page(400, _("No such game"), _("The referee keeps no game by that name: choose one from the "
                                                     "list."))
    if state and state not in STATUSES:
        return _error_page(400, _("No such status"), _("A game is in progress or finished."))
    try:
        found = groups.games_of(group.id, game=game_type or None, status=state or None, after=after[:200] or None,
                                limit=PAGE + 1)
    except InvalidInput:
        return _error_page(400, _("Not a page of this list"), _("That link does not name a page of the group's "
                                                                "games: start again from the first page."))
    resolve = groups.resolver(group.id)
    more = len(found) > PAGE
    listing = [standing(game, resolve) for game in found[:PAGE]]
    filters = {k: v for k, v in (("game", game_type), ("status", state)) if v}
    older = url_for(".group_page", group_id=group.id, after=groups.encode_cursor(found[PAGE - 1]),
                    **filters) if more else None
    summaries = records.group_summaries(group.id, game_type or None)
    figures = stats.group_stats(summaries)
    key = group_key(group)
    phones = []
    if key is not None:
        mine = store.split_credential(key)[0]
        phones = [dict(links.describe(c), mine=c.id == mine) for c in groups.phones_of(group)]
    return render_template(
        "group.html", group=group, holder=key is not None, games=listing, older=older, after=after,
        filters=filters, game_type=game_type, state=state, statuses=STATUSES, figures=figures,
        wins=wins_chart(summaries), players=groups.players_of(group.id),
        refusal=refusal, values=values or {}, phones=phones, revoked=g.get("group_key_revoked", False),
        export=url_for("records.GroupExport", group_id=group.id, **({"game": game_type} if game_type else {})),
    ), status


def wins_chart(summaries: list[dict]):
    """Each player's wins after each finished game of the group, oldest first (a shared win counts for
    each winner, as in the stats): the score chart's SVG over games instead of rounds."""
    finished = [s for s in summaries if s["status"] == "finished"]
    players = sorted({p for s in finished for p in s["players"]}, key=str.casefold)
    totals = dict.fromkeys(players, 0)
    points = []
    for number, s in enumerate(finished, start=1):
        won = {p: int(p in s["winners"]) for p in players}
        totals = {p: totals[p] + won[p] for p in players}
        points.append({"round": number, "scores": won, "totals": dict(totals)})
    return chart.score_chart({"players": players, "rounds": points}, chart_id="wins-title",
                             title=lambda text: _("Wins after each finished game: %(totals)s", totals=text))


def _group_writer(group):
    """This phone's key to the group, or the page that says why it cannot write."""
    key = group_key(group)
    if key is None:
        title = (_("This phone's key was revoked") if g.get("group_key_revoked") else
                 _("This phone does not hold the group's key"))
        return None, _error_page(403, title, _("Only the phone that made the group renames it and its players; "
                                               "anyone with the link reads its page."))
    return key, None


@bp.post("/groups/<group_id>/name")
def rename_group(group_id):
    group = groups.get_group(group_id)
    key, refused = _group_writer(group)
    if refused:
        return refused
    name = request.form.get("name", "")
    try:
        clean = GroupNameSchema().load({"name": name})["name"]
    except ValidationError as exc:
        return _group_page(group, 422, {"detail": _field_error(exc), "rule": None, "form": "name"},
                           {"name": name[:80]})
    groups.rename_group(group.id, None, clean, phone=key)
    flash(_("The group is now called %(name)s.", name=clean), "info")
    return redirect(url_for(".group_page", group_id=group.id))


@bp.post("/groups/<group_id>/players")
def rename_player(group_id):
    group = groups.get_group(group_id)
    key, refused = _group_writer(group)
    if refused:
        return refused
    old, new = request.form.get("old", ""), request.form.get("new", "")
    merge = request.form.get("merge") in ("true", "on", "1")
    try:
        groups.rename_player(group.id, None, old, new, merge, phone=key)
    except (RuleError, store.StoreError) as exc:
        if isinstance(exc, store.StoreError) and exc.status not in (409, 422):
            raise
        status = exc.status
        return _group_page(group, status, {"detail": str(say(exc.detail)), "rule": getattr(exc, "rule", None),
                                           "form": "player"},
                           {"old": old[:40], "new": new[:40], "merge": merge})
    flash(_("%(old)s is now %(new)s in all of the group's games.", old=old.strip(), new=new.strip()), "info")
    return redirect(url_for(".group_page", group_id=group.id))


# ---------------------------------------------------------------- this phone's key to the group

@bp.post("/groups/<group_id>/key")
def open_group(group_id):
    """A phone that holds the group's token (given once to whoever made the group through the API) gets
    a key of its own to the group; the token itself is kept nowhere, and never shown back."""
    group = groups.get_group(group_id)
    if group_key(group) is not None:
        return redirect(url_for(".group_page", group_id=group.id))
    token = request.form.get("token", "").strip()[:200]
    try:
        key = groups.phone_from_token(group.id, token or None,
                                      f"Opened with the group's token ({device_label(request.user_agent.string)})")
    except store.StoreError as exc:
        if exc.status not in (401, 403):
            raise
        return _group_page(group, 403, {"detail": str(say(exc.detail)), "rule": None, "form": "token"})
    remember_group(group.id, key)
    flash(_("This phone now holds a key of its own to the group."), "info")
    return redirect(url_for(".group_page", group_id=group.id))


@bp.post("/groups/<group_id>/revoke/<credential_id>")
def revoke_group_phone(group_id, credential_id):
    """A phone holding a key to the group revokes a phone's key (perhaps its own)."""
    group = groups.get_group(group_id)
    key, refused = _group_writer(group)
    if refused:
        return refused
    revoked = groups.revoke_phone(group.id, key, credential_id)
    if groups.phone_of(group, key) is None:  # it revoked itself
        drop_group(group.id)
        flash(_("This phone no longer holds the group's key."), "info")
        return redirect(url_for(".group_page", group_id=group.id))
    names = ", ".join(c.label or c.id for c in revoked)
    flash(_("Revoked: %(names)s.", names=names) if names else _("That was already revoked."), "info")
    return redirect(url_for(".group_page", group_id=group.id, _anchor="group-phones"))


@bp.post("/groups/<group_id>/forget")
def forget_group(group_id):
    """This phone gives up its key to the group: revoked on the server (a copy of the cookie opens
    nothing either), and out of the cookie."""
    revoke_own_key(_groups().get(group_id), lambda key: groups.forget(group_id, key))
    drop_group(group_id)
    flash(_("This phone no longer holds the group's key."), "info")
    return redirect(url_for(".group_page", group_id=group_id))


# ---------------------------------------------------------------- the next game at the table

@bp.post("/g/<game_id>/rematch")
def rematch(game_id):
    """The next game at the table: made once (``groups.rematch``); a phone at the table that presses
    after another one did lands on that same game, with a key of its own."""
    game = store.get_game(game_id)
    key = table_key(game)
    if key is None:
        return _not_at_the_table(_("Only a phone at the table starts the next game; this phone can follow "
                                   "it from the game's page."))
    device = device_label(request.user_agent.string)
    if game.rematch_id is not None:
        already = store.get_game(game.rematch_id)
        if table_key(already):  # pressed twice: it is there already
            return redirect(url_for(".game_page", game_id=already.id))
    try:
        made = groups.rematch(store.WriteRequest(game_id=game.id, token=None, phone=key))
    except store.StoreError as exc:
        if exc.kind == "game-in-progress":
            flash({"detail": _("This game is not over: finish it before starting the next one."), "rule": None},
                  "refused")
            return redirect(url_for(".game_page", game_id=game.id))
        if exc.kind != "rematch-exists":
            raise
        joined = links.join_rematch(game.id, key, f"Joined the next game ({device})")
        if joined is None:  # cannot be: the refusal named it
            raise
        new_id, new_key = joined
    else:
        new_id = made.game.id
        new_key = links.from_token(new_id, made.token, f"Started the next game ({device})")
    _remember(new_id, new_key)
    flash(_("The next game: same players, the deal one seat on."), "info")
    return redirect(url_for(".game_page", game_id=new_id))


# ---------------------------------------------------------------- correct a round (T-1)

@bp.app_template_global("correctable")
def correctable(view: dict) -> list:
    """The finished rounds a correction may replace now, as ``allowed`` lists them (T-1)."""
    entry = (view.get("allowed") or {}).get("correct_round")
    if entry is None:
        return []
    rounds = (entry.get("choices") or {}).get("round")
    return list(rounds) if isinstance(rounds, list) else [r.get("round") for r in view.get("rounds") or []]


@bp.route("/g/<game_id>/correct/<int:number>", methods=["GET", "POST"])
def correct(game_id, number):
    game = store.get_game(game_id)
    key = table_key(game)
    if key is None:
        return _not_at_the_table(_("Only the table corrects a round."))
    ui = ui_for(game.game)
    view = store.game_view(game)
    if "correct_round" not in _engine(game.game).moves:
        return _error_page(404, _("Rounds are not corrected in this game"),
                           _("This game is scored move by move: undo a move, or adjust a score from the game's "
                             "page."), rule="T-1")
    refusal, status, values = None, 200, None
    if request.method == "POST" and number in correctable(view):
        try:
            payload = ui.build("correct_round", request.form, view)
        except FormError as exc:
            refusal, status = {"detail": str(exc), "rule": None}, 400
        else:
            try:
                result = store.apply_move(form_write(game, key, payload), payload)
            except RuleError as exc:
                refusal, status = {"detail": say(exc.detail), "rule": exc.rule}, exc.status
            except store.StoreError as exc:
                if exc.status != 412:
                    raise
                refusal, status = {"detail": _("Another phone entered a move first: check the round and "
                                               "correct it again."), "rule": None}, 412
            else:
                flash(ui.announce(result.body, payload), "announce")
                return redirect(url_for(".game_page", game_id=game.id, _anchor="scores"))
        values = request.form.to_dict()
        game = store.get_game(game_id)  # as it is now (a refusal changed nothing; another phone may have)
        view = store.game_view(game)
    entry = next((r for r in view.get("rounds") or [] if r.get("round") == number), None)
    if entry is None or number not in correctable(view):
        return _error_page(404, _("No such round to correct"), _("Only a finished round of this game is corrected: "
                                                                 "choose one on its score sheet."), rule="T-1")
    if values is None:
        values = {"reason": "", **ui.correction_values(view, entry)}
    return render_template("correct.html", game=game, engine=_engine(game.game), ui=ui, view=view, entry=entry,
                           number=number, values=values, refusal=refusal, pad=ui.card_pad(view),
                           idempotency_key=secrets.token_urlsafe(12)), status
