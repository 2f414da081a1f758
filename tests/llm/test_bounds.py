"""MaxChars and MaxWords bound a model's text by trimming it, never by failing the answer."""

from __future__ import annotations

from typing import Annotated

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from simulacra.llm import MaxChars, MaxWords


class Said(BaseModel):
    words: Annotated[str, MaxWords(5)] = ""
    chars: Annotated[str, MaxChars(8)] = ""


@given(st.text(alphabet=st.sampled_from("ab \n\t.,"), max_size=60))
def test_max_words_keeps_a_prefix_of_at_most_the_limit_in_words(text: str) -> None:
    kept = Said(words=text).words
    assert text.startswith(kept) and len(kept.split()) == min(5, len(text.split()))
    if len(text.split()) <= 5:
        assert kept == text  # within the limit, untouched


def test_the_limits_trim_and_only_max_chars_bounds_the_schema() -> None:
    said = Said(words="one two  three four five six seven", chars="123456789")
    assert (said.words, said.chars) == ("one two  three four five", "12345678")
    properties = Said.model_json_schema()["properties"]
    assert properties["chars"]["maxLength"] == 8 and "maxLength" not in properties["words"]
