"""The examples of the OpenAPI document: one for every request and response body, each what the
service really sent or answered at one table (``play`` below: a group, a game played, undone,
exported, imported and rematched, a finished game, its links, renames, every game's verdicts, and
refusals). The game played is the first registered one that declares its example (``Game.example``,
``referee.rules.base.Example``: its moves, its short game, what it refuses); the verdicts are asked
each judge's declared ``example``.

They live in ``examples.json`` beside this module, keyed ``<operationId> request``, ``<operationId>
<status>`` and ``problem <what>``. ``flask --app wsgi openapi examples`` plays the scenario again
through the app on a scratch database and rewrites the file (then ``openapi write``, as after any
change of the document): needed after a change of what the service answers
(``tests/api/test_spec_examples.py`` fails until then, naming the examples no longer true). Ids,
tokens and times differ on every run: the file holds stand-ins for them (``stand_ins``), the same on
every run, so that ``openapi.yaml`` changes only with the answers.

A new game needs nothing here: it declares its verdicts' examples (and may declare a game's).
Nothing here names a game."""
from __future__ import annotations

import json
import random
import re
import string
import tempfile
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import click

if TYPE_CHECKING:
    from referee.rules.base import Game

EXAMPLES_FILE = Path(__file__).with_name("examples.json")


@cache
def examples() -> dict[str, Any]:
    return json.loads(EXAMPLES_FILE.read_text(encoding="utf-8"))


def example(name: str) -> Any:
    """The example ``name``, or None while the scenario makes none of that name (a verdict of a game
    registered later, such as the tests' sixth game; a new example, until the file is written again:
    tests/api/test_spec_examples.py names every body left without one)."""
    return examples().get(name)


def optional_example(name: str) -> dict:
    """``{"example": ...}`` for a media type, or nothing where ``example`` has none."""
    found = example(name)
    return {} if found is None else {"example": found}


# ---------------------------------------------------------------- the scenario

def example_game() -> Game:
    """The game the scenario plays: the first registered one that declares an example."""
    from referee.rules import ENGINES

    return next(game for game in ENGINES.values() if game.example is not None)


def verdicts() -> dict[str, dict]:
    """``{"<game>/<verdict>": body}``: each registered judge's declared example."""
    from referee.rules import ENGINES

    return {f"{game.name}/{name}": judge.example for game in ENGINES.values() for name, judge in game.judges.items()
            if judge.example is not None}


SCRATCH_CONFIG = {"TESTING": True, "SECRET_KEY": "examples", "RATELIMIT_ENABLED": True,
                  "RATELIMIT_STORAGE_URI": "memory://",
                  "RATELIMIT_CREATE": "20 per minute"}  # more than the scenario makes: then a 429


