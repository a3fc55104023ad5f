"""rules.base.plain_copy, the copy a move makes of a state: equal to copy.deepcopy, and sharing no
dict or list with what it copied (a handler changes the copy in place)."""
from __future__ import annotations

import copy

from hypothesis import given, strategies as st

from referee.rules.base import plain_copy
from referee.texts import T, joined

leaves = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5),
                   st.sampled_from([T("{card} is wild.", card="JK"), joined([T("One."), T("Two.")])]))
states = st.recursive(leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=3), inner, max_size=4),
    st.tuples(inner, inner)), max_leaves=30)


def _containers(value, found):
    if isinstance(value, (dict, list)):
        found.add(id(value))
    children = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    for child in children:
        _containers(child, found)
    return found


@given(states)
def test_a_plain_copy_is_a_deep_copy(state):
    copied = plain_copy(state)
    assert copied == copy.deepcopy(state) and type(copied) is type(state)
    assert not _containers(state, set()) & _containers(copied, set())
