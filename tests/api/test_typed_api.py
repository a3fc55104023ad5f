"""The typed API: every game's moves, options, state and verdicts are named schemas read from the
engines' declarations, the document passes openapi-spec-validator, and a client generated from it
with openapi-python-client has a class for every move of every game and plays a whole game of
Ninety-nine against the running service."""
from __future__ import annotations

import importlib
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from openapi_spec_validator import validate

from referee.api.declared import camel, hideable
from referee.rules import ENGINES
from referee.rules.base import public_move

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules"))  # the random players' own package
from players import player_for, quick_options, table_for  # noqa: E402


@pytest.fixture(scope="module")
def spec(app) -> dict:
    return json.loads(json.dumps(app.extensions["referee_api"].spec.to_dict()))


def test_the_document_passes_openapi_spec_validator(spec):
    validate(spec)


def test_every_operation_has_an_operation_id(spec):
    ids = [op.get("operationId") for path in spec["paths"].values() for op in path.values() if isinstance(op, dict)
           and "responses" in op]
    assert all(ids) and len(ids) == len(set(ids)), ids


def test_each_game_types_its_moves_options_state_and_verdicts(spec):
    schemas = spec["components"]["schemas"]
    for name, engine in ENGINES.items():
        prefix = camel(name)
        union = schemas[f"{prefix}Move"]
        assert union["discriminator"]["propertyName"] == "type"
        assert set(union["discriminator"]["mapping"]) == set(engine.moves)
        for kind, move in engine.moves.items():
            schema = schemas[prefix + camel(kind)]
            assert schema["properties"]["type"]["enum"] == [kind]
            assert set(schema["properties"]) == {"type", *move.field_names()}
            assert schema["additionalProperties"] is False
        assert set(schemas[f"{prefix}Options"]["properties"]) == set(engine.options)
        assert f"{prefix}State" in schemas
        for verdict in engine.judges:
            assert f"{prefix}{camel(verdict)}Verdict" in schemas and f"{prefix}{camel(verdict)}VerdictRequest" in schemas
    assert schemas["NinetyNinePlay"]["required"] == ["type", "card"]  # the player to play is implied (G-1)
    moves = spec["paths"]["/api/v1/games/{game_id}/moves"]["post"]
    assert moves["requestBody"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/AnyMove"}


@pytest.fixture(scope="module")
def generated_client(spec, tmp_path_factory):
    """A client package generated from the served document by openapi-python-client."""
    where = tmp_path_factory.mktemp("client")
    (where / "spec.json").write_text(json.dumps(spec))
    (where / "config.yaml").write_text("post_hooks: []\n")
    subprocess.run([sys.executable, "-m", "openapi_python_client", "generate", "--path", str(where / "spec.json"),
                    "--output-path", str(where / "referee_client"), "--meta", "none",
                    "--config", str(where / "config.yaml")], check=True, capture_output=True, text=True)
    sys.path.insert(0, str(where))
    try:
        yield importlib.import_module("referee_client")
    finally:
        sys.path.remove(str(where))


def test_the_generated_client_has_a_class_for_every_move(generated_client):
    models = importlib.import_module("referee_client.models")
    for name, engine in ENGINES.items():
        for kind in engine.moves:
            assert hasattr(models, camel(name) + camel(kind)), f"no class for {name} {kind}"


FAST = {"ninety-nine": {"tokens": 1, "decks": 1}, "nines": {"target": 40}, "sixty-nine": {"target": 25},
        "five-crowns": {}, "xix": {}}  # short games: each is played to its end
SEATS = {"xix": ["Ann", "Bob"]}


@pytest.mark.parametrize("record", ["moves", "rounds"])
@pytest.mark.parametrize("name", list(ENGINES))
def test_the_generated_client_plays_a_whole_game_with_typed_states(generated_client, live_server, name, record):
    """Issue 34: a client generated from the spec plays a whole game of each of the five in both
    ways of recording (T-4; the random players also switch between rounds), its token sent by the
    client's own AuthenticatedClient, every move through the game's typed move class; every answer
    is the game's typed state with no field the spec does not declare (no additional_properties),
    and the fields a table reads are typed attributes."""
    models = importlib.import_module("referee_client.models")
    apply_move = importlib.import_module("referee_client.api.games.apply_move")
    create_game = importlib.import_module("referee_client.api.games.create_game")
    engine = ENGINES[name]
    if "record" not in engine.options and record != "moves":
        pytest.skip("the game records every move only (it has no option 'record', T-4)")
    random_move = player_for(engine)  # its random player (tests/rules/players), or the generic one
    players = SEATS.get(name) or table_for(engine)
    options = {**(FAST[name] if name in FAST else quick_options(engine)),
               **({"record": record} if "record" in engine.options else {})}
    prefix = camel(name)
    created = create_game.sync(client=generated_client.Client(base_url=live_server), body=models.CreateGame.from_dict(
        {"game": name, "players": players, "options": options}))
    assert isinstance(created, getattr(models, f"Created{prefix}State")), created
    assert created.additional_properties == {}
    if "record" in engine.options:
        assert created.record.value == record
    client = generated_client.AuthenticatedClient(base_url=live_server, token=created.token)
    typed = {kind: getattr(models, prefix + camel(kind)) for kind in engine.moves}

    rng, state, last, made = random.Random(7), engine.new_game(players, options), created, []
    while engine.outcome(state)["status"] != "finished":
        move = random_move(state, engine.allowed(state), rng)
        state = engine.apply(state, move)
        last = apply_move.sync(game_id=created.id, client=client, body=typed[move["type"]].from_dict(move))
        assert isinstance(last, getattr(models, f"{prefix}State")), last
        assert last.additional_properties == {}, sorted(last.additional_properties)
        assert last.round_ == state.get("round", last.round_) and isinstance(last.lower_is_better, bool)
        made.append(move)
        assert len(made) < 6000
    assert last.status.value == "finished" and sorted(last.winners) == sorted(engine.outcome(state)["winners"])
    assert last.round_label == engine.round_label
    read_the_log_typed(client, created.id, engine, players, made)


def read_the_log_typed(client, game_id: str, engine, players: list[str], made: list[dict]) -> None:
    """The game's log through the client: the game's typed move log, each logged move an instance of
    the game's class for its type (``<Game><Move>Logged`` where G-5 may leave fields out, named in
    ``hidden``; tests/api/test_spec_examples.py holds one), holding what was sent, as anyone may see
    it, with the player named."""
    models = importlib.import_module("referee_client.models")
    get_move_log = importlib.import_module("referee_client.api.games.get_move_log")
    prefix, entries, after = camel(engine.name), [], 0
    while True:
        page = get_move_log.sync(game_id=game_id, client=client, after=after, limit=1000)
        assert isinstance(page, getattr(models, f"{prefix}MoveLog")), page
        entries += page.moves
        if not page.next_:
            break
        after = page.moves[-1].seq
    assert [entry.seq for entry in entries] == list(range(1, len(made) + 1))
    for entry, sent in zip(entries, made):
        kind, logged = sent["type"], entry.move
        assert type(logged).__name__ == prefix + camel(kind) + ("Logged" if hideable(engine.moves[kind]) else "")
        assert logged.type_.value == kind and not entry.voided
        seen, expected = logged.to_dict(), public_move(engine, sent)
        assert {name: seen.get(name) for name in expected} == expected, (seen, expected)
        actor = engine.moves[kind].actor  # named in the log where the move left it implied (G-1)
        assert set(seen) - set(expected) <= {actor} and seen.get(actor, players[0]) in players, seen


def test_the_generated_client_creates_a_game_in_a_group_with_the_groups_token(generated_client, live_server):
    """createGame takes the group's token as the spec's groupToken scheme (optional: a game outside
    a group needs none): the generated AuthenticatedClient sends it."""
    models = importlib.import_module("referee_client.models")
    create_group = importlib.import_module("referee_client.api.groups.create_group")
    create_game = importlib.import_module("referee_client.api.games.create_game")
    plain = generated_client.Client(base_url=live_server)
    group = create_group.sync(client=plain, body=models.GroupName.from_dict({"name": "Fridays"}))
    body = models.CreateGame.from_dict({"game": "nines", "players": ["Ann", "Bob"], "group": group.id})
    refused = create_game.sync_detailed(client=plain, body=body)
    assert refused.status_code == 401
    holder = generated_client.AuthenticatedClient(base_url=live_server, token=group.token)
    created = create_game.sync(client=holder, body=body)
    assert isinstance(created, models.CreatedNinesState) and created.group == group.id


def test_a_logged_move_may_leave_out_what_its_private_rule_names():
    """``hideable``: XIX's trade leaves out its cards (from the closed hand both, from the open one the
    strike card); a private rule that reads more than the choices of its move may hide any field."""
    from referee.rules.base import Move
    from referee.rules.fields import Card, Player

    assert hideable(ENGINES["xix"].moves["trade"]) == ["card", "strike_card"]
    assert hideable(ENGINES["xix"].moves["play"]) == []
    fields = (Player("player"), Card("card"))
    by_rank = Move(lambda state, move: None, fields, "", (),
                   private=lambda move: ("card",) if move["card"][0] > "5" else ())
    assert hideable(by_rank) == ["player", "card"]