def scratch_app(folder: str):
    """An app on a new SQLite database in ``folder``, its creation of games limited so that the
    scenario meets the limit."""
    from referee import create_app

    return create_app({**SCRATCH_CONFIG, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/examples.sqlite3"})


def play(app) -> dict[str, Any]:
    """Every example, as the app answers the scenario now (with its real ids, tokens and times)."""
    client = app.test_client()
    found: dict[str, Any] = {}
    game_type = example_game()
    scene = game_type.example
    assert scene is not None
    moves = scene.moves
    create = {"game": game_type.name, "players": list(scene.players)}  # and the group's id, once it exists
    # a short game, finished in one round entered whole (T-4): its record, score sheet and stats
    short = {**create, "options": scene.options}
    alone = list(scene.players[:1])
    assert game_type.players[0] > 1, "the scenario's refusal of too few players needs a game of two or more"

    def call(method: str, path: str, name: str | None = None, body: Any = None, token: str | None = None,
             status: int | None = None, **kwargs) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        headers.update(kwargs.pop("headers", {}))
        if body is not None:
            kwargs["json"] = body
            if name:
                found[f"{name} request"] = body
        response = client.open(f"/api/v1{path}", method=method, headers=headers, **kwargs)
        answer = response.get_data(as_text=True) or None  # a 204 has no body
        if answer and response.is_json:
            answer = response.get_json()
        if status is not None and response.status_code != status:
            raise AssertionError(f"{method} {path}: {response.status_code}, not {status}: {answer}")
        if name:
            found[f"{name} {response.status_code}"] = answer
        return answer

    group = call("POST", "/groups", "createGroup", {"name": "Friday cards"}, status=201)
    group_token = group["token"]
    found["problem group token needed"] = call("POST", "/games", body={**create, "group": group["id"]}, status=401)
    found["problem wrong group token"] = call("POST", "/games", body={**create, "group": group["id"]},
                                              token="not-the-token", status=403)
    found["problem invalid players"] = call("POST", "/games", body={**create, "players": alone}, status=422)
    game = call("POST", "/games", "createGame", {**create, "group": group["id"]}, group_token, status=201)
    token, path = game["token"], f"/games/{game['id']}"
    call("POST", f"{path}/moves", body=moves[0], token=token, status=201)
    call("POST", f"{path}/moves", "applyMove", moves[1], token, status=201)
    call("POST", f"{path}/moves", body=moves[2], token=token, status=201)
    call("GET", path, "getGame", status=200)
    call("POST", f"{path}/undo", "undoMove", token=token, status=200)
    found["problem illegal move"] = call("POST", f"{path}/moves", body=scene.illegal, token=token, status=422)
    call("GET", f"{path}/moves", "getMoveLog", status=200)
    link = call("POST", f"{path}/links", "createLink", {"label": "Bob's phone"}, token, status=201)
    call("GET", f"{path}/links", "listLinks", token=token, status=200)
    call("DELETE", f"{path}/links/{link['id']}", token=token, status=204)
    found["problem stale version"] = call("POST", f"{path}/moves", body=moves[2], token=token, status=412,
                                          headers={"If-Match": '"1"'})
    found["problem no token"] = call("POST", f"{path}/moves", body=moves[2], status=401)
    found["problem wrong token"] = call("POST", f"{path}/moves", body=moves[2], token="not-the-token", status=403)
    found["problem malformed"] = call("POST", f"{path}/moves", token=token, data=json.dumps(moves[2])[:-1], status=400,
                                      content_type="application/json")
    found["problem not json"] = call("POST", f"{path}/moves", token=token, data=urlencode(moves[2]), status=415,
                                     content_type="application/x-www-form-urlencoded")
    found["problem too large"] = call("POST", f"{path}/moves", token=token, status=413,
                                      data=json.dumps({**moves[2], "x": "7" * 70_000}),
                                      content_type="application/json")
    found["problem no game"] = call("GET", "/games/k3Jq9ZtWb2xVhN7p", status=404)
    found["problem no group"] = call("GET", "/groups/q8Rz2LmVx5TbW3yK", status=404)
    found["problem invalid input"] = call("POST", "/groups", body={"name": " "}, status=422)

    finished = call("POST", "/games", body={**short, "group": group["id"]}, token=group_token, status=201)
    finished_path = f"/games/{finished['id']}"
    call("POST", f"{finished_path}/moves", body=scene.round, token=finished["token"], status=201)
    record = call("GET", f"{finished_path}/export", "exportGame", token=finished["token"], status=200)
    call("GET", f"{finished_path}/export.csv", "exportScoreSheet", status=200)
    wrong = {**record, "moves": [{**record["moves"][0], "payload": scene.wrong_round}]}
    found["problem import refused"] = call("POST", "/games/import", body=wrong, token=group_token, status=422)
    call("POST", "/games/import", "importGame", record, group_token, status=201)

    rematch = call("POST", f"{path}/rematch", "rematch", {"force": True}, token, status=201)
    found["problem nothing to undo"] = call("POST", f"/games/{rematch['id']}/undo", token=rematch["token"],
                                            status=409)
    found["problem rematch exists"] = call("POST", f"{path}/rematch", body={"force": True}, token=token, status=409)
    call("POST", f"{path}/token", "rotateToken", token=token, status=200)

    call("GET", f"/groups/{group['id']}", "getGroup", status=200)
    call("PATCH", f"/groups/{group['id']}", "renameGroup", {"name": "Fridays"}, group_token, status=200)
    call("POST", f"/groups/{group['id']}/renames", "renamePlayer", {"from": "Bob", "to": "Robert"}, group_token,
         status=201)
    found["problem name taken"] = call("POST", f"/groups/{group['id']}/renames", body={"from": "Cid", "to": "Ann"},
                                       token=group_token, status=409)
    found["problem no group token"] = call("PATCH", f"/groups/{group['id']}", body={"name": "Fridays"}, status=401)
    call("GET", f"/groups/{group['id']}/games", "listGroupGames", status=200)
    call("GET", f"/groups/{group['id']}/stats", "getGroupStats", status=200)
    call("GET", f"/groups/{group['id']}/export.csv", "exportGroup", status=200)
    call("POST", f"/groups/{group['id']}/token", "rotateGroupToken", token=group_token, status=200)

    for route, body in verdicts().items():
        call("POST", f"/judge/{route}", f"judge {route}", body, status=200)
    verdict, refused = scene.refused_verdict
    found["problem invalid verdict"] = call("POST", f"/judge/{game_type.name}/{verdict}", body=refused, status=422)
    found["getRules 200"] = rules = call("GET", f"/rules/{game_type.name}", status=200)
    found["listRules 200"] = [game for game in call("GET", "/rules", status=200) if game == rules]
    for _ in range(20):  # the rest of the minute's budget, then its refusal
        created = client.post("/api/v1/games", json={**create, "players": alone})
        if created.status_code == 429:
            found["problem too many games"] = created.get_json()
            break
    else:
        raise AssertionError("no 429 after the minute's budget of new games")
    found["problem database unavailable"] = _database_unavailable(app)
    return found


def _database_unavailable(app) -> dict:
    """The 503 of a request whose database did not answer (what ``errors.database_unavailable``
    sends; no scratch database can be made to fail on cue)."""
    from referee.api.errors import database_unavailable

    with app.test_request_context("/api/v1/games"):
        return database_unavailable(TimeoutError()).get_json()


# ---------------------------------------------------------------- stable stand-ins

SECRET_KEYS = ("id", "token", "group", "rematch", "rematch_of", "parent")
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.(\d+))?(?:[+-]\d\d:\d\d|Z)?")
FIRST_TIME = datetime(2026, 3, 6, 19, 30)
URLSAFE = string.ascii_letters + string.digits + "-_"


def _volatile(node: Any, found: dict[str, None]) -> None:
    """The ids, tokens and link secrets in ``node``, in the order met (a dict keeps it)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in SECRET_KEYS and isinstance(value, str) and len(value) >= 8:
                found.setdefault(value)
            elif key == "code" and isinstance(value, str) and "." in value:
                found.setdefault(value.split(".", 1)[1])  # '<link id>.<secret>': the id is met as the link's
            else:
                _volatile(value, found)
    elif isinstance(node, list):
        for value in node:
            _volatile(value, found)


def stand_ins(answers: dict[str, Any]) -> dict[str, Any]:
    """``answers`` with each id, token and secret replaced by a stand-in of its length and alphabet,
    and each time by one of a series a minute apart, in the order the scenario met them: the same
    stand-ins on every run of the scenario."""
    volatile: dict[str, None] = {}
    _volatile(answers, volatile)
    rng = random.Random(34)
    swap = {real: "".join(rng.choice(URLSAFE) for _ in real) for real in volatile}
    pattern = re.compile("|".join(re.escape(real) for real in sorted(swap, key=len, reverse=True)))
    times = sorted({match.group(0) for text in _strings(answers) for match in TIME.finditer(text)})
    when = {real: _stand_in_time(real, rank) for rank, real in enumerate(times)}

    def text(value: str) -> str:
        value = pattern.sub(lambda match: swap[match.group(0)], value) if swap else value
        return TIME.sub(lambda match: when[match.group(0)], value)

    return _map_strings(answers, text)


def _stand_in_time(real: str, rank: int) -> str:
    moment = FIRST_TIME + timedelta(minutes=rank)
    fraction = TIME.fullmatch(real).group(1)
    shown = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if fraction:
        shown += "." + f"{(rank + 1) * 137_911 % 10 ** len(fraction):0{len(fraction)}d}"
    return shown + real[TIME.fullmatch(real).end(1) if fraction else 19:]


def _strings(node: Any):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _map_strings(node: Any, change) -> Any:
    if isinstance(node, str):
        return change(node)
    if isinstance(node, dict):
        return {change(key): _map_strings(value, change) for key, value in node.items()}
    if isinstance(node, list):
        return [_map_strings(value, change) for value in node]
    return node


def recorded() -> dict[str, Any]:
    """The scenario played now on a scratch database, with stable stand-ins. In a process of its
    own (the command's, the test's): the scratch app's limit on creating games stays on the
    Flask-Limiter that every app of the process shares."""
    with tempfile.TemporaryDirectory() as folder:
        app = scratch_app(folder)
        try:
            return stand_ins(play(app))
        finally:
            from referee.models import db

            with app.app_context():
                db.engine.dispose()


@click.command("examples", help="Play the examples' scenario again and rewrite referee/api/examples.json.")
def write_examples() -> None:
    found = recorded()
    EXAMPLES_FILE.write_text(json.dumps(found, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    click.echo(f"{len(found)} examples written to {EXAMPLES_FILE}", err=True)
