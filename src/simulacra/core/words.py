"""Matching text against groups of words: how interviews count an agent aware of a fact and
how a correction finds the memories it contradicts; and text cut short at a word."""

from __future__ import annotations

import re
from collections.abc import Sequence


def mentions_all(text: str, groups: Sequence[Sequence[str]]) -> bool:
    """True when `text` contains, for every group, at least one of its words (whole words)."""
    lowered = text.lower()
    return bool(groups) and all(
        any(re.search(rf"(?<!\w){re.escape(w.lower())}(?!\w)", lowered) for w in group)
        for group in groups
    )


def at_a_word(text: str, most: int) -> str:
    """`text` in at most `most` characters, cut at the end of a word with an ellipsis where it
    is longer (a topic read as "and invi" reads as a fault)."""
    if len(text) <= most:
        return text
    head = text[: most - 1]
    if not text[most - 1].isspace() and " " in head:
        head = head.rsplit(" ", 1)[0]
    return head.rstrip(" ,;:.-") + "\u2026"
