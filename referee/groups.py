"""Groups of players (a regular table, "Friday cards") and rematches: the table's memory.

- A group has an unguessable id, a name and a token of its own (returned once, stored hashed).
  Games created in the group with that token belong to it; the group's token also writes them
  (``store.check_token``), never another group's games, and a game's token never acts for its group.
- The pages never keep the group's token: a phone that makes a group (``start_group``: the token is
  never seen) or opens one with its token (``phone_from_token``) gets a **phone key** of its own,
  ``<id>.<secret>`` (a ``models.Credential`` with ``group_id``), kept in its session cookie. It does
  on the pages what the token does (rename, rename players, start games in the group: ``phone=``),
  until it is revoked (``revoke_phone``, ``forget``); it is never the API's Bearer, and it writes
  none of the group's games (each game has keys of its own, ``referee.links``). Every check of a key
  and every revocation takes the group's row lock first: once a revocation has answered, the key
  writes nothing more.
- The group's players are the names used in its games. A rename (``rename_player``) is appended to
  the group's renames, never rewriting a game: the group's listings, filters and stats read each
  name through the renames folded in order (``renames_of``, ``resolve_name``), so chains resolve
  (Bob -> Rob -> Robert) and renaming back works. A game's own view keeps the names it was played
  with (its moves name them).
- Renaming to the name of another player of the group is a **merge** (two names were one person):
  refused (409) unless the request says ``merge``, and refused always when both names sat at one
  game of the group (they are two people). A name that reads like another player's (Latin ``Ann``,
  Cyrillic ``Аnn``) is refused as at a game's creation (422); the earlier name of another player
  cannot be taken (409: it would change whose games those were).
- A rematch (``rematch``) starts the next game at the table: the same game, players (as renamed)
  and options, the first deal one seat on (``rules.base.next_deal``, G-2), in the same group. The
  finished game's row is locked first, so two phones pressing at once make one game; the second
  gets a 409 naming it.

``games_of`` and ``resolver``/``resolve_name`` are what the stats read: a group's games (filtered,
newest first, a page at a time by an opaque cursor) and its players' current names.
"""
from __future__ import annotations

import base64
import binascii
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, exists, func, or_, select

from referee import events, links, store
from referee.errors import InvalidInput
from referee.models import Credential, Game, Group, GroupRename, _now, aware, db, new_game_id
from referee.names import reads_like, refuse_blank, refuse_confusable
from referee.rules.base import check_players, next_deal
from referee.texts import N_, T

NAME_MAX = 80


# ---------------------------------------------------------------- the group and its token

def _not_found(group_id) -> store.StoreError:
    return store.StoreError(404, "Group not found", T("No group has the id {id}.", id=repr(group_id)),
                            "group-not-found")


def get_group(group_id) -> Group:
    # a group id is shaped like a game's: anything else names nothing and never reaches the database
    group = db.session.get(Group, group_id) if store._possible_id(group_id) else None
    if group is None:
        raise _not_found(group_id)
    return group


def _lock_group(group_id) -> Group:
    """Lock the group's row, first statement of the transaction (as ``store.lock_game`` does)."""
    return store.lock_row(Group, group_id, Group.name, _not_found)


def check_group_token(group: Group, token: str | None) -> None:
    """Only the group's own token: a game's token (even of one of its games) is refused."""
    if not token:
        raise store.StoreError(401, "Token required", N_("This needs the group's token: "
                                                         "'Authorization: Bearer <token>'."), "unauthorized",
                               headers={"WWW-Authenticate": 'Bearer realm="referee"'})
    if not hmac.compare_digest(store.hash_token(token), group.token_hash):
        raise store.StoreError(403, "Wrong token", N_("This token does not open this group."), "forbidden")


_locked = store.committed  # a group write: one unit of work, committed or rolled back whole


# ---------------------------------------------------------------- the phones' keys (the pages)

MAX_PHONES = 1000  # phone keys of one group in use at once (revoked ones do not count)
PHONE_SEEN_EVERY = timedelta(minutes=1)  # last_used_at is written at most this often


