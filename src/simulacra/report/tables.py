"""Render any JSON value (metrics.json and its parts) as escaped HTML tables."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any

AgentLink = Callable[[str], str | None]  # agent id -> viewer URL, None for other strings
_MAX_DEPTH = 4


def value_html(value: Any, link: AgentLink, depth: int = 0) -> str:
    """A table for structured values, escaped text for scalars; agent ids become links."""
    if depth > _MAX_DEPTH:
        return f"<code>{escape(json.dumps(value, default=str))}</code>"
    if _is_scalar(value):
        return scalar_html(value, link)
    if isinstance(value, Sequence):
        if all(_is_scalar(v) for v in value):
            return ", ".join(scalar_html(v, link) for v in value) or "—"
        if all(isinstance(v, Mapping) for v in value):
            return rows_table(value, link, depth)
        return (
            "<ul>" + "".join(f"<li>{value_html(v, link, depth + 1)}</li>" for v in value) + "</ul>"
        )
    if isinstance(value, Mapping):
        if value and all(isinstance(v, Mapping) for v in value.values()):
            return rows_table([{"": k, **v} for k, v in value.items()], link, depth)
        cells = "".join(
            f"<tr><th>{scalar_html(str(k), link)}</th>"
            f"<td>{value_html(v, link, depth + 1)}</td></tr>"
            for k, v in value.items()
        )
        return f'<table class="pairs">{cells}</table>'
    return escape(str(value))


def rows_table(rows: Sequence[Mapping[str, Any]], link: AgentLink, depth: int = 0) -> str:
    columns = list(dict.fromkeys(key for row in rows for key in row))
    # A column's name may break after an underscore, so that a table of many fits its card.
    head = "".join(f"<th>{'_<wbr>'.join(map(escape, str(c).split('_')))}</th>" for c in columns)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td>{value_html(row[c], link, depth + 1) if c in row else ''}</td>" for c in columns
        )
        + "</tr>"
        for row in rows
    )
    return f'<table class="rows"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def scalar_html(value: Any, link: AgentLink) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.0f}" if value.is_integer() and abs(value) >= 1000 else f"{value:.4g}"
    text = str(value)
    href = link(text)
    if href is not None:
        return f'<a href="{escape(href)}">{escape(text)}</a>'
    return escape(text)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)
