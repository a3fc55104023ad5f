"""Player names that a table could mistake for one another: Latin ``Ann`` and Cyrillic ``Аnn``
look alike on a phone. Each name is reduced to a skeleton (each character replaced by the Latin
letter it can be confused with, per Unicode's confusables data, then case-folded); two names with
one skeleton are refused. Used where games are created; the rules core stays standard-library
only."""
from __future__ import annotations

from functools import lru_cache

from referee.errors import InvalidInput
from referee.texts import T


@lru_cache(maxsize=4096)
def _latin(ch: str) -> str:
    if ch.isascii():
        return ch
    # imported on the first name that needs it: its data is 6 MiB in every worker otherwise
    from confusable_homoglyphs import confusables

    found = confusables.is_confusable(ch, greedy=True, preferred_aliases=["latin"]) or []
    for entry in found:
        for glyph in entry["homoglyphs"]:
            if glyph["n"].startswith("LATIN") or glyph["c"].isascii():
                return glyph["c"]
    return ch


def skeleton(name: str) -> str:
    return "".join(_latin(ch) for ch in name).casefold()


def refuse_confusable(names: list[str]) -> None:
    """Refuse two names of one game that read alike."""
    seen: dict[str, str] = {}
    for name in names:
        key = skeleton(name)
        if key in seen and seen[key] != name:
            raise InvalidInput(T("Player names {first} and {second} look alike (letters from different scripts); "
                                 "give them names that read differently.", first=repr(seen[key]), second=repr(name)))
        seen[key] = name