def _issue_phone(group: Group, label: str) -> str:
    """A new phone key to ``group``: ``<id>.<secret>``, shown once, stored hashed."""
    return links.issue_key({"group_id": group.id}, "phone", label[:80], MAX_PHONES, lambda: store.StoreError(
        409, "Too many phones", T("This group already has {n} phones in use: revoke some.", n=MAX_PHONES),
        "too-many-phones")).code


def find_phone(group: Group, key) -> Credential:
    """The group's unrevoked phone key ``key`` opens, else a 403."""
    return store.open_key(key, "phone", lambda found: found.group_id == group.id,
                          N_("This phone's key does not open this group."),
                          N_("This phone's key to the group was revoked."))


def phone_of(group: Group, key) -> Credential | None:
    """The group's phone ``key`` opens, valid and not revoked, else None (a read: no lock)."""
    try:
        return find_phone(group, key)
    except store.StoreError:
        return None


def _check_writer(group: Group, token: str | None, phone: str | None) -> None:
    """A phone's key from the pages (``phone``), else the group's token (the API's Bearer)."""
    if phone is None:
        check_group_token(group, token)
        return
    credential = find_phone(group, phone)
    now = _now()
    last = aware(credential.last_used_at)
    if last is None or last < now - PHONE_SEEN_EVERY:
        credential.last_used_at = now  # committed with the write


def start_group(name: str, label: str) -> tuple[Group, str]:
    """A group made on the pages, and the key of the phone that made it; the group's token is never
    seen (only its hash is kept), as a game started on the pages (``links.start_game``)."""
    group = Group(id=new_game_id(), name=name, token_hash=store.hash_token(secrets.token_urlsafe(24)))

    def work():
        db.session.add(group)
        db.session.flush()
        return _issue_phone(group, label)

    key = _locked(work)
    return group, key


def phone_from_token(group_id: str, token: str | None, label: str) -> str:
    """A phone key for a phone that holds the group's token: one typed on the group's page, or a cookie
    written before phone keys. The token itself is kept nowhere."""
    def work():
        group = _lock_group(group_id)
        check_group_token(group, token)
        return _issue_phone(group, label)

    return _locked(work)


def phones_of(group: Group) -> list[Credential]:
    """Every phone key of the group: the ones in use first, each oldest first."""
    found = db.session.scalars(select(Credential).where(Credential.group_id == group.id)
                               .order_by(Credential.created_at, Credential.id))
    return sorted(found, key=lambda c: c.revoked_at is not None)


def revoke_phone(group_id: str, key: str | None, credential_id: str) -> list[Credential]:
    """A phone holding a key to the group revokes a phone of the group (perhaps itself): what was
    revoked now (nothing when it was already)."""
    def work():
        group = _lock_group(group_id)
        find_phone(group, key)
        # anything not shaped like an id names nothing (a NUL never reaches SQL)
        possible = isinstance(credential_id, str) and links.CREDENTIAL_ID.fullmatch(credential_id)
        target = db.session.get(Credential, credential_id, populate_existing=True) if possible else None
        if target is None or target.group_id != group.id:
            raise store.StoreError(404, "No such phone", T("This group has no phone {id}.", id=repr(credential_id)),
                                   "phone-not-found")
        if target.revoked_at is not None:
            return []
        target.revoked_at = _now()
        return [target]

    return _locked(work)


def forget(group_id: str, key: str | None) -> None:
    """The phone gives up its key to the group: revoked when it still opens it (a copy of the cookie
    then opens nothing either)."""
    def work():
        group = _lock_group(group_id)
        phone = phone_of(group, key)
        if phone is not None:
            phone.revoked_at = _now()

    _locked(work)


# ---------------------------------------------------------------- the group and its token (the API)

