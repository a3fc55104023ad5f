"""Player names that show nothing, and names that a table could mistake for one another (issues 16
and 35), judged by Unicode's own data (UTS #39 and the Unicode Character Database) as the
``glyphguard`` package ships it. Checked where names enter (a game's creation, an import, a group's
renames), never when a stored game is replayed; the rules core stays standard-library only.

A name is blank when nothing visible is left once its white space, its default-ignorable code
points (Hangul fillers, variation selectors, the combining grapheme joiner...) and its combining
marks (a mark without a letter to sit on) are set aside.

Two names read alike when their UTS #39 skeletons are one: NFD, default-ignorable code points
removed, each character replaced by its prototype from confusables.txt (Cyrillic ``А`` by Latin
``A``, ``1`` by ``l``), NFD again. Each name is NFKC-folded first, so full-width and mathematical
letters are their plain letters, and skeletons are compared twice: as typed and case-folded (so
``Ｉan`` reads like ``ian``, while ``AI`` and ``AL`` are still two names)."""
from __future__ import annotations

import unicodedata
from functools import lru_cache

from referee.errors import InvalidInput
from referee.texts import T

# U+2800 BRAILLE PATTERN BLANK is a symbol (So), neither White_Space nor Default_Ignorable (in
# braille it is a real cell), so no Unicode property says that it shows nothing; on a screen it is
# an empty square of space, so it is named here.
_NO_GLYPH = frozenset("\u2800")


def _ucd():
    # imported on the first name checked: about 2 MiB and 30 ms once per worker, none before
    from glyphguard import ucd

    return ucd


def _invisible(ch: str) -> bool:
    ucd = _ucd()
    return ch in _NO_GLYPH or ucd.is_white_space(ord(ch)) or ucd.is_default_ignorable(ord(ch))


def _shows_nothing(ch: str) -> bool:
    # a combining mark (Mn, Mc, Me) has no letter of its own to sit on; the interpreter's categories
    # suffice: a character it does not know yet (Cn) is refused by the rules core before this
    return _invisible(ch) or unicodedata.category(ch).startswith("M")


def _shown(name: str, marks: bool = False) -> str:
    """``name`` quoted as ``repr`` does, with its invisible characters (and ``marks``: its combining
    marks) written as escapes, so that a refusal shows what the table would not see."""
    hidden = _shows_nothing if marks else _invisible
    shown = repr(name)
    for ch in sorted(set(name)):
        if ch != " " and ch in shown and hidden(ch):
            shown = shown.replace(ch, ch.encode("unicode_escape").decode("ascii"))
    return shown


@lru_cache(maxsize=4096)
def _keys(name: str) -> tuple[str, str]:
    """The skeleton of ``name`` as typed and of ``name`` case-folded (both NFKC-folded first)."""
    from glyphguard.confusables import skeleton as tr39  # UTS #39 section 4, confusables.txt

    typed = unicodedata.normalize("NFKC", name)
    folded = unicodedata.normalize("NFKC", typed.casefold())
    return tr39(typed), tr39(folded)


def reads_like(first: str, second: str) -> bool:
    """Whether a table could take one name for the other: one skeleton as typed, or case-folded."""
    return any(a == b for a, b in zip(_keys(first), _keys(second)))


def refuse_blank(names: list[str]) -> None:
    """Refuse a name of which nothing shows (only white space, invisible characters or marks)."""
    for name in names:
        if all(_shows_nothing(ch) for ch in name):
            first = name[0]
            raise InvalidInput(T("Player name {name} is blank: it holds only spaces, invisible characters or "
                                 "combining marks ({char}); type the name plainly.", name=_shown(name, marks=True),
                                 char=f"U+{ord(first):04X} {unicodedata.name(first, 'unnamed')}"))


def refuse_confusable(names: list[str]) -> None:
    """Refuse two names of one game that read alike."""
    seen: list[dict[str, str]] = [{}, {}]
    for name in names:
        for key, earlier in zip(_keys(name), seen):
            if key in earlier and earlier[key] != name:
                raise InvalidInput(T("Player names {first} and {second} look alike (look-alike letters, or "
                                     "characters that show nothing); give them names that read differently.",
                                     first=_shown(earlier[key]), second=_shown(name)))
            earlier[key] = name


def check_names(names: list[str]) -> None:
    """A new game's names (after the rules core's checks): none blank, no two that read alike."""
    refuse_blank(names)
    refuse_confusable(names)
