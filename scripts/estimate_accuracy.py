"""How close `simulacra estimate` comes to the run it predicts: for each scenario given,
estimate, then run it for real, and print one JSON line per scenario (estimate, interval,
actual, relative error, whether the interval covers it) and a table at the end.

    python scripts/estimate_accuracy.py scenarios/*.yaml --model scripted
    python scripts/estimate_accuracy.py scenarios/elfarol.yaml --model embedded \
        --set agents.count=6 --set clock.ticks=6
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from simulacra.experiments.estimate import estimate
from simulacra.experiments.load import load_scenario
from simulacra.experiments.pipeline import run
from simulacra.runlog import read_events

MEASURES = ("calls", "prompt_tokens", "completion_tokens", "tokens", "wall_s")


def measure(path: str, sets: list[str]) -> dict[str, Any]:
    scenario = load_scenario(path, sets)
    work = Path(tempfile.mkdtemp(prefix="estimate-accuracy-"))
    try:
        found = estimate(scenario, work=work / "pilots")
        actual_run = load_scenario(scenario, [f"output.root={work / 'actual'}"])
        started = time.perf_counter()
        run_dir = run(actual_run, progress=False)
        wall = time.perf_counter() - started
        calls = list(read_events(run_dir.events_path, {"llm.call"}))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    prompt = sum(c.data["prompt_tokens"] for c in calls)
    completion = sum(c.data["completion_tokens"] for c in calls)
    actual = {
        "calls": len(calls),
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "tokens": prompt + completion,
        "wall_s": round(wall, 2),
    }
    figures = found.as_dict()
    row: dict[str, Any] = {
        "scenario": scenario.name,
        "model": scenario.model.spec,
        "ticks": found.ticks,
        "pilot_ticks": found.pilot_ticks,
        "model_pilot_ticks": found.model_pilot_ticks,
        "pilot_wall_s": found.pilot_wall_s,
    }
    for name in MEASURES:
        figure, value = figures[name], actual[name]
        error = (figure["value"] - value) / value if value else 0.0
        row[name] = {
            "estimate": round(figure["value"], 1),
            "low": round(figure["low"], 1),
            "high": round(figure["high"], 1),
            "actual": value,
            "error": round(error, 4),
            "covered": figure["low"] <= value <= figure["high"],
        }
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("scenarios", nargs="+")
    parser.add_argument("--model", default="scripted")
    parser.add_argument("--set", action="append", default=[], dest="sets")
    args = parser.parse_args()
    rows = []
    for path in args.scenarios:
        row = measure(path, [f"model.spec={json.dumps(args.model)}", *args.sets])
        print(json.dumps(row), flush=True)
        rows.append(row)
    print(
        "\n| scenario | model | pilot | calls est. [95%] | actual | err | tokens est. [95%] | "
        "actual | err | wall est. s | actual s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        c, t, w = r["calls"], r["tokens"], r["wall_s"]
        pilot = f"{r['pilot_ticks']}/{r['ticks']}" + (
            f" + {r['model_pilot_ticks']}" if r["model_pilot_ticks"] else ""
        )
        print(
            f"| {r['scenario']} | {r['model']} | {pilot} | {c['estimate']:,.0f} "
            f"[{c['low']:,.0f}-{c['high']:,.0f}] | {c['actual']:,} | {c['error']:+.1%}"
            f"{'' if c['covered'] else ' (outside)'} | {t['estimate']:,.0f} "
            f"[{t['low']:,.0f}-{t['high']:,.0f}] | {t['actual']:,} | {t['error']:+.1%}"
            f"{'' if t['covered'] else ' (outside)'} | {w['estimate']:.1f} | {w['actual']:.1f} |"
        )


if __name__ == "__main__":
    main()
