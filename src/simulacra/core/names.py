"""The house error for a bad reference to a named thing."""

from __future__ import annotations

import difflib


def unknown(what: str, name: str, known: list[str]) -> str:
    """The house error for a bad reference: what was asked, what exists, the likeliest fix."""
    close = difflib.get_close_matches(name, known, n=1)
    hint = f' (did you mean "{close[0]}"?)' if close else ""
    listed = ", ".join(known[:30]) + (", ..." if len(known) > 30 else "")
    return f'unknown {what} "{name}"{hint}; known {what}s: {listed}'
