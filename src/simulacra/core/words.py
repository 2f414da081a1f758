"""Matching text against words: whether a text names a word, a name or a phrase (how
interviews count an agent aware of a fact, how a correction finds the memories it contradicts,
whom and what a sight names, which places a telling names); and text cut short at a word."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache


def mentions(text: str, phrases: Sequence[str]) -> bool:
    """True when `text` holds one of `phrases` as whole words: in any case, and not inside a
    longer word or number either side ("Workplace 12" does not name Workplace 1; "St. Mary's."
    names St. Mary's., where a regex's word boundary fails beside the sign). An empty phrase
    names nothing."""
    folded, pattern = _whole(tuple(phrases))
    if pattern is None:
        return False
    # The substring test first (most texts name none of the phrases); casefolded, it keeps
    # every text the pattern, matching case by case, would find.
    text_folded = text.casefold()
    return any(p in text_folded for p in folded) and pattern.search(text) is not None


@lru_cache(maxsize=8192)  # compiled once per phrases: re's own cache (512) thrashes in a big town
def _whole(phrases: tuple[str, ...]) -> tuple[tuple[str, ...], re.Pattern[str] | None]:
    kept = tuple(dict.fromkeys(p for p in phrases if p))
    if not kept:
        return (), None
    # On the text as written, not lowered: "İ".lower() is two characters, the second no
    # letter, which would leave a word after it standing alone.
    either = "|".join(map(re.escape, kept))
    return tuple(p.casefold() for p in kept), re.compile(rf"(?<!\w)(?:{either})(?!\w)", re.I)


def mentions_all(text: str, groups: Sequence[Sequence[str]]) -> bool:
    """True when `text` mentions, for every group, at least one of its words."""
    return bool(groups) and all(mentions(text, group) for group in groups)


def at_a_word(text: str, most: int) -> str:
    """`text` in at most `most` characters, cut at the end of a word with an ellipsis where it
    is longer (a topic read as "and invi" reads as a fault)."""
    if len(text) <= most:
        return text
    head = text[: most - 1]
    if not text[most - 1].isspace() and " " in head:
        head = head.rsplit(" ", 1)[0]
    return head.rstrip(" ,;:.-") + "\u2026"
