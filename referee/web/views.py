"""The scorekeeper pages: start, share, follow, enter moves, undo, log, history.

Every write goes through ``referee.store`` exactly as the API's do; the engines decide what is
legal and the pages only show their verdicts (detail and ruling id).
"""
from __future__ import annotations

import re
import secrets

import segno
from flask import (
    Blueprint, abort, current_app, flash, g, get_flashed_messages, make_response, redirect,
    render_template, request, session, url_for,
)
from flask_babel import gettext as _
from flask_wtf.csrf import generate_csrf, validate_csrf
from markupsafe import Markup
from wtforms import ValidationError

from sqlalchemy.exc import DBAPIError

from referee import groups, links, stats, store
from referee.models import db
from referee.api.errors import problem
from referee.i18n import say
from referee.api.limits import limit_game_creation
from referee.rules import ENGINES
from referee.rules.base import RuleError
from referee.web import chart, check, rules_pages
from referee.web import live as page_stream
from referee.web.games import FormError, allowed_players, allowed_values, pretty, ui_for

bp = Blueprint("web", __name__, template_folder="templates", static_folder="static",
               static_url_path="/static/web")
bp.add_app_template_global(rules_pages.ruling, "ruling")  # a ruling badge: a link to its text

MAX_TABLES = 30  # phone keys kept in one cookie (the most recent games)
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")


# ---------------------------------------------------------------- plumbing

@bp.after_request
def _security_headers(response):
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    if response.mimetype == "text/html":
        response.headers.setdefault("Cache-Control", "no-store")
    return response


@bp.before_request
def _csrf():
    """Flask-WTF's CSRF check, for this blueprint's form posts only (never the JSON API)."""
    if request.method != "POST" or not current_app.config.get("WTF_CSRF_ENABLED", True):
        return None
    try:
        validate_csrf(request.form.get("csrf_token"))
    except ValidationError:
        return _error_page(400, _("The form has expired"), _("The form's security token is missing or out of date. "
                                                              "Go back, reload the page and try again."))
    return None


def usable_engines() -> dict:
    """Every registered engine: each declares what its pages need (the engine contract)."""
    return dict(ENGINES)


@bp.app_context_processor
def _globals():
    return {"csrf_token": generate_csrf, "engines": usable_engines(), "allowed_players": allowed_players,
            "allowed_values": allowed_values}


_TAG = re.compile(r"[0-9]{1,18}(-[0-9]{1,18})?")


def _form_tag(form) -> str | None:
    """The If-Match of a form: the ETag of the table the phone showed (ASCII digits only)."""
    tag = form.get("version", "").strip()
    return f'"{tag}"' if _TAG.fullmatch(tag) else None


def _form_key(raw: str) -> str | None:
    """The form's idempotency key: printable ASCII only (a NUL never reaches the database)."""
    key = "".join(ch for ch in raw.strip()[:200] if ch.isascii() and ch.isprintable())
    return key or None


@bp.app_template_filter("card")
def _card(value):
    return pretty(value)


@bp.errorhandler(store.StoreError)
def _store_error(error: store.StoreError):
    return _error_page(error.status, error.title, error.detail, kind=error.kind)


@bp.errorhandler(DBAPIError)
def _database_error(error):
    db.session.rollback()
    response = _error_page(503, _("The database is not answering"), _("Nothing was lost that the page showed as "
                                                                      "done. Wait a moment and reload."))
    response.headers["Retry-After"] = "5"
    return response


@bp.errorhandler(429)
def _too_many(error):
    response = _error_page(429, _("Too many games"), _("Too many games were started from this address; wait a "
                                                       "minute and try again."))
    response.headers.update({k: v for k, v in error.get_headers() if k == "Retry-After"})
    return response


@bp.errorhandler(RuleError)
def _rule_error(error: RuleError):
    return _error_page(422, error.title, error.detail, error.rule)


def _not_at_the_table(detail: str):
    if g.get("key_revoked"):
        return _error_page(403, _("This phone's key was revoked"), _("It can follow the game, not enter moves. "
                                                                     "Ask the table for a fresh table link."))
    return _error_page(403, _("This phone follows the game"), detail)


