"""Names that deceive (issue 16): normalised to NFC, refused when blank after trimming, when they
hold control, invisible or bidi-override characters, or when they read like another player's."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("name", ["Ann\u202e", "A\u200bnn", "Ann\x07", "B\u2028ob", "Cid\ufeff", "   ", "\u3000"])
def test_hidden_characters_and_blank_names_are_refused(api, name):
    body = api.create("ninety-nine", ["Zed", name], expect=422)
    assert body["detail"]


@pytest.mark.parametrize("pair", [["Ann", "\u0410nn"], ["Bob", "B\u043eb"], ["paul", "\u0440aul"], ["ANN", "ann"]])
def test_names_that_read_alike_are_refused(api, pair):
    body = api.create("ninety-nine", pair, expect=422)
    assert "alike" in body["detail"] or "distinct" in body["detail"]


def test_names_are_stored_in_nfc_and_a_decomposed_twin_is_the_same_name(api):
    composed, decomposed = "Zo\u00eb", "Zoe\u0308"
    game = api.create("ninety-nine", [decomposed, "Ann"])
    assert game["players"] == [composed, "Ann"]
    api.move(game, {"type": "play", "player": composed, "card": "5H"})
    api.create("ninety-nine", [composed, decomposed], expect=422)
    assert api.create("ninety-nine", ["Ann", "Анна", "Zoë", "José"])["players"][1] == "Анна"  # other scripts are fine
