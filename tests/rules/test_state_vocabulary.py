"""One vocabulary for the public state (issue 34): every engine declares its state (``VIEW``), the
view holds exactly the declared fields plus the contract's own, each of its declared type, in
random whole games; a shared thing has its shared name, never a synonym; and docs/api.md lists the
shared vocabulary with the words the declarations give."""
from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from referee.api.schemas import GameSchema
from referee.rules import ENGINES, vocabulary
from referee.rules.base import public_state
from test_engine_contract import GAMES, play_random_game

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"
CONTRACT = set(GameSchema().fields) | {"phase", "events", "outcome", "allowed", "adjustments"}


def json_schema(schema):
    """An OpenAPI 3.0 schema as JSON Schema: ``nullable`` becomes a null alternative."""
    if isinstance(schema, list):
        return [json_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    plain = {k: json_schema(v) for k, v in schema.items() if k not in ("nullable", "example")}
    if schema.get("nullable"):
        return {"anyOf": [plain, {"type": "null"}]}
    return plain


def declared(engine) -> dict:
    view = (*vocabulary.COMMON, *((vocabulary.RECORD,) if "record" in engine.options else ()), *engine.view)
    return {field.name: field for field in view}


@pytest.mark.parametrize("engine", list(ENGINES.values()), ids=list(ENGINES))
def test_each_engine_declares_its_state_in_the_shared_vocabulary(engine):
    fields = declared(engine)
    assert not set(fields) & set(vocabulary.SYNONYMS), "a shared thing under another name"
    for name, field in fields.items():
        if name in vocabulary.SHARED:  # the shared declaration itself: one type, one meaning
            assert field.schema() == vocabulary.SHARED[name].schema() or name == "discard_top", name
    assert not set(fields) & CONTRACT - {"round"}, "a field the contract already declares"


@pytest.mark.parametrize("engine", list(ENGINES.values()), ids=list(ENGINES))
def test_every_view_holds_exactly_the_declared_fields_of_their_declared_types(engine):
    fields = declared(engine)
    validators = {name: jsonschema.Draft202012Validator(json_schema(field.schema())) for name, field in fields.items()}
    checked = 0
    for seed in range(GAMES // 3):
        states, _moves, _cited = play_random_game(engine, seed)
        for state in states[:: max(1, len(states) // 60)] + states[-1:]:
            view = public_state(engine, state)
            assert set(view) - CONTRACT == set(fields), (sorted(set(view) - CONTRACT - set(fields)),
                                                         sorted(set(fields) - set(view)))
            for name, validator in validators.items():
                errors = [e.message for e in validator.iter_errors(view[name])]
                assert not errors, (engine.name, name, view[name], errors[:3])
            checked += 1
    assert checked


def test_docs_api_lists_the_shared_vocabulary():
    text = DOC.read_text()
    for name, field in vocabulary.SHARED.items():
        assert f"- `{name}`: {field.description}" in text, name
    for old, new in vocabulary.SYNONYMS.items():
        assert f"`{old}`" in text and new in text, old
