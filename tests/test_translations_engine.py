"""The engine catalogue (issue 15, "Languages"): marked texts read as English and keep what a
translation needs; every msgid the source marks is translated into German in engine.po, with the
same {params} and ruling ids; the committed engine.mo is engine.po compiled."""
from __future__ import annotations

import copy
import json
import pickle
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from referee import jsonio
from referee.rules import ninety_nine, xix
from referee.texts import N_, T, Text, fields_of, joined, translate, unpack

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "referee" / "translations" / "de" / "LC_MESSAGES"
RULING_ID = re.compile(r"\b(?:G|T|N99|N9|FC|X19|S69)-\d+\b")
GERMAN = {"{card} must be declared as {a} or {b}.": "{card} muss als {a} oder {b} angesagt werden.",
          "{n} tokens": "{n} Chips", "a token": "einen Chip",
          "{player} {what}: {player} loses {tokens}": "{player} {what}: {player} verliert {tokens}",
          "reached {total}": "hat {total} erreicht"}


def german(msgid: str) -> str:
    return GERMAN.get(msgid, msgid)


# ---------------------------------------------------------------- marked texts

def test_a_marked_text_reads_as_its_english_sentence():
    text = T("{card} must be declared as {a} or {b}.", card="10H", a=10, b=-10)
    assert text == "10H must be declared as 10 or -10." and isinstance(text, str)
    assert text.msgid == "{card} must be declared as {a} or {b}." and text.params == {"card": "10H", "a": 10, "b": -10}
    assert json.dumps({"detail": text}) == '{"detail": "10H must be declared as 10 or -10."}'
    assert N_("{player} forgot to draw") == "{player} forgot to draw"  # a static string is not formatted


def test_translate_formats_the_translated_msgid_and_translates_nested_texts():
    tokens = T("{n} tokens", n=2)
    event = T("{player} {what}: {player} loses {tokens}", player="Ann", what=T("reached {total}", total=40),
              tokens=tokens)
    assert event == "Ann reached 40: Ann loses 2 tokens"
    assert translate(event, german) == "Ann hat 40 erreicht: Ann verliert 2 Chips"
    assert translate(joined([N_("a token"), tokens], " / "), german) == "einen Chip / 2 Chips"
    assert translate("plain", german) == "plain" and translate(7, german) == 7


def test_a_broken_translation_falls_back_to_english():
    text = T("{n} tokens", n=3)
    assert translate(text, lambda msgid: "{count} Chips") == "3 tokens"


def test_marked_texts_survive_copies_pickles_and_storage():
    text = T("{player} plays {card}", player="Ann", card=T("{n} tokens", n=2))
    state = {"events": [{"text": text, "rule": "N99-3"}], "why": joined([N_("a token"), text])}
    assert copy.deepcopy(state)["events"][0]["text"] is text
    assert pickle.loads(pickle.dumps(text)).params == text.params
    stored = json.loads(jsonio.stored(state))  # what the JSON column holds
    back = unpack(stored)
    assert back == state
    assert isinstance(back["events"][0]["text"], Text) and back["events"][0]["text"].msgid == text.msgid
    assert translate(back["why"], german) == "einen Chip Ann plays 2 Chips"
    assert unpack({"$text": 1, "params": {}}) == {"$text": 1, "params": {}}  # not a text: left alone