def create_group(name: str) -> tuple[Group, str]:
    """A new group and its token (shown once)."""
    token = secrets.token_urlsafe(24)
    group = Group(id=new_game_id(), name=name, token_hash=store.hash_token(token))

    def work():
        db.session.add(group)
        return group

    return _locked(work), token


def rename_group(group_id: str, token: str | None, name: str, *, phone: str | None = None) -> Group:
    """Rename the group, with its token (the API) or, from the pages, a phone's key (``phone``)."""
    def work():
        group = _lock_group(group_id)
        _check_writer(group, token, phone)
        group.name = name
        group.updated_at = _now()
        return group

    return _locked(work)


def rotate_group_token(group_id: str, token: str | None) -> str:
    """A new token for the group (a phone that kept the old one lost, say); the old one opens
    nothing from now on, neither the group nor its games."""
    def work():
        group = _lock_group(group_id)
        check_group_token(group, token)
        fresh = secrets.token_urlsafe(24)
        group.token_hash = store.hash_token(fresh)
        group.updated_at = _now()
        return fresh

    return _locked(work)


# ---------------------------------------------------------------- players and renames

def _fold(renames) -> dict[str, str]:
    """Every earlier name -> the current name, from the renames in order. Each rename moves the names
    that led to its old name along with it, so a chain is one lookup; a name renamed back to is
    current again."""
    mapping: dict[str, str] = {}
    for old, new in renames:
        for name, current in mapping.items():
            if current == old:
                mapping[name] = new
        mapping[old] = new
        mapping.pop(new, None)
    return mapping


def renames_of(group_id: str) -> dict[str, str]:
    """The group's earlier names, each to its player's current name."""
    rows = db.session.execute(select(GroupRename.old_name, GroupRename.new_name)
                              .where(GroupRename.group_id == group_id).order_by(GroupRename.id))
    return _fold(rows)


def resolver(group_id: str | None) -> Callable[[str], str]:
    """A function from any name used in the group's games to its player's current name (the identity
    for a game without a group). Read the renames once, then call it for every name."""
    mapping = renames_of(group_id) if group_id is not None else {}
    return lambda name: mapping.get(name, name)


def resolve_name(group: Group | str, name: str) -> str:
    """The current name of the group's player who played as ``name``."""
    return resolver(group.id if isinstance(group, Group) else group)(name)


def _names_played(group_id: str) -> list[list[str]]:
    return [list(players) for players in db.session.scalars(select(Game.players).where(Game.group_id == group_id))]


def players_of(group_id: str) -> list[str]:
    """The group's players, by their current names, in alphabetical order."""
    resolve = resolver(group_id)
    return sorted({resolve(name) for players in _names_played(group_id) for name in players}, key=str.casefold)


def _clean_name(value) -> str:
    # the same checks as a player's name at a game's creation (NFC, not blank, nothing invisible, 40)
    return check_players([value], 1, 1)[0]


