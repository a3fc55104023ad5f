"""Table links and phones: each is its own revocable key to a game's writes (``models.Credential``).

- The game's token (returned once at creation, the API's Bearer) lists, makes and revokes them, and
  can be rotated. It never reaches a page or a cookie.
- A **table link** carries a code ``<id>.<secret>`` in the fragment of ``/g/<id>/join#<code>``; a
  phone that opens it redeems the code (a form post) for a **phone** key of its own, child of the
  link, and keeps only that key in its session cookie. The phone that starts a game on the pages
  gets a phone key the same way (no parent).
- A phone's share page shows *its* table link: made on the first visit, then shown again. Its
  secret is derived from the phone's own secret (an HMAC), so nothing more is kept anywhere.
- Revoking a link revokes the phones that joined through it. Revoking a phone (also "Forget" on
  the phone itself) closes the links it made, so that whoever copied its cookie can no longer show
  or open them; the phones that already joined through those links keep their own keys until they
  are revoked themselves (the lists show who joined through what).

Every change takes the game's row lock first (``store.lock_game``), like a move: a revocation and a
write through the revoked key are serialized, so once a revocation has answered, that key writes
nothing more. Only SHA-256 hashes of the secrets are stored.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Callable

from flask import url_for
from sqlalchemy import func, select

from referee import store
from referee.models import Credential, Game, _now, aware, db
from referee.texts import T

MAX_PER_GAME = 1000  # links and phones of one game in use at once (revoked ones do not count)
LABEL_MAX = 80
CREDENTIAL_ID = re.compile(r"[A-Za-z0-9_-]{1,16}")  # anything else names nothing (a NUL never reaches SQL)


@dataclass
class Issued:
    """A new credential and its code or key, ``<id>.<secret>``: shown once, stored hashed."""

    credential: Credential
    code: str


def describe(credential: Credential) -> dict:
    """The public description of a credential: never its secret or hash."""
    return {"id": credential.id, "kind": credential.kind, "label": credential.label,
            "parent": credential.parent_id, "created_at": aware(credential.created_at),
            "last_used_at": aware(credential.last_used_at), "revoked": credential.revoked_at is not None,
            "revoked_at": aware(credential.revoked_at)}


def join_url(game_id: str, code: str) -> str:
    """The table link: the code rides in the fragment, which the browser never sends to the server."""
    return url_for("web.join", game_id=game_id, _external=True) + "#" + code


def derived_secret(phone_secret: str, link_id: str) -> str:
    """The secret of the table link a phone made: only that phone's key can show it again."""
    digest = hmac.new(phone_secret.encode(), b"table-link:" + link_id.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")[:32]


# ---------------------------------------------------------------- plumbing

def _locked(game_id: str, work: Callable[[Game], object]):
    """Run ``work(game)`` on the locked game row and commit (everything rolled back on a refusal)."""
    return store.committed(lambda: work(store.lock_game(game_id)))


def _issue(game: Game, kind: str, label: str | None, parent_id: str | None,
           secret_for: Callable[[str], str] | None = None) -> Issued:
    return issue_key({"game_id": game.id}, kind, label, MAX_PER_GAME, lambda: store.StoreError(
        409, "Too many links", T("This game already has {n} table links and phones in use: revoke some, or reuse "
                                 "a link it has.", n=MAX_PER_GAME), "too-many-links"), parent_id, secret_for)


def issue_key(owner: dict, kind: str, label: str | None, most: int, too_many: Callable[[], Exception],
              parent_id: str | None = None, secret_for: Callable[[str], str] | None = None) -> Issued:
    """A new credential of ``owner`` (``{"game_id": ...}`` or ``{"group_id": ...}``), refused with
    ``too_many()`` when it has ``most`` in use already; its code is ``<id>.<secret>``, shown once,
    stored hashed."""
    (column, owner_id), = owner.items()
    count = db.session.scalar(select(func.count()).select_from(Credential).where(
        getattr(Credential, column) == owner_id, Credential.revoked_at.is_(None)))
    if count >= most:
        raise too_many()
    while True:
        credential_id = secrets.token_urlsafe(9)
        if db.session.get(Credential, credential_id) is None:
            break
    secret = secret_for(credential_id) if secret_for else secrets.token_urlsafe(18)
    credential = Credential(id=credential_id, kind=kind, label=label, secret_hash=store.hash_token(secret),
                            parent_id=parent_id, created_at=_now(), **owner)
    db.session.add(credential)
    db.session.flush()
    return Issued(credential, f"{credential_id}.{secret}")


def _children(parent_id: str, kind: str) -> list[Credential]:
    return list(db.session.scalars(select(Credential).where(Credential.parent_id == parent_id,
                                                            Credential.kind == kind,
                                                            Credential.revoked_at.is_(None))))


def _revoke(target: Credential) -> list[Credential]:
    """Revoke ``target``: a link with the phones that joined through it; every phone revoked closes
    the links it made (their own phones stay). Returns what was revoked now."""
    hit = [target] if target.revoked_at is None else []
    if target.kind == "link":
        hit += _children(target.id, "phone")
    for phone in [c for c in hit if c.kind == "phone"]:
        hit += _children(phone.id, "link")
    now = _now()
    for credential in hit:
        credential.revoked_at = now
    return hit


def _credential_of(game: Game, credential_id: str) -> Credential:
    possible = isinstance(credential_id, str) and CREDENTIAL_ID.fullmatch(credential_id)
    found = db.session.get(Credential, credential_id, populate_existing=True) if possible else None
    if found is None or found.game_id != game.id:
        raise store.StoreError(404, "No such link", T("This game has no table link or phone {id}.",
                                                      id=repr(credential_id)),
                               "link-not-found")
    return found


def _link_label(game: Game, label: str | None) -> str:
    if label:
        return label
    made = db.session.scalar(select(func.count()).select_from(Credential).where(
        Credential.game_id == game.id, Credential.kind == "link"))
    return f"Table link {made + 1}"


# ---------------------------------------------------------------- with the game's token (the API)

def create_link(game_id: str, token: str | None, label: str | None = None) -> Issued:
    def work(game: Game) -> Issued:
        store.check_token(game, token)
        return _issue(game, "link", _link_label(game, label), None)

    return _locked(game_id, work)


def list_all(game_id: str, token: str | None) -> list[Credential]:
    game = store.get_game(game_id)
    store.check_token(game, token)
    return credentials_of(game)


def revoke(game_id: str, token: str | None, credential_id: str) -> list[Credential]:
    def work(game: Game) -> list[Credential]:
        store.check_token(game, token)
        return _revoke(_credential_of(game, credential_id))

    return _locked(game_id, work)


def rotate_token(game_id: str, token: str | None) -> str:
    """A new token for the game; the old one opens nothing from now on."""
    def work(game: Game) -> str:
        store.check_token(game, token)
        fresh = secrets.token_urlsafe(24)
        game.token_hash = store.hash_token(fresh)
        return fresh

    return _locked(game_id, work)


def credentials_of(game: Game) -> list[Credential]:
    """Every link and phone of the game: the ones in use first, each group oldest first."""
    found = db.session.scalars(select(Credential).where(Credential.game_id == game.id)
                               .order_by(Credential.created_at, Credential.id))
    return sorted(found, key=lambda c: c.revoked_at is not None)


# ---------------------------------------------------------------- with a phone's key (the pages)

def start_game(name: str, players, options, label: str) -> tuple[Game, str]:
    """Create a game and the key of the phone that started it (its token stays unseen, hashed)."""
    game, _token = store.new_game(name, players, options)
    with store.writer_queue():
        try:
            db.session.add(game)
            db.session.flush()
            issued = _issue(game, "phone", label, None)
            db.session.commit()
        except Exception:
            db.session.rollback()
            raise
    return game, issued.code


def redeem(game_id: str, code: str, label: str) -> str:
    """A table link's code -> a new phone key, child of the link."""
    def work(game: Game) -> str:
        link = store.find_credential(game, code, "link")
        link.last_used_at = _now()
        return _issue(game, "phone", label, link.id).code

    return _locked(game_id, work)


def from_token(game_id: str, token: str, label: str) -> str:
    """A phone key for a phone whose cookie still holds the game's token (written before table links
    existed): the token leaves the cookie on the phone's first visit since."""
    def work(game: Game) -> str:
        store.check_token(game, token)
        return _issue(game, "phone", label, None).code

    return _locked(game_id, work)


def join_rematch(game_id: str, key: str, label: str) -> tuple[str, str] | None:
    """A phone at a game's table joins the table of its rematch (the next game at the same table,
    ``groups.rematch``): its key to the game gets it a key of its own to the rematch, as a table link
    would. Returns ``(rematch id, key)``; None when the game has no rematch; a 403 for a key that does
    not open the game (read afresh under the rematch's lock)."""
    game = store.get_game(game_id)
    if game.rematch_id is None:
        return None

    def work(rematch: Game) -> str:
        store.find_credential(game, key, "phone")
        return _issue(rematch, "phone", label, None).code

    return game.rematch_id, _locked(game.rematch_id, work)


def phone_of(game: Game, key: str | None) -> Credential | None:
    """The phone ``key`` opens, valid and not revoked, else None (a read: no lock)."""
    try:
        return store.find_credential(game, key, "phone")
    except store.StoreError:
        return None


def share_link(game: Game, key: str) -> str:
    """The code of this phone's table link: its open one, else a new one (made once)."""
    phone_secret = store.split_credential(key)[1]

    def open_link(phone: Credential) -> Credential | None:
        return db.session.scalars(select(Credential).where(
            Credential.parent_id == phone.id, Credential.kind == "link", Credential.revoked_at.is_(None))
            .order_by(Credential.created_at.desc(), Credential.id).limit(1)).first()

    phone = store.find_credential(game, key, "phone")
    link = open_link(phone)
    if link is None:
        def work(locked: Game) -> Credential:
            again = store.find_credential(locked, key, "phone")
            return open_link(again) or _issue(locked, "link", _link_label(locked, None), again.id,
                                              lambda link_id: derived_secret(phone_secret, link_id)).credential

        link = _locked(game.id, work)
    return f"{link.id}.{derived_secret(phone_secret, link.id)}"


def revoke_by_phone(game_id: str, key: str, credential_id: str) -> list[Credential]:
    """A phone at the table revokes a link or a phone of the game (perhaps itself)."""
    def work(game: Game) -> list[Credential]:
        store.find_credential(game, key, "phone")
        return _revoke(_credential_of(game, credential_id))

    return _locked(game_id, work)


def forget(game_id: str, key: str) -> None:
    """The phone gives up its key: revoked (with the links it made closed), when it still opens."""
    def work(game: Game) -> None:
        phone = phone_of(game, key)
        if phone is not None:
            _revoke(phone)

    _locked(game_id, work)


__all__ = ["Issued", "MAX_PER_GAME", "create_link", "credentials_of", "describe", "derived_secret", "forget",
           "from_token", "join_rematch", "list_all", "phone_of", "redeem", "revoke", "revoke_by_phone",
           "rotate_token", "share_link", "start_game"]
