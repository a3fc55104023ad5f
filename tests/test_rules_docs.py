"""docs/rules: the project's own rules pages agree with the engines, the rules route and the code:
each page's rulings, options and moves are what ``referee.rules_docs`` renders from the engine's
declarations (its prose is the page's own), the shared rulings (G-, T-) are declared once in
``referee.rules.base``, every id the code cites is documented, and every documented id is cited
somewhere in the code besides its own summary.

Every registered engine is checked, the games of the tests too: a game under referee/rules has
its page in docs/rules (``<NAME>.md``), a game that lives in the tests has it beside its module;
the ruling ids are those the engines list (their prefixes: ``N99-``, ``HE-``...) and the general
ones (``G-``, ``T-``)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from referee import rules_docs
from referee.rules import ENGINES
from referee.rules.base import SHARED_RULINGS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "rules"
PREFIXES = sorted({"G", "T"} | {rule.rsplit("-", 1)[0] for engine in ENGINES.values() for rule in engine.rulings},
                  key=lambda prefix: (-len(prefix), prefix))  # N99 before N9
RULE_ID = re.compile(rf"\b(?:{'|'.join(map(re.escape, PREFIXES))})-\d+\b")


def source(engine) -> Path:
    """The engine's module file, or its package's folder."""
    path = Path(sys.modules[engine.module].__file__)
    return path.parent if path.name == "__init__.py" else path


def served(engine) -> bool:
    """Whether the engine is one of the service's own (under referee/), not a game of the tests."""
    return ROOT / "referee" in source(engine).parents


def page(name: str) -> str:
    engine = ENGINES[name]
    folder = DOCS if served(engine) else source(engine).parent
    return (folder / f"{name}.md").read_text()


def code_citations() -> list[str]:
    """Every ruling id written anywhere in the service's code, and in the games of the tests."""
    paths = list((ROOT / "referee").rglob("*.py"))
    for engine in ENGINES.values():
        if not served(engine):
            where = source(engine)
            paths += list(where.rglob("*.py")) if where.is_dir() else [where]
    found = []
    for path in paths:
        found += RULE_ID.findall(path.read_text())
    return found


def test_the_ruling_ids_are_read_off_the_engines():
    assert {"G", "T", "N99", "N9", "FC", "X19", "S69"} <= set(PREFIXES)
    assert RULE_ID.findall("N99-4, N9-2, T-3 and G-5") == ["N99-4", "N9-2", "T-3", "G-5"]


@pytest.mark.parametrize("name", list(ENGINES))
def test_each_pages_rulings_options_and_moves_are_rendered_from_the_declarations(name):
    engine, text = ENGINES[name], page(name)
    assert rules_docs.pages(engine)[0][0] == (DOCS if served(engine) else source(engine).parent) / f"{name}.md"
    assert rules_docs.generated(text) == rules_docs.render(engine), \
        f"{name}'s page is not what its declarations say: run {rules_docs.COMMAND}"
    documented = re.findall(r"^- \*\*([A-Z0-9]+-\d+)\*\*", text, re.M)  # none written by hand beside them
    assert documented == list(engine.rulings)


@pytest.mark.parametrize("name", list(ENGINES))
def test_the_shared_rulings_are_declared_once(name):
    # a G- or T- ruling an engine lists is one of base's, in base's words or the game's own refinement
    shared = [rule for rule in ENGINES[name].rulings if rule.split("-")[0] in {"G", "T"}]
    assert set(shared) <= set(SHARED_RULINGS)
    assert all(ENGINES[name].rulings[rule] == SHARED_RULINGS[rule] for rule in shared if rule.startswith("T-"))


def test_a_page_keeps_its_prose_and_its_markers_are_not_served(client):
    text = "# A\n\nProse.\n\n<!-- generated moves: x -->\n- `old`: Gone.\n<!-- end generated -->\n\nMore prose.\n"
    assert rules_docs.rewrite(text, {"moves": "- `new`: Here.\n"}) == text.replace(
        "<!-- generated moves: x -->\n- `old`: Gone.", f"<!-- generated moves: {rules_docs.COMMAND} -->\n- `new`: Here.")
    with pytest.raises(ValueError, match="no generated rulings"):
        rules_docs.rewrite(text, {"rulings": ""})
    html = client.get("/rules/ninety-nine").get_data(as_text=True)
    assert "generated" not in html and 'id="N99-1"' in html


@pytest.mark.parametrize("name", list(ENGINES))
def test_the_rules_route_serves_the_same_rulings(client, name):
    assert client.get(f"/api/v1/rules/{name}").json["rulings"] == ENGINES[name].rulings


def test_every_cited_id_is_documented_and_every_documented_id_is_cited():
    documented = set(RULE_ID.findall((DOCS / "README.md").read_text()))
    for name in ENGINES:
        documented |= set(RULE_ID.findall(page(name)))
    cited = code_citations()
    assert set(cited) <= documented, sorted(set(cited) - documented)
    summaries = {rule for engine in ENGINES.values() for rule in engine.rulings}
    counts = {rule: cited.count(rule) for rule in documented}
    # an id listed in an engine's RULINGS must also be cited elsewhere (a refusal, an event, a move,
    # a breakdown, a comment that says why); G-3 to G-5 are cited without a summary of their own
    unused = sorted(rule for rule, n in counts.items() if n < (2 if rule in summaries else 1))
    assert not unused, f"documented but never cited: {unused}"
