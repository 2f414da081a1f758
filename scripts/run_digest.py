"""Digests of a run directory that two runs of the same behaviour share.

    python scripts/run_digest.py RUN [RUN ...]

Prints one JSON line per run: the sha256 of events.jsonl and of metrics.json with the
wall-clock fields left out (`wall`, every `latency_s`, a checkpoint's byte `offset`, and the
wall times in metrics), the event count and the counts by kind. Used to check that a
refactoring kept behaviour: record the digests before, compare after (`simulacra diff A B`
compares two runs on this machine and names the first difference).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from simulacra.runlog.compare import without_wall as strip


def digest(run: Path) -> dict[str, Any]:
    events = hashlib.sha256()
    kinds: Counter[str] = Counter()
    with (run / "events.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            event = json.loads(line)
            kinds[event["kind"]] += 1
            events.update(json.dumps(strip(event), sort_keys=True).encode())
    metrics_path = run / "metrics.json"
    metrics = json.loads(metrics_path.read_text(encoding="utf-8")) if metrics_path.exists() else {}
    return {
        "run": run.name,
        "events_sha256": events.hexdigest()[:16],
        "metrics_sha256": hashlib.sha256(
            json.dumps(strip(metrics), sort_keys=True).encode()
        ).hexdigest()[:16],
        "events": sum(kinds.values()),
        "kinds": dict(sorted(kinds.items())),
    }


def main() -> None:
    for arg in sys.argv[1:]:
        print(json.dumps(digest(Path(arg))))


if __name__ == "__main__":
    main()
