"""Outputs that hold nothing, though they parse.

SUMO writes an output's frame whether or not anything moved: a run with no vehicle leaves an
FCD output of empty `<timestep>`s, a summary whose every step inserted none, edge data and
detector intervals of zeros. The reproduction confirms such a file (SUMO wrote it), so the
checker asks what it records: `unrecorded` names a SUMO output, by its root, that recorded
no traffic. Collisions, lane changes and queues are left out: none of them is a true answer.
`holds_nothing` names any required output with no content: XML with nothing under its root,
a CSV of a header alone, an empty JSON or YAML document.
"""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

from simulacra.lab.claims import number

# By root: the elements that record traffic and, where named, the attributes of which one
# must be above zero on one of them (SUMO writes the elements with zeros when nothing moved).
RECORDS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "tripinfos": (frozenset({"tripinfo", "personinfo"}), ()),
    "fcd-export": (frozenset({"vehicle", "person", "container"}), ()),
    "emission-export": (frozenset({"vehicle"}), ()),
    "netstate": (frozenset({"vehicle"}), ()),
    "full-export": (frozenset({"vehicle"}), ()),
    "summary": (frozenset({"step"}), ("inserted",)),
    "statistics": (frozenset({"vehicles"}), ("inserted",)),
    "meandata": (frozenset({"edge", "lane"}), ("sampledSeconds",)),
    "detector": (frozenset({"interval"}), ("nVehContrib", "nVehEntered", "nVehSeen", "vehicleSum")),
    "tlsStates": (frozenset({"tlsState"}), ()),
    "tlsSwitches": (frozenset({"tlsSwitch"}), ()),
}


def unrecorded(path: Path) -> str | None:
    """Why a SUMO output of a root `RECORDS` knows recorded nothing, or None (when it
    recorded something, or is no such output). Reading stops at the first record."""
    tags: frozenset[str] = frozenset()
    counts: tuple[str, ...] = ()
    try:
        for k, (event, element) in enumerate(ET.iterparse(path, events=("start", "end"))):
            if k == 0:
                if element.tag not in RECORDS:
                    return None
                tags, counts = RECORDS[str(element.tag)]
            elif event == "end" and element.tag in tags:
                if not counts or any((number(element.get(a, "")) or 0) > 0 for a in counts):
                    return None
                element.clear()
    except (ET.ParseError, OSError, UnicodeDecodeError):
        return None  # not XML: other checks say so
    if not tags:
        return None
    what = " or ".join(f"<{t}>" for t in sorted(tags))
    above = f" with {' or '.join(counts)} above 0" if counts else ""
    return f"records nothing: SUMO wrote no {what}{above}"


def holds_nothing(path: Path) -> str | None:
    """Why a file has no content though it is not empty, or None. Only the formats whose
    emptiness can be told: XML, CSV, JSON and YAML."""
    suffix = path.suffix.lower()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    try:
        if suffix == ".xml":
            root = ET.fromstring(text)
            if len(root) == 0 and not (root.text or "").strip():
                return f"holds no element under its root <{root.tag}>"
        elif suffix == ".csv":
            rows = [r for r in csv.reader(text.splitlines()) if any(c.strip() for c in r)]
            if len(rows) < 2:
                return "holds no row under its header"
        elif suffix == ".json":
            if json.loads(text) in ({}, [], None, ""):
                return "holds an empty JSON document"
        elif suffix in (".yaml", ".yml") and yaml.safe_load(text) in ({}, [], None, ""):
            return "holds an empty YAML document"
    except (ET.ParseError, json.JSONDecodeError, yaml.YAMLError, csv.Error):
        return None  # unreadable: the derived files' check and the verifier say so
    return None
