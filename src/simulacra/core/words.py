"""Matching text against groups of words: how interviews count an agent aware of a fact and
how a correction finds the memories it contradicts."""

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
