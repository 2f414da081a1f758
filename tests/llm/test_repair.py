"""Repair of near-JSON: what small models emit around and inside their answers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.llm.support import Answer

from simulacra.llm import OutputError, parse_output, repair_json

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@given(st.text())
def test_repair_json_never_raises(text: str) -> None:
    assert isinstance(repair_json(text), str)


@given(json_values)
def test_repair_json_returns_valid_json_unchanged(value: Any) -> None:
    text = json.dumps(value)
    assert repair_json(text) == text
    assert json.loads(repair_json(f"  {text}\n")) == value


@given(st.dictionaries(st.text(max_size=8), json_values, min_size=1, max_size=4))
def test_an_object_wrapped_in_prose_and_a_fence_is_recovered(value: dict[str, Any]) -> None:
    text = f"Here you go:\n```json\n{json.dumps(value, indent=2)}\n```\nAnything else?"
    assert json.loads(repair_json(text)) == value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),
        ('{"a": {"b": "unfinished', {"a": {"b": "unfinished"}}),
        ('{"a": [1, 2', {"a": [1, 2]}),
        ('{"a":', {"a": None}),
        ("{'a': 'single'}", {"a": "single"}),
        ('noise {"a": "x {not a brace}"} noise', {"a": "x {not a brace}"}),
    ],
)
def test_common_defects_are_repaired(text: str, expected: dict[str, Any]) -> None:
    assert json.loads(repair_json(text)) == expected


def test_parse_output_names_the_field_that_is_wrong() -> None:
    with pytest.raises(OutputError, match="answer"):
        parse_output('{"reply": "yes"}', Answer)


def test_parse_output_says_when_text_is_not_json_at_all() -> None:
    with pytest.raises(OutputError, match="not JSON"):
        parse_output("I would rather not say.", Answer)
