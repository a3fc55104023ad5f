"""Issue 34: every request and response body of the OpenAPI document has an example, every example
fits its schema, and every example is what the service really sends or answers (referee.api.examples:
its scenario, played again here on a scratch database, gives the same answers but for ids, tokens
and times)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from openapi_schema_validator import OAS30Validator, oas30_format_checker

from referee.api import examples
from test_xix_http import BOB, PLAYERS, _to_the_trade  # a XIX game to its trade

ROOT = Path(__file__).resolve().parents[2]
REGENERATE = "regenerate them with `flask --app wsgi openapi examples`, then `openapi write` (referee/api/examples.py)"


@pytest.fixture(scope="module")
def spec() -> dict:
    """openapi.yaml: the service's document (tests/api/test_openapi.py keeps it the one served), with
    its own games only (the tests' games have no examples)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's: a tenth of the time
    return yaml.load((ROOT / "openapi.yaml").read_text(encoding="utf-8"), Loader=loader)


def resolve(spec: dict, node: dict) -> dict:
    while isinstance(node, dict) and "$ref" in node:
        found = spec
        for part in node["$ref"].removeprefix("#/").split("/"):
            found = found[part]
        node = found
    return node


def bodies(spec: dict) -> Iterator[tuple[str, dict]]:
    """Every request and response body of every operation: (where, its media type object)."""
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            parts = [("request", operation.get("requestBody"))] + list(operation["responses"].items())
            for part, body in parts:
                for media_type, media in (resolve(spec, body or {}).get("content") or {}).items():
                    yield f"{method.upper()} {path} {part} {media_type}", media


def example_of(spec: dict, media: dict):
    """The media type's example, else its schema's (a component's own, such as Problem's)."""
    if "example" in media:
        return media["example"]
    return resolve(spec, media.get("schema", {})).get("example")


def test_every_body_has_an_example(spec):
    found = list(bodies(spec))
    missing = [where for where, media in found if example_of(spec, media) is None]
    assert len(found) > 150 and not missing, "bodies without an example:\n" + "\n".join(missing)


def validator(spec: dict, schema: dict) -> OAS30Validator:
    """A validator of ``schema``, whose $refs (``#/components/...``) it finds beside it."""
    return OAS30Validator({**schema, "components": spec["components"]}, format_checker=oas30_format_checker)


def branch(spec: dict, schema: dict, value) -> dict:
    """The schema that ``value`` is an instance of: under a oneOf with a discriminator, the branch its
    discriminating member names (each level of them); otherwise ``schema``."""
    schema = resolve(spec, schema)
    while "discriminator" in schema and isinstance(value, dict):
        chosen = schema["discriminator"]["mapping"].get(value.get(schema["discriminator"]["propertyName"]))
        assert chosen is not None, (schema["discriminator"], value)
        schema = resolve(spec, {"$ref": chosen})
    return schema


def test_every_example_fits_its_schema(spec):
    wrong = []
    for where, media in bodies(spec):
        value = example_of(spec, media)
        schema = branch(spec, media.get("schema", {}), value)
        if schema.get("type") == "array" and isinstance(value, list):  # listRules: each of its games
            items = [(branch(spec, schema["items"], item), item) for item in value]
        else:
            items = [(schema, value)]
        for item_schema, item in items:
            errors = sorted(validator(spec, item_schema).iter_errors(item), key=str)
            wrong += [f"{where}: {error.message} at {list(error.absolute_path)}" for error in errors[:3]]
    assert not wrong, "\n".join(wrong)


def test_an_example_that_breaks_its_schema_is_found(spec):
    """The check above can fail: a state without its version does not fit NinetyNineState."""
    state = {k: v for k, v in examples.example("getGame 200").items() if k != "version"}
    schema = branch(spec, {"$ref": "#/components/schemas/AnyGame"}, state)
    assert any("'version' is a required property" in error.message
               for error in validator(spec, schema).iter_errors(state))


CSV_ID = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{16}(?![A-Za-z0-9_-])")


def comparable(node):
    """An example with its times masked, and in a stable order where the service's own order rests
    on random ids (two games created at the same moment: an import keeps its record's time)."""
    if isinstance(node, str):
        text = examples.TIME.sub("<time>", node)
        if "\r\n" not in text:
            return text
        # a CSV's rows, their ids masked: the stand-ins follow the order the ids first appear in,
        # and two games created at the same moment may come in either order
        return "\n".join(sorted(CSV_ID.sub("<id>", text).split("\r\n")))
    if isinstance(node, dict):
        return {key: comparable(value) for key, value in node.items()}
    if isinstance(node, list):
        items = [comparable(value) for value in node]
        if all(isinstance(item, dict) and "id" in item for item in items):
            items.sort(key=lambda item: item["id"])
        return items
    return node


def played_now(tmp_path) -> dict:
    """The scenario played now, in a process of its own: its app's limit on creating games (which
    the 429 needs) would otherwise stay on the Flask-Limiter this process's apps share."""
    out = tmp_path / "examples.json"
    subprocess.run([sys.executable, "-c", "import json, sys; from referee.api.examples import recorded; "
                    "open(sys.argv[1], 'w').write(json.dumps(recorded()))", str(out)],
                   cwd=ROOT, check=True, capture_output=True)
    return json.loads(out.read_text())


def test_the_examples_are_what_the_service_answers(tmp_path):
    stored, now = examples.examples(), played_now(tmp_path)
    assert set(now) == set(stored), f"the scenario's examples changed: {REGENERATE}"
    stale = [name for name in now if comparable(now[name]) != comparable(stored[name])]
    assert not stale, (f"no longer what the service answers: {', '.join(stale)}; {REGENERATE}. First: "
                       f"{json.dumps(now[stale[0]])[:1500]}")


def test_the_examples_come_from_one_table():
    """The examples tell one story: the state a write answered is the one the log and the next GET show."""
    log = examples.example("getMoveLog 200")
    undone = examples.example("undoMove 200")
    assert log["id"] == undone["id"] == examples.example("createGame 201")["id"]
    assert log["version"] == undone["version"] == 2 and [entry["voided"] for entry in log["moves"]] == [
        False, False, True]
    assert examples.example("importGame request") == examples.example("exportGame 200")
    assert examples.example("rematch 201")["rematch_of"] == undone["id"]


def test_a_move_logged_with_fields_left_out_fits_the_games_logged_move(api, client, spec):
    """G-5: a XIX trade from the closed hand is logged without its cards, named in ``hidden``; the
    log still fits XixMoveLog (its trade is XixTradeLogged), and the same entry with a field the
    log never holds does not."""
    game = api.create("xix", PLAYERS)
    _to_the_trade(api, game)
    api.move(game, {"type": "trade", "player": BOB, "card": 11, "from": "closed", "slot": 2, "strike_card": 9})
    log = client.get(f"/api/v1/games/{game['id']}/moves").get_json()
    assert log["moves"][-1]["move"]["hidden"] == ["card", "strike_card"]
    schema = branch(spec, {"$ref": "#/components/schemas/AnyMoveLog"}, log)
    assert schema == spec["components"]["schemas"]["XixMoveLog"]
    assert list(validator(spec, schema).iter_errors(log)) == []
    log["moves"][-1]["move"]["hidden"].append("slot")  # a field the trade never leaves out
    assert any("is not one of" in error.message for error in validator(spec, schema).iter_errors(log))
