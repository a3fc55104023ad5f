"""Schema-driven fuzzing of every operation in openapi.yaml (schemathesis) against the app: no 5xx,
every response valid against the spec (status code, content type, headers, body schema), and a
refused write changes nothing. Half the cases that name a game use a real game and its token,
so the fuzzing reaches the rules engines, not only the 404 path.

Bounded: MAX_EXAMPLES cases per operation and generation mode in CI (fewer in a local run: the
``property_examples`` fixture), derandomized, no shrinking.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

schemathesis = pytest.importorskip("schemathesis")
pytestmark = pytest.mark.slow  # a minute of fuzzing in CI
from schemathesis.config import SchemathesisConfig  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.core.failures import FailureGroup  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance, negative_data_rejection, response_headers_conformance,
    response_schema_conformance, status_code_conformance,
)

ROOT = Path(__file__).resolve().parents[2]
MAX_EXAMPLES = 50
# Not positive_data_acceptance: a schema-valid request may still break a rule of the game (one
# player, a card already on the pile...) and is rightly refused with a 422.
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_headers_conformance, response_schema_conformance]


# schemathesis's own list of refusals, and 413: a request that breaks the schema may also be too
# large, and its 413 is as much a refusal as a 422
# (the fuzzer draws such bodies now and then, e.g. long strings in every card of 69's sets).
CONFIG = SchemathesisConfig.from_dict({"checks": {"negative_data_rejection": {
    "expected-statuses": ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]}}})


def load_schema(app):
    """openapi.yaml at the root; until it exists, the spec the app serves (the same document:
    tests/api/test_openapi.py keeps them equal)."""
    path = ROOT / "openapi.yaml"
    if path.exists():
        schema = schemathesis.openapi.from_path(str(path), config=CONFIG)
    else:
        spec = json.loads(json.dumps(app.extensions["referee_api"].spec.to_dict()))
        schema = schemathesis.openapi.from_dict(spec, config=CONFIG)
    schema.app = app
    return schema


def header(response, name: str) -> str:
    for key, value in response.headers.items():
        if key.lower() == name:
            return value[0] if isinstance(value, list) else value
    return ""


def operations(app):
    return [result.ok() for result in load_schema(app).get_all_operations()]


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=["positive", "negative"])
def test_every_operation_against_the_spec(app, api, mode, monkeypatch, property_examples):
    monkeypatch.setitem(app.config, "EVENTS_MAX_SECONDS", 0.05)  # an event stream ends at once here
    game = api.create("ninety-nine", ["Ann", "Bob", "Cid"])
    client = app.test_client()
    failures: dict[tuple, str] = {}  # (operation, check, status) -> the first report of it
    checks = CHECKS + ([negative_data_rejection] if mode == GenerationMode.NEGATIVE else [])

    for operation in operations(app):
        @settings(max_examples=property_examples(MAX_EXAMPLES), deadline=None, database=None, derandomize=True,
                  phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy(generation_mode=mode), real=st.booleans())
        def run(case, real):
            params = case.path_parameters or {}
            uses_real = real and "game_id" in params
            if uses_real:
                params["game_id"] = game["id"]
                if operation.definition.raw.get("security"):  # the game's token, as its securitySchemes say
                    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {game['token']}"}
            before = client.get(f"/api/v1/games/{game['id']}").get_json()
            try:
                response = case.call_and_validate(checks=checks)
            except (FailureGroup, Exception) as exc:  # collect: one run reports every failing operation
                text = str(exc)
                kind = tuple(line.strip() for line in text.splitlines()
                             if line.strip().startswith(("- ST", "[")))[:2]
                failures.setdefault((operation.label, kind), f"{operation.label}: {text[:1500]}")
                return
            if operation.label.endswith("/token") and response.status_code == 200 and uses_real:
                game["token"] = response.json()["token"]  # rotated: the real cases use the new token
            if response.status_code >= 400:
                content_type = header(response, "content-type")
                assert content_type.startswith("application/problem+json"), \
                    (operation.label, response.status_code, content_type)
                after = client.get(f"/api/v1/games/{game['id']}").get_json()
                assert after == before, (operation.label, case.body, response.status_code)

        try:
            run()
        except Unsatisfiable:  # nothing to make invalid (no parameters, no body): nothing to test
            assert mode == GenerationMode.NEGATIVE, operation.label
    assert not failures, "\n\n".join(failures.values())
