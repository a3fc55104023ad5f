"""docs/rules: the project's own rules pages agree with the engines, the rules route and the code:
every ruling an engine lists is on its page with the same words, every id the code cites is
documented, and every documented id is cited somewhere in the code besides its own summary."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.rules import ENGINES

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "rules"
RULE_ID = re.compile(r"\b(?:G|S69|X19|FC|N99|N9|T)-\d+\b")


def page(name: str) -> str:
    return (DOCS / f"{name}.md").read_text()


def code_citations() -> list[str]:
    """Every ruling id written anywhere in the service's code."""
    found = []
    for path in (ROOT / "referee").rglob("*.py"):
        found += RULE_ID.findall(path.read_text())
    return found


@pytest.mark.parametrize("name", list(ENGINES))
def test_each_page_lists_the_engines_rulings_options_and_moves(name):
    engine, text = ENGINES[name], page(name)
    for rule, summary in engine.RULINGS.items():
        assert f"- **{rule}** {summary}" in text, rule
    documented = set(re.findall(r"^- \*\*([A-Z0-9]+-\d+)\*\*", text, re.M))
    assert documented == set(engine.RULINGS)
    for option in engine.OPTIONS:
        assert f"- `{option}` " in text, option
    for kind in engine.MOVES:
        assert f"- `{kind}`: " in text, kind


@pytest.mark.parametrize("name", list(ENGINES))
def test_the_rules_route_serves_the_same_rulings(client, name):
    assert client.get(f"/api/v1/rules/{name}").json["rulings"] == ENGINES[name].RULINGS


def test_every_cited_id_is_documented_and_every_documented_id_is_cited():
    documented = set(RULE_ID.findall((DOCS / "README.md").read_text()))
    for name in ENGINES:
        documented |= set(RULE_ID.findall(page(name)))
    cited = code_citations()
    assert set(cited) <= documented, sorted(set(cited) - documented)
    summaries = {rule for engine in ENGINES.values() for rule in engine.RULINGS}
    counts = {rule: cited.count(rule) for rule in documented}
    # an id listed in an engine's RULINGS must also be cited elsewhere (a refusal, an event, a move,
    # a breakdown, a comment that says why); G-3 to G-5 are cited without a summary of their own
    unused = sorted(rule for rule, n in counts.items() if n < (2 if rule in summaries else 1))
    assert not unused, f"documented but never cited: {unused}"
