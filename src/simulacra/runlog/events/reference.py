"""docs/events.md, generated from the event classes (`python scripts/events_doc.py`)."""

from __future__ import annotations

import dataclasses
from typing import Any, get_type_hints

from simulacra.runlog.events.envelope import PAYLOADS


def reference() -> str:
    """docs/events.md: the envelope, then one row per kind, from the event classes."""
    lines = [
        "# events.jsonl: the event contract",
        "",
        "Generated from `simulacra.runlog.events` by `python scripts/events_doc.py`; a test keeps",
        "this file and the classes equal.",
        "",
        "One JSON object a line: `seq` (0, 1, 2 ... in write order), `t` (simulated time, ISO",
        "8601, or null), `wall` (wall-clock seconds; ignored when two runs are compared), `kind`,",
        "`agent` (id or null) and `data`, the fields below. A field marked `?` may be absent;",
        "`...` stands for a world's own extras.",
        "",
        "| kind | agent | data | meaning |",
        "| --- | --- | --- | --- |",
    ]
    for kind, cls in PAYLOADS.items():
        hints = get_type_hints(cls)
        shown = []
        for f in dataclasses.fields(cls):
            if f.name == "extra":
                shown.append("...")
                continue
            optional = f.default is not dataclasses.MISSING or (
                f.default_factory is not dataclasses.MISSING
            )
            shown.append(f"`{f.name}`{'?' if optional else ''}: {_type_name(hints[f.name])}")
        meaning = " ".join((cls.__doc__ or "").split())
        lines.append(f"| `{kind}` | {cls.AGENT} | {', '.join(shown)} | {meaning} |")
    return "\n".join(lines) + "\n"


def _type_name(hint: Any) -> str:
    name = str(hint).replace("typing.", "").replace("<class '", "").replace("'>", "")
    return name.replace("|", "\\|")  # a bar would end the table's cell
