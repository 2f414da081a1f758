"""JSON that can sit inside an HTML <script> element without ever closing it."""

from __future__ import annotations

import json
import math
from typing import Any

# Escaped inside JSON strings, these make "</script>", "<!--" and line separators harmless;
# JSON syntax itself never uses them outside strings.
_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def json_for_script(data: Any) -> str:
    try:
        text = _dumps(data, allow_nan=False)
    except ValueError:  # a NaN or an infinity somewhere: the rare, slower path
        text = _dumps(_finite(data), allow_nan=False)
    for char, escape in _ESCAPES.items():
        text = text.replace(char, escape)
    return text


def _dumps(data: Any, allow_nan: bool) -> str:
    return json.dumps(
        data, ensure_ascii=False, separators=(",", ":"), default=str, allow_nan=allow_nan
    )


def _finite(value: Any) -> Any:
    """NaN and infinities become null: JSON.parse rejects them (a score of 0/0 would)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value
