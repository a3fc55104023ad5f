"""The generated parts of the rules pages: each game's rulings, table options and moves, rendered
from its ``Game`` (``rulings``, ``options``, ``moves``) in a page's language, the German from the
``engine`` catalogue (a string it lacks stays English, as on the served pages).

A page (``docs/rules/<name>.md``, a translation ``docs/rules/<lang>/<name>.md``; a game of the tests
has its page beside its module) keeps its prose; each generated list sits between two markers,
``<!-- generated rulings: python -m referee.rules_docs -->`` and ``<!-- end generated -->`` (the
rules pages leave them out). ``python -m referee.rules_docs`` rewrites them for every registered
game, ``--check`` only says which pages differ; a game of the tests is named by its module's file
(``python -m referee.rules_docs tests/contract/hearts.py``). ``tests/test_rules_docs.py`` fails
while a page differs from what this renders.

Standard library only (no Flask): the pages are written without an app."""
from __future__ import annotations

import gettext
import importlib.util
import json
import re
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

import referee
from referee.rules.base import Game
from referee.texts import N_, T, translate

ROOT = Path(referee.__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "rules"
TRANSLATIONS = Path(referee.__file__).resolve().parent / "translations"
PARTS = ("rulings", "options", "moves")
COMMAND = "python -m referee.rules_docs"
END = "<!-- end generated -->"
BLOCK = re.compile(r"^<!-- generated (?P<part>[a-z]+): [^>]*-->\n(?P<body>.*?)^" + re.escape(END) + "$",
                   re.M | re.S)
MARKER = re.compile(r"^<!-- (?:generated [a-z]+: [^>]*|end generated) -->\n", re.M)  # what a page leaves out


@cache
def gettext_for(lang: str) -> Callable[[str], str]:
    """The ``engine`` catalogue's gettext for ``lang`` (English: the msgids themselves)."""
    if lang == "en":
        return lambda msgid: msgid
    return gettext.translation("engine", str(TRANSLATIONS), [lang], fallback=True).gettext


def _default(value) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def render(game: Game, lang: str = "en") -> dict[str, str]:
    """The generated lists of ``game``'s page in ``lang``: ``{part: its lines}``."""
    say = gettext_for(lang)
    rulings = [f"- **{rid}** {translate(text, say)}" for rid, text in game.rulings.items()]
    options = []
    for name, option in game.options.items():
        terms = [N_("default decided by the rules") if option.get("default") is None
                 else T("default {value}", value=f"`{_default(option['default'])}`")]
        if option.get("rule"):
            terms.append(T("refusals cite {rule}", rule=option["rule"]))
        options.append(f"- `{name}` ({'; '.join(translate(t, say) for t in terms)}): "
                       f"{translate(option.get('description', ''), say)}")
    moves = [f"- `{kind}`: {translate(move.description, say)}" + (f" ({', '.join(move.rules)})" if move.rules else "")
             for kind, move in game.moves.items()]
    return {part: "".join(line + "\n" for line in lines)
            for part, lines in zip(PARTS, (rulings, options, moves))}


def generated(text: str) -> dict[str, str]:
    """The generated lists a page holds now: ``{part: its lines}``."""
    return {match["part"]: match["body"] for match in BLOCK.finditer(text)}


def rewrite(text: str, parts: dict[str, str]) -> str:
    """``text`` with each generated list replaced by ``parts``; a page must hold every marker."""
    missing = set(parts) - set(generated(text))
    if missing:
        raise ValueError(f"no generated {', '.join(sorted(missing))} (markers: <!-- generated "
                         f"{sorted(missing)[0]}: {COMMAND} --> ... {END})")
    return BLOCK.sub(lambda m: f"<!-- generated {m['part']}: {COMMAND} -->\n{parts[m['part']]}{END}", text)


def strip_markers(text: str) -> str:
    """A page as it is served: without the markers, which commonmark would show as text."""
    return MARKER.sub("", text)


def pages(game: Game) -> list[tuple[Path, str]]:
    """``game``'s pages with their languages: its English page, then each translation of it. A game
    of the service has its page in docs/rules, a game of the tests beside its module."""
    source = Path(sys.modules[game.module].__file__ or "")
    source = source.parent if source.name == "__init__.py" else source
    folder = DOCS if ROOT / "referee" in source.parents else source.parent
    english = folder / f"{game.name}.md"
    found = [(english, "en")] if english.exists() else []
    for lang in sorted(path for path in folder.iterdir() if path.is_dir()):
        if (lang / english.name).exists():
            found.append((lang / english.name, lang.name))
    return found


def load(path: str) -> Game:
    """The ``GAME`` of a module of the tests, named by its file, registered like the service's."""
    from referee.rules import register
    file = Path(path).resolve()
    sys.path.insert(0, str(file.parent))  # it may import its neighbours, as under pytest
    spec = importlib.util.spec_from_file_location(file.stem, file)
    if spec is None or spec.loader is None:
        raise SystemExit(f"not a Python module: {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[file.stem] = module
    spec.loader.exec_module(module)
    return register(module.GAME)


def main(argv: list[str]) -> int:
    from referee.rules import ENGINES
    check = "--check" in argv
    for path in (arg for arg in argv if arg != "--check"):
        load(path)
    stale = []
    for game in ENGINES.values():
        for page, lang in pages(game):
            text = page.read_text(encoding="utf-8")
            new = rewrite(text, render(game, lang))
            if new != text:
                stale.append(page)
                if not check:
                    page.write_text(new, encoding="utf-8")
    for page in stale:
        print(f"{'differs' if check else 'rewritten'}: {page.relative_to(ROOT) if ROOT in page.parents else page}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