def _error_page(status: int, title: str, detail: str, rule: str | None = None, kind: str | None = None):
    if _wants_json():
        return problem(status, title, detail, kind or f"page-{status}", rule=rule)
    return make_response(render_template("error.html", title=title, detail=say(detail), rule=rule), status)


def _wants_json() -> bool:
    """The outbox of moves kept offline (static/offline.js) posts the same forms and asks for the verdict
    as JSON (``Accept: application/json``); a browser's form post gets pages, as always."""
    return request.accept_mimetypes.best_match(["text/html", "application/json"]) == "application/json"


def _tables() -> dict:
    """``{game id: this phone's key}`` from the signed cookie. A key is ``"<id>.<secret>"``, a
    credential of its own that the game's token or another phone can revoke; never the game's token."""
    tables = session.get("tables")
    return tables if isinstance(tables, dict) else {}


def _remember(game_id: str, key: str) -> None:
    tables = {k: v for k, v in _tables().items() if k != game_id}
    tables[game_id] = key
    session["tables"] = dict(list(tables.items())[-MAX_TABLES:])
    session.permanent = True


def _drop(game_id: str) -> None:
    tables = _tables()
    if game_id in tables:
        session["tables"] = {k: v for k, v in tables.items() if k != game_id}


def _groups() -> dict:
    """``{group id: this phone's key to the group}`` from the signed cookie: the phone that made a group,
    or opened it with the group's token, keeps a key of its own there as it keeps its games' keys
    (``"<id>.<secret>"``, revocable, ``groups.find_phone``); never the group's token."""
    held = session.get("groups")
    return held if isinstance(held, dict) else {}


def remember_group(group_id: str, key: str) -> None:
    held = {k: v for k, v in _groups().items() if k != group_id}
    held[group_id] = key
    session["groups"] = dict(list(held.items())[-MAX_TABLES:])
    session.permanent = True


def drop_group(group_id: str) -> None:
    held = _groups()
    if group_id in held:
        session["groups"] = {k: v for k, v in held.items() if k != group_id}


def group_key(group) -> str | None:
    """This phone's key to the group when it still opens it (valid, not revoked), else None. A key that
    no longer opens the group leaves the cookie, and the page says why (``g.group_key_revoked``)."""
    held = _groups()
    if group.id not in held:
        return None
    key = held[group.id]
    if isinstance(key, str) and store.split_credential(key) is None:
        return _group_from_token(group, key)
    if not isinstance(key, str) or groups.phone_of(group, key) is None:
        drop_group(group.id)
        g.group_key_revoked = True
        return None
    return key


def _group_from_token(group, token: str) -> str | None:
    """Before group keys the cookie held the group's token: it is exchanged, once, for a phone key of
    this phone's own, and leaves the cookie (in its place: the list of groups keeps its order). A token
    that no longer opens the group (rotated through the API) is dropped."""
    label = f"{device_label(request.user_agent.string)} (before group keys)"
    try:
        key = groups.phone_from_token(group.id, token, label)
    except store.StoreError as exc:
        if exc.status in (401, 403):
            drop_group(group.id)
        return None  # else (too many phones in use) the token stays for a later visit
    session["groups"] = {k: key if k == group.id else v for k, v in _groups().items()}
    return key


def held_groups() -> list:
    """The groups whose key this phone holds, the latest first."""
    found = []
    for group_id in reversed(list(_groups())):
        try:
            group = groups.get_group(group_id)
        except store.StoreError:
            continue
        if group_key(group):
            found.append(group)
    return found


def standing(game, resolve=lambda name: name) -> dict:
    """A game's line in a list (``groups.summary``) with ``leaders``: who is ahead while it is in
    progress, by the game's own direction (``stats.lower_is_better``); nobody while all are level."""
    line = groups.summary(game, resolve)
    totals = line["standings"]
    line["leaders"] = []
    if line["status"] != "finished" and len(set(totals.values())) > 1:
        best = (min if stats.lower_is_better(game.game) else max)(totals.values())
        line["leaders"] = [p for p, total in totals.items() if total == best]
    return line