def rename_player(group_id: str, token: str | None, old: str, new: str, merge: bool = False, *,
                  phone: str | None = None) -> GroupRename:
    """Rename a player of the group (``merge``: into another of its players), in its whole history; with
    the group's token or, from the pages, a phone's key (``phone``)."""
    def work():
        group = _lock_group(group_id)
        _check_writer(group, token, phone)
        mapping = renames_of(group.id)
        games = [[mapping.get(n, n) for n in players] for players in _names_played(group.id)]
        current = {name for players in games for name in players}
        source, target = _clean_name(old), _clean_name(new)
        refuse_blank([target])  # a name that shows nothing (an old game's may still be renamed away)
        if source not in current:
            if source in mapping:
                raise InvalidInput(T("No player of this group is called {name} any more: they are called {now} now.",
                                     name=repr(source), now=repr(mapping[source])))
            raise InvalidInput(T("No player of this group is called {name}.", name=repr(source)))
        if target == source:
            raise InvalidInput(T("{old} is already called {new}.", old=repr(source), new=repr(target)))
        if target in mapping and mapping[target] != source:
            raise store.StoreError(409, "Name taken", T("{new} is an earlier name of {player}: taking it would change "
                                                        "whose games those were.", new=repr(target),
                                                        player=repr(mapping[target])), "name-taken")
        if target in current:
            if not merge:
                raise store.StoreError(409, "Name taken", T("{new} is another player of this group. If they are one "
                                                            "person, send \"merge\": true to merge {old} into {new}.",
                                                            new=repr(target), old=repr(source)),
                                       "name-taken", player=target)
            shared = sum(1 for players in games if source in players and target in players)
            if shared:
                raise store.StoreError(409, "Not one person", T("{old} and {new} played in the same game ({shared} of "
                                                                "this group's games): they are two people.",
                                                                old=repr(source), new=repr(target), shared=shared),
                                       "merge-refused")
        else:
            if merge:
                raise InvalidInput(T("No player of this group is called {name}: there is no one to merge into.",
                                     name=repr(target)))
            # a name that reads like another player's is refused, as at a game's creation
            clash = next((name for name in current - {source} if reads_like(name, target)), None)
            if clash is not None:
                raise InvalidInput(T("{new} reads like {clash}, another player of this group: give a name that reads "
                                     "differently, or {clash} exactly to merge.", new=repr(target), clash=repr(clash)))
        rename = GroupRename(group_id=group.id, old_name=source, new_name=target, merge=bool(merge),
                             created_at=_now())
        db.session.add(rename)
        group.updated_at = _now()
        db.session.flush()
        return rename

    return _locked(work)


def describe_rename(rename: GroupRename) -> dict:
    return {"from": rename.old_name, "to": rename.new_name, "merge": rename.merge,
            "created_at": aware(rename.created_at)}


def describe(group: Group) -> dict:
    """The public view of a group: never its token or its hash."""
    renames = db.session.scalars(select(GroupRename).where(GroupRename.group_id == group.id)
                                 .order_by(GroupRename.id))
    count = db.session.scalar(select(func.count()).select_from(Game).where(Game.group_id == group.id))
    return {"id": group.id, "name": group.name, "created_at": aware(group.created_at),
            "updated_at": aware(group.updated_at), "games": count, "players": players_of(group.id),
            "renames": [describe_rename(r) for r in renames]}


# ---------------------------------------------------------------- the group's games

def encode_cursor(game: Game) -> str:
    """The position after ``game`` in a listing (newest first): opaque to clients."""
    raw = f"{aware(game.created_at).isoformat()}|{game.id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        moment, game_id = text.split("|")
        created = datetime.fromisoformat(moment)
        if created.tzinfo is None or not store._possible_id(game_id):
            raise ValueError(text)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise InvalidInput(N_("'after' is not a position in this listing: use the link in the Link header.")) from None
    return created.astimezone(UTC), game_id


def _plays_any(names: list[str]):
    """A game whose players include one of ``names`` (SQL over the JSON list, on either database)."""
    if db.session.get_bind().dialect.name == "postgresql":
        each = func.json_array_elements_text(Game.players).table_valued("value")
    else:
        each = func.json_each(Game.players).table_valued("value")
    return exists(select(1).select_from(each).where(each.c.value.in_(names)))


def games_of(group_id: str, *, game: str | None = None, status: str | None = None, player: str | None = None,
             updated_since: datetime | None = None, after: str | None = None,
             limit: int | None = None) -> list[Game]:
    """The group's games, newest first (created_at, then id), filtered: by game type, by status
    (``in_progress``/``finished``), by a player (any of their names: the player it resolves to, under
    all the names they played as), by ``updated_since``; from the position ``after`` (a cursor from
    ``encode_cursor``; a game created since the listing began comes before it, so following pages
    neither repeats nor misses one); at most ``limit`` (all when None)."""
    query = select(Game).where(Game.group_id == group_id)
    if game is not None:
        query = query.where(Game.game == game)
    if status is not None:
        query = query.where(Game.status == status)
    if player is not None:
        mapping = renames_of(group_id)
        current = mapping.get(player, player)
        names = sorted({current} | {name for name, now in mapping.items() if now == current})
        query = query.where(_plays_any(names))
    if updated_since is not None:
        query = query.where(Game.updated_at >= updated_since.astimezone(UTC))
    if after is not None:
        created, game_id = decode_cursor(after)
        query = query.where(or_(Game.created_at < created, and_(Game.created_at == created, Game.id < game_id)))
    query = query.order_by(Game.created_at.desc(), Game.id.desc())
    if limit is not None:
        query = query.limit(limit)
    return list(db.session.scalars(query))


