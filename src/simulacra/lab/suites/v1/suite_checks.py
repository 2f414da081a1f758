"""What the suite's verify.py programs share: reading artifacts and printing a verdict.

A verify program reads only the attempt's files (the working folder) and prints one JSON line,
`{"passed": bool, "checks": [{"check", "passed", "detail"}]}`. It never trusts the report.
"""

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


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

    def json(self, relative: str) -> object:
        try:
            return json.loads((self.root / relative).read_text())
        except (OSError, ValueError) as exc:
            self.check(f"{relative} parses", False, exc)
            return None

    def done(self) -> None:
        passed = bool(self.checks) and all(c["passed"] for c in self.checks)
        print(json.dumps({"passed": passed, "checks": self.checks}))


def junctions(net: ET.Element) -> list[ET.Element]:
    return [j for j in net.iter("junction") if j.get("type") != "internal"]


def edges(net: ET.Element) -> list[ET.Element]:
    return [e for e in net.iter("edge") if e.get("function") != "internal"]


def mean(root: ET.Element, tag: str, attribute: str) -> float:
    values = [float(e.get(attribute)) for e in root.iter(tag)]
    return sum(values) / len(values) if values else float("nan")


def close(a: float, b: float, rel: float = 0.01) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-9)