def form_write(game, key: str, payload: dict) -> store.WriteRequest:
    """A move posted from a page's form: by this phone's key, on the version the page showed, with
    the form's own idempotency key (a form posted twice applies once)."""
    return store.WriteRequest(game_id=game.id, token=None, phone=key, if_match=_form_tag(request.form),
                              idempotency_key=_form_key(request.form.get("idempotency_key", "")),
                              fingerprint=store.request_fingerprint([request.path, payload]))


def table_key(game) -> str | None:
    """This phone's key to the game when it still opens it (valid, not revoked), else None. A key that
    no longer opens the game leaves the cookie, and the page says why (``g.key_revoked``)."""
    key = _tables().get(game.id)
    if not key:
        return None
    if isinstance(key, str) and store.split_credential(key) is None:
        return _from_token(game, key)
    if not isinstance(key, str) or links.phone_of(game, key) is None:
        _drop(game.id)
        g.key_revoked = True
        return None
    return key


def _from_token(game, token: str) -> str | None:
    """Before table links the cookie held the game's token: it is exchanged, once, for a phone key,
    and leaves the cookie."""
    try:
        key = links.from_token(game.id, token, f"{device_label(request.user_agent.string)} (before table links)")
    except store.StoreError:
        _drop(game.id)
        g.key_revoked = True
        return None
    _remember(game.id, key)
    return key