def summary(game: Game, resolve: Callable[[str], str] = lambda name: name) -> dict:
    """One line of a group's listing: the game with its players' current names."""
    engine = store.engine_for(game.game)
    result = engine.outcome(game.state)
    return {"id": game.id, "game": game.game, "players": [resolve(p) for p in game.players],
            "status": game.status, "winners": [resolve(p) for p in result["winners"]],
            "standings": {resolve(p): total for p, total in engine.standings(game.state).items()},
            "version": game.version, "created_at": aware(game.created_at), "updated_at": aware(game.updated_at),
            "rematch": game.rematch_id, "rematch_of": game.rematch_of_id}


def create_game(group_id, token: str | None, name: str, players, options, *,
                phone: str | None = None) -> tuple[Game, str]:
    """A game in the group (with the group's token or, from the pages, a phone's key: ``phone``); the
    game's own token is returned too, once."""
    def work():
        group = _lock_group(group_id)
        _check_writer(group, token, phone)
        game, game_token = store.new_game(name, players, options, group_id=group.id)
        # the group's players and the new names must not read alike either (its history shows them together)
        refuse_confusable(players_of(group.id) + game.players)
        db.session.add(game)
        group.updated_at = _now()
        return game, game_token

    return _locked(work)


# ---------------------------------------------------------------- rematch

@dataclass
class Rematched:
    game: Game
    token: str  # the new game's token, shown once


def rematch(request: store.WriteRequest, force: bool = False) -> Rematched:
    """The next game at the table, made once: ``request`` carries the game's token, its group's
    token or a phone's key. Refused (409) when the game has its rematch already (named in
    ``rematch``), or is still in progress unless ``force`` (the table gives it up to start again)."""
    announced = []

    def work():
        game = store.lock_game(request.game_id)
        store.check_writer(game, request)
        if game.rematch_id is not None:
            raise store.StoreError(409, "Rematch exists", T("This game's rematch is already there: {id}.",
                                                            id=game.rematch_id),
                                   "rematch-exists", rematch=game.rematch_id)
        if game.status != "finished" and not force:
            raise store.StoreError(409, "Game in progress", T("This game is not over. To leave it and start the next "
                                                              "one anyway, send {body}.", body='{"force": true}'),
                                   "game-in-progress")
        engine = store.engine_for(game.game)
        players, options = next_deal(engine, list(game.players), dict(game.options), resolver(game.group_id))
        new, token = store.new_game(game.game, players, options, group_id=game.group_id)
        new.rematch_of_id = game.id
        db.session.add(new)
        db.session.flush()  # the new row first: the finished game's link points at it
        game.rematch_id = new.id
        game.revision += 1  # its view changed (``rematch``): a new ETag, and its followers hear of it
        change = events.Change(game.id, game.revision, game.version, "sync")
        events.notify_in_transaction(db.session, change)
        announced.append(change)
        return Rematched(new, token)

    result = _locked(work)
    for change in announced:
        events.committed(change)
    return result


__all__ = ["MAX_PHONES", "NAME_MAX", "Rematched", "check_group_token", "create_game", "create_group",
           "decode_cursor", "describe", "describe_rename", "encode_cursor", "find_phone", "forget", "games_of",
           "get_group", "phone_from_token", "phone_of", "phones_of", "players_of", "rematch", "rename_group",
           "rename_player", "renames_of", "resolve_name", "resolver", "revoke_phone", "start_group", "summary"]