def test_a_finished_round_is_encoded_once_and_written_as_before(monkeypatch):
    """``jsonio.storable`` (the state column's bind value) gives each finished round's entry the JSON
    encoded for that entry object before: the bytes written are the ones ``stored`` writes afresh."""
    first = {"round": 1, "breakdown": {"Ann": [{"detail": T("{n} tokens", n=2)}]}}
    second = {"round": 2, "breakdown": {"Ann": [{"detail": joined([N_("a token"), T("{n} tokens", n=1)])}]}}
    state = {"rounds": [first], "events": [{"text": T("{n} tokens", n=3)}]}
    later = {**state, "rounds": [first, second]}  # as rules.base.next_state shares the entries
    assert jsonio.stored(jsonio.storable(later)) == jsonio.stored(later)
    assert jsonio.storable(state)["rounds"][0] is jsonio.storable(later)["rounds"][0]  # not encoded again
    corrected = {**later, "rounds": [{**first, "round": 9}, second]}  # replaced, as replace_round does
    assert json.loads(jsonio.stored(jsonio.storable(corrected)))["rounds"][0]["round"] == 9
    assert jsonio.storable({"rounds": []}) == {"rounds": []} and jsonio.storable(None) is None
    monkeypatch.setattr(jsonio, "_ENTRIES", {})
    for number in range(jsonio.ENTRIES_KEPT + 5):  # kept within bounds
        jsonio.storable({"rounds": [{"round": number}]})
        assert len(jsonio._ENTRIES) <= jsonio.ENTRIES_KEPT


def test_engines_mark_their_refusals_events_and_labels():
    with pytest.raises(ninety_nine.IllegalMove) as refused:
        ninety_nine.card_value("10H", 5)
    assert refused.value.rule == "N99-3" and refused.value.detail.msgid == "{card} must be declared as {a} or {b}."
    state = ninety_nine.new_game(["Ann", "Bob"])
    assert isinstance(state["events"][0]["text"], Text)
    assert isinstance(ninety_nine.MOVES["play"].label, Text) and isinstance(xix.OPTIONS["rules"]["description"], Text)
    assert isinstance(ninety_nine.MOVES["missed_draw"].text({"type": "missed_draw", "player": "Ann"}), Text)


# ---------------------------------------------------------------- the catalogue

def extracted() -> dict[str, list[str]]:
    """The engine domain's msgids as Babel extracts them from the source (babel-engine.cfg)."""
    with open(ROOT / "babel-engine.cfg") as config:
        method_map, options_map = parse_mapping_cfg(config)
    found: dict[str, list[str]] = {}
    for filename, lineno, message, _comments, _context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords={"T": None, "N_": None}):
        if isinstance(message, str):
            found.setdefault(message, []).append(f"{filename}:{lineno}")
    return found


def test_extraction_finds_the_engines_words():
    found = extracted()
    assert "{card} must be declared as {a} or {b}." in found
    assert len(found) > 400
    assert not any(path.startswith("referee/web/") for places in found.values() for path in places)


def test_every_engine_msgid_has_a_german_translation_with_the_same_params_and_rulings():
    with open(CATALOGUE / "engine.po", "rb") as po:
        catalogue = read_po(po, locale="de", domain="engine")
    problems = []
    for msgid, places in sorted(extracted().items()):
        entry = catalogue.get(msgid)
        if entry is None or not entry.string:
            problems.append(f"untranslated: {msgid!r} ({places[0]})")
        elif entry.fuzzy:
            problems.append(f"fuzzy: {msgid!r}")
        elif fields_of(msgid) != fields_of(entry.string):
            problems.append(f"params differ: {msgid!r} -> {entry.string!r}")
        elif sorted(RULING_ID.findall(msgid)) != sorted(RULING_ID.findall(entry.string)):
            problems.append(f"ruling ids differ: {msgid!r} -> {entry.string!r}")
    assert not problems, "engine.po is behind the source (docs/development.md, Translations):\n" + "\n".join(problems)


def test_the_committed_mo_is_the_po_compiled():
    with open(CATALOGUE / "engine.po", "rb") as po:
        source = {m.id: m.string for m in read_po(po) if m.id and m.string and not m.fuzzy}
    with open(CATALOGUE / "engine.mo", "rb") as mo:
        compiled = {m.id: m.string for m in read_mo(mo) if m.id}
    assert compiled == source, "engine.mo is stale: compile it (docs/development.md, Translations)"
