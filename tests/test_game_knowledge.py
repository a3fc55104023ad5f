"""Issue 37, "nothing outside a game knows it": the service's shared modules (the API, the pages'
own modules, the stats, the store) name no registered game, not in a description either: not its
name, its title, its module or its rulings' prefix (each game's own; the shared G- and T- are
everyone's). And no module of the service imports an engine's inner modules from outside the
engine: what the others need, the engine's package shows (``referee.rules.sixty_nine.copies_of``).
The games come from the registry, the tests' games included, so a new game is checked as it comes.

Each game's page module (``referee/web/games/<game>.py``) and templates are the game's own and may
name it. The tests of a game may read its inner modules (its solver, its set reader)."""
from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

from referee.rules import ENGINES

ROOT = Path(__file__).resolve().parents[1]
SHARED = sorted([*ROOT.glob("referee/api/*.py"), *ROOT.glob("referee/web/*.py"), ROOT / "referee/stats.py",
                 ROOT / "referee/store.py"])


def prefix(ruling: str) -> str:
    return ruling.rsplit("-", 1)[0] + "-"


def own_prefixes(game) -> set[str]:
    """The prefixes of the rulings only this game declares (G-, T-: every game's)."""
    others = {prefix(r) for other in ENGINES.values() if other is not game for r in other.rulings}
    return {prefix(r) for r in game.rulings} - others


def words(game) -> list[str]:
    """What names the game: its name, its title, its module's own name, its rulings' prefix."""
    module = game.module.rsplit(".", 1)[-1]
    return sorted({game.name, game.title, module, module.replace("_", " "), module.replace("_", "-"),
                   *own_prefixes(game)})


def pattern(word: str) -> re.Pattern:
    """``word`` as a word of its own (``69`` is not in ``1690``, ``Nines`` is not in ``Ninety-nine``'s
    middle), in any case; a ruling prefix followed by its number."""
    if word.endswith("-"):
        return re.compile(rf"(?<![\w-]){re.escape(word)}\d", re.IGNORECASE)
    return re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])", re.IGNORECASE)


def named(text: str, game) -> list[str]:
    """Each line of ``text`` that names ``game``, with the word it names it by."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        found += [f"{number}: {word!r} in {line.strip()}" for word in words(game) if pattern(word).search(line)]
    return found


@pytest.mark.parametrize("game", list(ENGINES.values()), ids=list(ENGINES))
def test_no_shared_module_names_a_game(game):
    assert len(SHARED) > 10
    found = [f"{path.relative_to(ROOT)}:{hit}" for path in SHARED for hit in named(path.read_text("utf-8"), game)]
    assert not found, f"{game.name} is named outside its own modules:\n" + "\n".join(found)


def test_the_check_finds_a_game_named_in_a_text():
    """What this file's check would have found before issue 37 (schemas.py, stats.py, groups.py)."""
    game = {g.title: g for g in ENGINES.values()}
    assert named('"description": "Best final total: lowest in Five Crowns and Nines"', game["Five Crowns"])
    assert named('"description": "Best final total: lowest in Five Crowns and Nines"', game["Nines"])
    assert named("        return IllegalMove('X19-3', ...)", game["XIX"])
    assert named('"rounds_won": lazy_gettext("Rounds won at 99"), "sets": "69\'s sets"', game["69"])
    assert not named("a Ninety-nine round", game["Nines"])  # a word of its own only
    assert not named("within 1690 ms; round 69b", game["69"])


# ---------------------------------------------------------------- inner modules

def engine_packages() -> dict[str, Path]:
    """Every registered engine that is a package: its module name and its folder."""
    found = {}
    for game in ENGINES.values():
        spec = importlib.util.find_spec(game.module)
        if spec is not None and spec.submodule_search_locations:
            found[game.module] = Path(next(iter(spec.submodule_search_locations))).resolve()
    return found


def inner_imports(source: str, packages: dict[str, Path]) -> list[str]:
    """The engines' inner modules that ``source`` imports: ``<engine>.<inner>`` by name, or an
    inner module taken from the engine's package (``from <engine> import <inner>``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names
                                     if node.module in packages and (packages[node.module] / alias.name).with_suffix(
                                         ".py").exists()]
        else:
            continue
        found += [name for name in names for engine in packages if name.startswith(engine + ".")]
    return found


def test_no_module_outside_an_engine_imports_its_inner_modules():
    packages = engine_packages()
    assert "referee.rules.sixty_nine" in packages and "referee.rules.five_crowns" in packages
    found = []
    for path in sorted((ROOT / "referee").rglob("*.py")):
        inside = [engine for engine, folder in packages.items() if folder in path.resolve().parents]
        hits = [name for name in inner_imports(path.read_text("utf-8"), packages)
                if not any(name.startswith(engine + ".") for engine in inside)]
        found += [f"{path.relative_to(ROOT)}: {name}" for name in hits]
    assert not found, "an engine's inner module imported from outside it:\n" + "\n".join(found)


def test_the_check_finds_an_inner_import():
    """What it would have found before issue 37 (stats.py and the 69 page), and what it lets pass."""
    packages = engine_packages()
    assert inner_imports("from referee.rules.sixty_nine.sets import copies_of", packages) == [
        "referee.rules.sixty_nine.sets"]
    assert inner_imports("from referee.rules.sixty_nine import scoring as s", packages) == [
        "referee.rules.sixty_nine.scoring"]
    assert inner_imports("import referee.rules.five_crowns.solver", packages) == ["referee.rules.five_crowns.solver"]
    assert inner_imports("from referee.rules.sixty_nine import copies_of\nfrom referee.rules import base",
                         packages) == []
