"""Conditional requests as RFC 9110 defines them (issue 34): If-Match compares strongly (a weak tag
is a 412), If-None-Match weakly (W/"3" is "3"); a tag sent without its quotes means the quoted one in
both headers; If-None-Match is honoured on every GET that sends an ETag, the table at a past version
(`?at=`) included; and a tag names one table forever, `?at=` too."""
from __future__ import annotations

import pytest

PLAYERS = ["Ann", "Bob", "Cid"]


def auth(game, **more) -> dict:
    return {"Authorization": f"Bearer {game['token']}", **more}


def move(client, game, card, **headers):
    return client.post(f"/api/v1/games/{game['id']}/moves", headers=auth(game, **headers),
                       json={"type": "play", "player": client.get(f"/api/v1/games/{game['id']}").get_json()["to_play"],
                             "card": card})


@pytest.mark.parametrize("if_match", ['W/"0"', 'W/"0", W/"1"', "W/0"])
def test_a_weak_tag_in_if_match_is_a_412_and_changes_nothing(client, api, if_match):
    game = api.create("ninety-nine", PLAYERS)
    refused = move(client, game, "5H", **{"If-Match": if_match})
    assert refused.status_code == 412, refused.get_json()
    assert refused.mimetype == "application/problem+json" and refused.headers["ETag"] == '"0"'
    assert api.state(game)["version"] == 0


@pytest.mark.parametrize("if_match", ['"0"', "0", '"7", "0"', "7, 0", "*"])
def test_if_match_takes_the_tag_quoted_or_not_in_a_list_or_any(client, api, if_match):
    game = api.create("ninety-nine", PLAYERS)
    assert move(client, game, "5H", **{"If-Match": if_match}).status_code == 201
    assert api.state(game)["version"] == 1


@pytest.mark.parametrize("stale", ['"0"', "0"])
def test_a_stale_tag_quoted_or_not_is_a_412(client, api, stale):
    game = api.create("ninety-nine", PLAYERS)
    assert move(client, game, "5H").status_code == 201
    refused = move(client, game, "6H", **{"If-Match": stale})
    assert refused.status_code == 412 and refused.headers["ETag"] == '"1"'
    assert api.state(game)["version"] == 1


@pytest.mark.parametrize("if_none_match", ['"1"', "1", 'W/"1"', "W/1", '"0", "1"', "*"])
def test_if_none_match_compares_weakly_and_takes_unquoted_tags(client, api, if_none_match):
    game = api.create("ninety-nine", PLAYERS)
    assert move(client, game, "5H").status_code == 201
    answer = client.get(f"/api/v1/games/{game['id']}", headers={"If-None-Match": if_none_match})
    assert answer.status_code == 304 and answer.headers["ETag"] == '"1"', if_none_match
    changed = client.get(f"/api/v1/games/{game['id']}", headers={"If-None-Match": '"0", W/"2"'})
    assert changed.status_code == 200 and changed.get_json()["version"] == 1


