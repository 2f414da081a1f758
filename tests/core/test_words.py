"""One rule for whether a text names a word, a name or a phrase (`core.mentions`), which
interviews, corrections, sights and tellings all use: whole words, in any case, not inside a
longer word or number either side, a phrase that begins or ends with a sign included."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from simulacra.core import mentions, mentions_all

WORD = st.text(st.characters(categories=("Ll", "Lu", "Nd")), min_size=1, max_size=8)
# What may stand beside a whole word: nothing, white space or punctuation.
APART = st.text(" .,;:!?'\"()-\n", max_size=3)
SIGN = st.sampled_from(".'()!-")


# A letter whose upper or lower case is more than one letter ("ß" upper is "SS", "İ" lower
# is "i" and a combining dot) or lowers to another letter ("µ" upper is "Μ", lowered "μ") is
# left out of the round trip this test makes: the rule matches case letter by letter.
CASED = WORD.filter(
    lambda w: w.upper().lower() == w.lower() and len(w.upper()) == len(w.lower()) == len(w)
)


@given(CASED, APART, APART)
def test_a_word_between_spaces_or_signs_is_mentioned_in_any_case(
    word: str, before: str, after: str
) -> None:
    assert mentions(before + word + after, [word])
    assert mentions(before + word.upper() + after, [word.lower()])
    assert mentions(before + word.lower() + after, [word.upper()])


@given(WORD, WORD, APART)
def test_a_word_inside_a_longer_word_or_number_is_not_mentioned(
    word: str, more: str, apart: str
) -> None:
    # `more` joined to it on either side: the text has no place where `word` stands alone.
    assert not mentions(apart + more + word + apart, [word])
    assert not mentions(apart + word + more + apart, [word])


@given(WORD, SIGN, APART)
def test_a_phrase_that_ends_or_begins_with_a_sign_is_mentioned(
    word: str, sign: str, apart: str
) -> None:
    # A word boundary (`\b`) fails between a sign and a space: "Jr." was never found.
    assert mentions(f"{apart}{word}{sign} and more", [word + sign])
    assert mentions(f"so {sign}{word}{apart}", [sign + word])


@given(st.lists(WORD, min_size=1, max_size=4), st.text(max_size=30))
def test_a_text_mentions_some_phrase_when_it_mentions_one_of_them(
    phrases: list[str], text: str
) -> None:
    # One pattern for them all: a phrase that begins another ("a", "ab") loses no match.
    for joined in (text, " ".join([text, *phrases[-1:]])):
        assert mentions(joined, phrases) == any(mentions(joined, [p]) for p in phrases)


def test_the_edges_by_hand() -> None:
    assert mentions("She works at Workplace 12.", ["Workplace 12"])
    assert not mentions("She works at Workplace 12.", ["Workplace 1"])
    assert not mentions("a partygoer", ["party"]) and mentions("the PARTY!", ["party"])
    assert mentions("Meet at St. Mary's. Then home.", ["St. Mary's."])
    assert mentions("marta_okafor waves", ["marta_okafor"])
    assert not mentions("marta_okafor waves", ["marta"])  # `_` joins words
    assert not mentions("anything at all", []) and not mentions("anything", [""])


def test_mentions_all_wants_one_word_of_every_group() -> None:
    groups = [["party", "celebration"], ["cafe"]]
    assert mentions_all("A celebration at the cafe.", groups)
    assert not mentions_all("A celebration at home.", groups)
    assert not mentions_all("anything", []) and not mentions_all("anything", [[]])


def test_case_beyond_ascii() -> None:
    assert mentions("ÉLODIE waves", ["élodie"]) and mentions("the µ sign", ["Μ"])
    assert not mentions("İ0 on the door", ["0"])  # "İ" lowered is two characters
