"""What the suites' verify.py programs share: reading artifacts and printing a verdict.

A verify program reads only the attempt's files (the working folder: the verifier runs it on
the reproduced attempt) and prints one JSON line, `{"passed": bool, "checks": [{"check",
"passed", "detail"}]}`. It never trusts the report. Every file it reads and every JSON key it
needs is named in its task's text: `json(path, *keys)` declares the keys, so a test can check.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from simulacra.lab.artifacts import png_problem, sumo_header


class Verdict:
    def __init__(self) -> None:
        self.checks: list[dict[str, object]] = []
        self.root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")

    def check(self, name: str, passed: bool, detail: object = "") -> bool:
        self.checks.append({"check": name, "passed": bool(passed), "detail": str(detail)})
        return bool(passed)

    def xml(self, relative: str) -> ET.Element | None:
        path = self.root / relative
        try:
            return ET.parse(path).getroot()
        except (OSError, ET.ParseError) as exc:
            self.check(f"{relative} parses", False, exc)
            return None

    def json(self, relative: str, *keys: str) -> dict[str, object] | None:
        """The JSON object at `relative` when it holds every one of `keys`, else None."""
        try:
            data = json.loads((self.root / relative).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            self.check(f"{relative} parses", False, exc)
            return None
        if not isinstance(data, dict):
            self.check(f"{relative} is an object", False, type(data).__name__)
            return None
        missing = [k for k in keys if k not in data]
        if not self.check(f"{relative} has {', '.join(keys)}", not missing, missing):
            return None
        return data

    def png(self, relative: str) -> bool:
        path = self.root / relative
        problem = png_problem(path.read_bytes()) if path.is_file() else "missing"
        return self.check(f"{relative} is a figure", problem is None, problem or "")

    def made_by(self, relative: str, *tools: str) -> bool:
        """Whether one of SUMO's `tools` wrote the file (the verifier reran it to be sure)."""
        header = sumo_header(self.root / relative)
        tool = header.tool if header else None
        return self.check(f"{relative} written by {' or '.join(tools)}", tool in tools, tool)

    def options(self, relative: str) -> dict[str, str]:
        """The options the SUMO tool that wrote the file ran with, by name."""
        header = sumo_header(self.root / relative)
        if header is None:
            return {}
        try:
            config = ET.fromstring(header.config)
        except ET.ParseError:
            return {}
        return {e.tag: e.get("value", "") for e in config.iter() if e.get("value") is not None}

    def option(self, relative: str, name: str) -> float | None:
        """A numeric option the SUMO tool that wrote the file ran with (`1500` or `1500.0`)."""
        try:
            return float(self.options(relative)[name])
        except (KeyError, ValueError):
            return None

    def done(self) -> None:
        passed = bool(self.checks) and all(c["passed"] for c in self.checks)
        print(json.dumps({"passed": passed, "checks": self.checks}))


def junctions(net: ET.Element) -> list[ET.Element]:
    return [j for j in net.iter("junction") if j.get("type") != "internal"]


def edges(net: ET.Element) -> list[ET.Element]:
    return [e for e in net.iter("edge") if e.get("function") != "internal"]


def mean(root: ET.Element, tag: str, attribute: str) -> float:
    values = [float(v) for e in root.iter(tag) if (v := e.get(attribute)) is not None]
    return sum(values) / len(values) if values else float("nan")


def close(reported: float, actual: float) -> bool:
    """A reported aggregate matches its artifact as a claim must: within 0.05% or 0.0005."""
    return abs(reported - actual) <= max(5e-4, 5e-4 * abs(actual))