def test_a_past_table_has_a_tag_of_its_own_forever_and_honours_if_none_match(client, api):
    game = api.create("ninety-nine", PLAYERS)
    assert move(client, game, "5H").status_code == 201
    first = client.get(f"/api/v1/games/{game['id']}?at=1")
    assert first.status_code == 200
    tag = first.headers["ETag"]
    assert first.get_json()["etag"] == tag.strip('"') and first.get_json()["total"] == 5
    again = client.get(f"/api/v1/games/{game['id']}?at=1", headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.headers["ETag"] == tag
    # the first table's tag never changes; the table at 1 after an undo and another move is another table
    start = client.get(f"/api/v1/games/{game['id']}?at=0").headers["ETag"]
    assert client.post(f"/api/v1/games/{game['id']}/undo", headers=auth(game)).status_code == 200
    assert move(client, game, "7H").status_code == 201
    other = client.get(f"/api/v1/games/{game['id']}?at=1", headers={"If-None-Match": tag})
    assert other.status_code == 200 and other.get_json()["total"] == 7
    assert other.headers["ETag"] != tag and other.headers["ETag"] != client.get(
        f"/api/v1/games/{game['id']}").headers["ETag"]
    assert client.get(f"/api/v1/games/{game['id']}?at=0", headers={"If-None-Match": start}).status_code == 304


def test_get_game_documents_if_none_match_and_its_304(app):
    spec = app.extensions["referee_api"].spec.to_dict()
    path = spec["paths"]["/api/v1/games/{game_id}"]
    parameters = path.get("parameters", []) + path["get"].get("parameters", [])
    assert any(p["name"] == "If-None-Match" and p["in"] == "header" for p in parameters)
    assert any(p["name"] == "at" and p["in"] == "query" for p in parameters)
    assert "304" in path["get"]["responses"]


# ---------------------------------------------------------------- the smaller points of the contract (issue 34)

def _walk(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def test_every_nullable_enum_of_the_spec_lists_null(app):
    spec = app.extensions["referee_api"].spec.to_dict()
    enums = [schema for schema in _walk(spec) if schema.get("nullable") and "enum" in schema]
    assert enums  # Ninety-nine's declared value, the decks options...
    assert all(None in schema["enum"] for schema in enums), [s for s in enums if None not in s["enum"]]


def test_the_problem_schema_names_every_member_a_refusal_sends(app, client):
    spec = app.extensions["referee_api"].spec.to_dict()
    members = set(spec["components"]["schemas"]["Problem"]["properties"])
    refused = client.post("/api/v1/games", json={"game": "no-such-game", "players": ["Ann", "Bob"]})
    assert refused.status_code in (404, 422) and set(refused.get_json()) <= members, refused.get_json()
    bad = client.post("/api/v1/games/import", json={"format": "referee-game", "format_version": 1, "game": "nines",
                                                    "players": ["Ann", "Bob"], "options": {}, "moves": [{"seq": "x"}]})
    assert bad.status_code == 422 and "errors" in bad.get_json() and set(bad.get_json()) <= members


def test_logged_moves_carry_their_time_with_its_offset(client, api):
    game = api.create("ninety-nine", PLAYERS)
    assert move(client, game, "5H").status_code == 201
    logged = client.get(f"/api/v1/games/{game['id']}/moves").get_json()["moves"][0]["created_at"]
    assert logged.endswith("+00:00"), logged


def test_a_minimal_answer_fits_the_game_schema(app, client, api):
    """Under Prefer: return=minimal the answer leaves out the finished rounds, which the schema then
    must not require (a generated client raised on it)."""
    game = api.create("ninety-nine", PLAYERS)
    answer = move(client, game, "5H", Prefer="return=minimal").get_json()
    assert "rounds" not in answer
    spec = app.extensions["referee_api"].spec.to_dict()
    required = set(spec["components"]["schemas"]["Game"].get("required", []))
    assert required <= set(answer), required - set(answer)


def test_the_move_log_pages_name_the_next_page_in_the_body_and_the_link_header(client, api):
    game = api.create("ninety-nine", PLAYERS)
    for card in ("2H", "3H", "4H", "5H", "6H"):
        assert move(client, game, card).status_code == 201
    url, seqs = f"/api/v1/games/{game['id']}/moves?limit=2", []
    while url:
        page = client.get(url)
        body = page.get_json()
        seqs += [entry["seq"] for entry in body["moves"]]
        link = page.headers.get("Link")
        assert (link is None) is (body["next"] is None)
        if link:
            assert link == f'<{body["next"]}>; rel="next"' and body["next"].startswith("http")
        url = body["next"]
    assert seqs == [1, 2, 3, 4, 5]


def test_the_headers_answers_carry_are_documented(app):
    """ETag on a state, Retry-After on a 429 and a 503 (the default error), the rate limit's
    X-RateLimit-* on a 429 and on a creation's 201."""
    spec = app.extensions["referee_api"].spec.to_dict()

    def headers(response):
        if "$ref" in response:
            response = spec["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
        return set(response.get("headers", {}))

    operations = [op for path in spec["paths"].values() for op in path.values() if isinstance(op, dict)
                  and "responses" in op]
    for op in operations:
        responses = op["responses"]
        assert "Retry-After" in headers(responses["default"]), op["operationId"]
        if "429" in responses:
            assert {"Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining"} <= headers(responses["429"])
        if "412" in responses:
            assert "ETag" in headers(responses["412"]), op["operationId"]
    by_id = {op["operationId"]: op for op in operations}
    for name in ("getGame", "applyMove", "undoMove", "createGame", "importGame"):
        ok = next(code for code in by_id[name]["responses"] if code.startswith("2"))
        assert "ETag" in headers(by_id[name]["responses"][ok]), name
    assert "X-RateLimit-Remaining" in headers(by_id["createGame"]["responses"]["201"])
