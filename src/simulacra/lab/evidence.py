"""What the critic sees of an attempt's contents, not only its file names and sizes.

- the head of each output (a few hundred characters of a text file; a binary one by its size);
- each SUMO XML output parsed: the tool that wrote it, its elements counted by tag, and for the
  most frequent ones the mean, least and greatest of their numeric attributes;
- the report's claims beside the value each artifact gives, recomputed (`claims`);
- after a rerun the critic asked for, what replaying the recorded commands found.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from simulacra.lab.artifacts import sumo_header
from simulacra.lab.claims import Claim, ClaimError, compute, matches
from simulacra.lab.claims import number as as_number
from simulacra.lab.episode import Report

HEAD_CHARS = 400
_TEXT = (".xml", ".json", ".csv", ".txt", ".md", ".cfg", ".sumocfg", ".py", ".sh")
_TAGS = 3  # tags summarised per SUMO output (a tripinfo: <tripinfo> first, all of it)
_ATTRIBUTES = (16, 6, 6)  # numeric attributes summarised for the most frequent tags
_MAX_ELEMENTS = 200_000  # a larger output is summarised from its first elements


def contents(folder: Path, outputs: Sequence[tuple[str, int]], report: Report) -> str:
    """The critic's evidence section for an attempt folder."""
    parts = ["## Output contents"]
    for path, size in outputs:
        parts.append(f"### {path} ({size} bytes)")
        file = folder / path
        if path.endswith(".xml") and sumo_header(file) is not None:
            parts.append(sumo_summary(file))
        elif path.endswith(_TEXT):
            with file.open("rb") as fh:  # the head only: an output may be large
                head = fh.read(HEAD_CHARS + 1).decode("utf-8", errors="replace")
            parts.append(head[:HEAD_CHARS] + ("..." if len(head) > HEAD_CHARS else ""))
        else:
            parts.append("(binary)")
    parts.append("## Claims beside the artifacts")
    parts += [claim_line(c, folder) for c in report.claims] or ["none"]
    return "\n".join(parts)


def claim_line(claim: Claim, folder: Path) -> str:
    shown = f"{claim.value:g}" if isinstance(claim.value, float) else repr(claim.value)
    try:
        actual = compute(claim, folder)
    except ClaimError as exc:
        return f"- {claim.name} = {shown}: cannot be computed ({exc})"
    value = f"{actual.value:g}" if isinstance(actual.value, float) else repr(actual.value)
    verdict = "agrees" if matches(claim.value, actual) else "disagrees"
    return f"- {claim.name} = {shown}; {claim.artifact} gives {value}: {verdict}"


def sumo_summary(path: Path) -> str:
    """The tool, the elements by tag and the numeric attributes of the most frequent tags."""
    header = sumo_header(path)
    counts: Counter[str] = Counter()
    values: dict[str, dict[str, list[float]]] = {}
    try:
        for k, (_, element) in enumerate(ET.iterparse(path, events=("end",))):
            if k >= _MAX_ELEMENTS:
                break
            tag = str(element.tag)
            counts[tag] += 1
            for name, text in element.attrib.items():
                value = as_number(text)
                if value is not None:
                    values.setdefault(tag, {}).setdefault(name, []).append(value)
            element.clear()
    except ET.ParseError as exc:
        return f"not valid XML: {exc}"
    lines = [f"written by {header.tool if header else '(no SUMO header)'}"]
    lines.append("elements: " + ", ".join(f"{t} {n}" for t, n in counts.most_common(6)))
    for (tag, _), shown in zip(counts.most_common(_TAGS), _ATTRIBUTES, strict=False):
        for name, series in list(values.get(tag, {}).items())[:shown]:
            mean = math.fsum(series) / len(series)
            lines.append(
                f"{tag}.{name}: mean {mean:.4g}, min {min(series):.4g}, max {max(series):.4g}"
            )
    return "\n".join(lines)