_DEVICES = [("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "ChromeOS"),
            ("Windows", "Windows"), ("Macintosh", "Mac"), ("Linux", "Linux")]
_BROWSERS = [("Edg", "Edge"), ("OPR/", "Opera"), ("SamsungBrowser", "Samsung Internet"), ("Firefox/", "Firefox"),
             ("FxiOS", "Firefox"), ("CriOS", "Chrome"), ("Chrome/", "Chrome"), ("Safari/", "Safari")]


def device_label(user_agent: str | None) -> str:
    """A phone's label in the lists: its browser and system, from a fixed vocabulary (never the raw
    User-Agent)."""
    agent = user_agent or ""
    device = next((name for mark, name in _DEVICES if mark in agent), None)
    browser = next((name for mark, name in _BROWSERS if mark in agent), None)
    if device and browser:
        return f"{browser} on {device}"
    return device or browser or "A browser"


def _code_from(raw: str) -> str | None:
    """The code from the join form: the code itself, or the whole table link pasted."""
    text = raw.strip()[:500]
    if "#" in text:
        text = text.rsplit("#", 1)[1].strip()
    return text if store.split_credential(text) else None


def _engine(name: str):
    engine = usable_engines().get(name)
    if engine is None:
        abort(404)
    return engine


def _qr_svg(url: str) -> Markup:
    qr = segno.make(url, error="m")
    svg = qr.svg_inline(scale=4, dark="#111", light="#fff", omitsize=True)
    return Markup(svg)


_NOT_TYPED = frozenset({"csrf_token", "version", "idempotency_key"})
MOST_KEPT = 2000  # characters of a refused form kept in the session cookie (which holds about 4 kB)


def _typed(form) -> dict | None:
    """What the table typed in a refused form, to fill it again (a 1 a.m. table never types a
    round twice); None when it is too long to keep in the cookie."""
    kept = {key: form.get(key) for key in form if key not in _NOT_TYPED}
    return kept if sum(len(k) + len(v) for k, v in kept.items()) <= MOST_KEPT else None


def fault_fields(legal, players: list[str]) -> set[str]:
    """The form fields a refusal's ``legal`` points at, by the pages' naming: a field of the move
    (``went_out``), or per player ``<field>-<seat>`` (``lost-1``, ``points-2``) where ``legal``
    maps player names to what their entry may hold."""
    found: set[str] = set()
    for key, value in (legal or {}).items() if isinstance(legal, dict) else ():
        if isinstance(value, dict) and value and set(value) <= set(players):
            for name, inner in value.items():
                seat = players.index(name)
                fields = [k for k in inner if k not in ("minimum", "maximum")] if isinstance(inner, dict) else []
                found.update(f"{field}-{seat}" for field in fields or [key])
        else:
            found.add(key)
    return found


def _refill() -> dict:
    """The fields of the form refused just before this page, ``type`` included; empty otherwise."""
    for category, message in get_flashed_messages(with_categories=True):
        if category == "refused" and isinstance(message, dict) and message.get("form"):
            return message["form"]
    return {}


def _page_context(game, view: dict, holder: bool, live: bool = True) -> dict:
    ui = ui_for(game.game)
    engine = _engine(game.game)
    return {
        "refill": _refill(),
        "game": game,
        "view": view,
        "engine": engine,
        "ui": ui,
        "holder": holder,
        "live": live,
        "rounds": view.get("rounds") or [],
        "chart": chart.score_chart(view),
        "forms": ui.forms(view) if holder and view.get("status") != "finished" else None,
        "idempotency_key": secrets.token_urlsafe(12),
        "facts": ui.facts(view),
    }


# ---------------------------------------------------------------- start a game

@bp.get("/")
def index():
    return home()


def home(status: int = 200, **context):
    """The home page: start a game, make a group, this phone's groups and recent games."""
    mine = []
    for game_id in reversed(list(_tables())):
        try:
            line = standing(store.get_game(game_id))
        except store.StoreError:
            continue
        mine.append(line)
        if len(mine) == 10:
            break
    return render_template("index.html", mine=mine, held=held_groups(), **context), status


@bp.route("/new/<name>", methods=["GET", "POST"])
@limit_game_creation
def new_game(name):
    engine = _engine(name)
    ui = ui_for(name)
    values = {"players": "", **{k: "" for k in engine.options}, "group": request.args.get("group", "")}
    error = None
    held = held_groups()
    if request.method == "POST":
        values.update({k: request.form.get(k, "") for k in values})
        players = [line.strip() for line in values["players"].replace(",", "\n").splitlines() if line.strip()]
        options = {}
        for key in engine.options:
            raw = values[key].strip()
            if raw:
                options[key] = ui.option_value(engine.options[key], raw)
        label = f"Started the game ({device_label(request.user_agent.string)})"
        group_id = values["group"].strip()
        if group_id and group_id not in {group.id for group in held}:
            return _error_page(403, _("This phone does not hold that group's key"),
                               _("Only the phone that made a group starts games in it. Start the game without "
                                 "a group, or from that phone."))
        try:
            if group_id:  # in the group, with its key; this phone then holds a key of its own to the game
                game, token = groups.create_game(group_id, None, name, players, options, phone=_groups()[group_id])
                key = links.from_token(game.id, token, label)
            else:
                game, key = links.start_game(name, players, options, label)
        except RuleError as exc:
            error = exc
        else:
            _remember(game.id, key)
            flash(_("Game started. Share it from Share, at the top."), "info")
            return redirect(url_for(".game_page", game_id=game.id))  # the table plays first; Share is one tap
    status = 422 if error else 200
    return render_template("new.html", engine=engine, ui=ui, values=values, error=error, held=held), status


# ---------------------------------------------------------------- share, join, revoke

@bp.get("/g/<game_id>/share")
def share(game_id):
    game = store.get_game(game_id)
    key = table_key(game)
    follow_url = url_for(".game_page", game_id=game.id, _external=True)
    table_url = link_error = None
    entries = []
    if key:
        try:
            table_url = links.join_url(game.id, links.share_link(game, key))
        except store.StoreError as exc:
            if exc.status != 409:
                raise
            link_error = say(exc.detail)
        mine = store.split_credential(key)[0]
        found = links.credentials_of(game)
        labels = {c.id: c.label or c.id for c in found}
        entries = [dict(links.describe(c), mine=c.id == mine, parent_label=labels.get(c.parent_id)) for c in found]
    return render_template("share.html", game=game, engine=_engine(game.game), follow_url=follow_url,
                           follow_qr=_qr_svg(follow_url), table_url=table_url,
                           table_qr=_qr_svg(table_url) if table_url else None, holder=bool(key),
                           link_error=link_error, entries=entries)


@bp.route("/g/<game_id>/join", methods=["GET", "POST"])
def join(game_id):
    """The table link, ``/g/<id>/join#<code>``: the code stays in the fragment, which never reaches the
    server; the page's script (static/join.js) posts it here once and takes it out of the address
    bar. With scripts off, the link can be pasted into the form."""
    game = store.get_game(game_id)
    holder = table_key(game) is not None
    if request.method == "GET" or holder:
        if holder and request.method == "POST":
            flash(_("This phone already enters moves for this game."), "info")
            return redirect(url_for(".game_page", game_id=game.id))
        return render_template("join.html", game=game, engine=_engine(game.game), holder=holder)
    code = _code_from(request.form.get("code", ""))
    if code is None:
        return render_template("join.html", game=game, engine=_engine(game.game), holder=False,
                               error=_("Paste the whole table link, or the code after its #.")), 422
    try:
        key = links.redeem(game.id, code, device_label(request.user_agent.string))
    except store.StoreError as exc:
        if exc.status != 403:
            raise
        return _error_page(403, _("This table link does not open this game"),
                           _("It may have been revoked. Ask the table for a fresh link; you can still follow "
                             "the game."))
    _remember(game.id, key)
    flash(_("This phone can now enter moves for the table."), "info")
    return redirect(url_for(".game_page", game_id=game.id))


@bp.get("/g/<game_id>/table/<path:token>")
def old_table_link(game_id, token):
    """Table links once carried the game's token in their path (and so into histories and logs):
    nothing is taken from them now; the phone follows the game and is told how to join."""
    flash(_("This kind of table link is no longer used: ask the table for a fresh one from its Share page. "
            "Meanwhile this phone follows the game."), "info")
    return redirect(url_for(".game_page", game_id=game_id))


@bp.post("/g/<game_id>/revoke/<credential_id>")
def revoke(game_id, credential_id):
    """A phone at the table revokes a table link (with the phones that joined through it) or a phone."""
    game = store.get_game(game_id)
    key = table_key(game)
    if key is None:
        return _error_page(403, _("This phone follows the game"), _("Only a phone at the table revokes links "
                                                                    "and phones."))
    revoked = links.revoke_by_phone(game.id, key, credential_id)
    if links.phone_of(game, key) is None:  # it revoked itself, or the link it joined through
        _drop(game.id)
        flash(_("This phone now only follows the game."), "info")
        return redirect(url_for(".game_page", game_id=game.id))
    names = ", ".join(c.label or c.id for c in revoked)
    flash(_("Revoked: %(names)s.", names=names) if names else _("That was already revoked."), "info")
    return redirect(url_for(".share", game_id=game.id))


def revoke_own_key(key, revoke) -> None:
    """This phone's key from its cookie (``key``, a game's or a group's) revoked on the server with
    ``revoke(key)``, when it is one: no such game or group leaves nothing to revoke."""
    if isinstance(key, str) and store.split_credential(key):
        try:
            revoke(key)
        except store.StoreError:
            pass


@bp.post("/g/<game_id>/forget")
def forget(game_id):
    """This phone stops entering moves: its key is revoked on the server (a copy of the cookie opens
    nothing either) and leaves the cookie."""
    revoke_own_key(_tables().get(game_id), lambda key: links.forget(game_id, key))
    _drop(game_id)
    flash(_("This phone now only follows the game."), "info")
    return redirect(url_for(".game_page", game_id=game_id))


# ---------------------------------------------------------------- the game page

@bp.get("/g/<game_id>")
def game_page(game_id):
    game = store.get_game(game_id)
    view = store.game_view(game)
    holder = table_key(game) is not None
    announce = [m for c, m in get_flashed_messages(with_categories=True) if c == "announce"]
    return render_template("game.html", announce=" ".join(announce), revoked=g.get("key_revoked", False),
                           **_page_context(game, view, holder))


@bp.get("/g/<game_id>/fragment")
def fragment(game_id):
    """The parts of the game page that change with each move, for the page's poller (when its live
    stream fails), rendered for this phone."""
    game = store.get_game(game_id)
    view = store.game_view(game)
    holder = table_key(game) is not None
    return render_template("fragment.html", **_page_context(game, view, holder))


def shared_parts(game, holder: bool) -> dict[str, str]:
    """The parts of the game page that change with each move (``page_stream.PARTS``), as every phone
    of a kind (at the table or following) sees them in this request's language: shared by them all,
    so with slots where a phone's own CSRF token and idempotency key go (app.js fills them in)."""
    context = _page_context(game, store.game_view(game), holder)
    context.update(refill={}, csrf_token=lambda: page_stream.CSRF_SLOT, idempotency_key=page_stream.KEY_SLOT)
    return {part: render_template(f"_{part}.html", **context) for part in page_stream.PARTS}


@bp.get("/g/<game_id>/live")
def live_events(game_id):
    """The game page's event stream: each move with the page's parts as they are now (``web.live``)."""
    game = store.get_game(game_id)
    return page_stream.stream(game.id, table_key(game) is not None, shared_parts)


@bp.post("/g/<game_id>/move")
def move(game_id):
    game = store.get_game(game_id)
    key = table_key(game)
    if key is None:
        return _not_at_the_table(_("Only the table enters moves: open the table link shared from the game's "
                                   "share page on the phone that keeps the score."))
    ui = ui_for(game.game)
    view = store.game_view(game)
    back = redirect(url_for(".game_page", game_id=game.id, _anchor="moves"))
    as_json = _wants_json()  # a move the outbox kept offline: its verdict, which the outbox shows
    kind = request.form.get("type", "")
    try:
        payload = ui.build(kind, request.form, view)
    except FormError as exc:
        if as_json:
            return _error_page(400, _("The move is incomplete"), str(exc), kind="incomplete-move")
        flash({"detail": str(exc), "rule": None, "form": _typed(request.form)}, "refused")
        return back
    try:
        result = store.apply_move(form_write(game, key, payload), payload)
    except RuleError as exc:
        if as_json:
            return problem(exc.status, exc.title, exc.detail, exc.kind, rule=exc.rule, legal=exc.legal,
                           move=say(ui.describe(payload)),
                           badge=str(rules_pages.ruling(exc.rule, game.game, _("Ruling") + " ")) or None)
        flash({"detail": say(exc.detail), "rule": exc.rule, "move": ui.describe(payload),
               "form": _typed(request.form), "faults": sorted(fault_fields(exc.legal, view["players"]))},
              "refused")
        return back
    except store.StoreError as exc:
        if exc.status == 412:
            detail = _("Another phone entered a move first: check the table and enter yours again.")
            if as_json:
                return problem(412, exc.title, detail, exc.kind, headers=exc.headers)
            flash({"detail": detail, "rule": None, "form": _typed(request.form)}, "refused")
            return back
        raise
    flash(ui.announce(result.body, payload), "announce")  # shown on the page the outbox reloads, too
    if as_json:
        return {"etag": result.body.get("etag"), "version": result.body.get("version"),
                "replayed": result.replayed}, result.status
    return back


@bp.route("/g/<game_id>/undo", methods=["GET", "POST"])
def undo(game_id):
    game = store.get_game(game_id)
    key = table_key(game)
    if key is None:
        return _not_at_the_table(_("Only the table can undo a move."))
    ui = ui_for(game.game)
    if request.method == "GET":
        move = store.live_move(game.id, game.version)
        last = ui.describe(move.payload) if move else None
        return render_template("undo.html", game=game, engine=_engine(game.game), last=last,
                               etag=store.entity_tag(game))
    write = store.WriteRequest(game_id=game.id, token=None, phone=key, if_match=_form_tag(request.form))
    try:
        result = store.undo(write)
    except store.StoreError as exc:
        if exc.status not in (409, 412):
            raise
        flash({"detail": say(exc.detail), "rule": None}, "refused")
        return redirect(url_for(".game_page", game_id=game.id))
    flash(_("Move undone. %(table)s", table=ui.announce(result.body, None)), "announce")
    return redirect(url_for(".game_page", game_id=game.id))


# ---------------------------------------------------------------- looking back

@bp.get("/g/<game_id>/log")
def log(game_id):
    game = store.get_game(game_id)
    ui = ui_for(game.game)
    # A move in effect shows the table as it was after it: its own version (live moves are 1..n).
    entries = [{"seq": m.seq, "version": m.version, "voided": m.voided, "at": None if m.voided else m.version,
                "text": ui.describe(m.payload), "time": m.created_at} for m in store.all_moves(game.id)]
    return render_template("log.html", game=game, engine=_engine(game.game), entries=entries)


@bp.get("/g/<game_id>/at/<int:upto>")
def at(game_id, upto):
    game = store.get_game(game_id)
    upto = max(0, min(upto, game.version))
    view = store.view_at(game, upto)
    move = store.live_move(game.id, upto)
    last = ui_for(game.game).describe(move.payload) if move else None
    return render_template("at.html", upto=upto, last=last,
                           **_page_context(game, view, holder=False, live=False))


# ---------------------------------------------------------------- the rules

@bp.get("/rules")
def rules_index():
    """The rulings for every game (docs/rules/README.md) and a link to each game's rules."""
    doc = rules_pages.document(None)
    unlisted = [name for name in usable_engines() if not doc or name not in doc.pages]
    return render_template("rules.html", doc=doc, engine=None, unlisted=unlisted)


@bp.get("/rules/<game>")
def rules_page(game):
    """A game's rules document with an anchor on each ruling; the engine's rulings it lacks follow."""
    engine = usable_engines().get(game)
    if engine is None:
        return _error_page(404, _("No such game"), _("The referee keeps no rules by that name; the rules "
                                                     "page lists every game it keeps."))
    doc = rules_pages.document(engine.name)
    missing = {rid: text for rid, text in engine.rulings.items() if not doc or rid not in doc.rulings}
    return render_template("rules.html", doc=doc, engine=engine, missing=missing)


# ---------------------------------------------------------------- settle a dispute

@bp.get("/check")
def check_index():
    """Every game's verdicts, with or without a game at the table."""
    return render_template("check.html", engine=None)


def _check_game(engine):
    """The game of ``?game=<id>`` that fills the forms (a game of this engine), its view, and a note
    when the id opens no such game."""
    game_id = request.args.get("game", "")
    if not game_id:
        return None, None, None
    try:
        game = store.get_game(game_id)
    except store.StoreError:
        return None, None, _("No game has that id: the forms are not filled from a game.")
    if game.game != engine.name:
        return None, None, _("That game is not of this kind: the forms are not filled from it.")
    return game, store.game_view(game), None


def _check_page(engine, status=200, **answer):
    game, view, note = _check_game(engine)
    forms = []
    for verdict, judge in engine.judges.items():
        values = check.defaults(judge, view)
        if answer.get("verdict") == verdict:
            values = answer.get("values", values)
        forms.append({"verdict": verdict, "summary": judge.summary, "fields": check.fields(judge),
                      "values": values})
    pad = ui_for(engine.name).card_pad(view or {})  # the game page's own card pad, for the card fields
    return render_template("check.html", engine=engine, forms=forms, game=game, note=note, pad=pad,
                           **answer), status


@bp.get("/check/<game>")
def check_game(game):
    return _check_page(_engine(game))


@bp.post("/check/<game>/<verdict>")
def check_verdict(game, verdict):
    engine = _engine(game)
    judge = engine.judges.get(verdict)
    if judge is None:
        abort(404)
    values = {spec["name"]: request.form.get(spec["name"], "")[:check.MAX_FIELD] for spec in check.fields(judge)}
    context = {"verdict": verdict, "values": values}
    try:
        body = check.body_from(judge, request.form)
    except check.CheckFormError as exc:
        return _check_page(engine, 400, refusal={"detail": str(exc), "rule": None}, **context)
    try:
        result = judge.fn(body)
    except RuleError as exc:
        refusal = {"detail": say(exc.detail), "rule": exc.rule,
                   "rulings": check.summaries([exc.rule] if exc.rule else [], engine, _general_rulings())}
        return _check_page(engine, 422, refusal=refusal, **context)
    ids = check.cited(result)
    ids += [rid for rid in check.verdict_rulings(judge, engine) if rid not in ids]
    rulings = check.summaries(ids, engine, _general_rulings())
    details = {key: value for key, value in result.items() if key != "says"}
    return _check_page(engine, 200, result=result, details=details, rulings=rulings, **context)


def _general_rulings() -> dict:
    doc = rules_pages.document(None)
    return doc.rulings if doc else {}
