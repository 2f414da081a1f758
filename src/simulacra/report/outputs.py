"""Write a run's report.html and viewer.html from its events.jsonl, run.json and metrics.json."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from simulacra.errors import UserError
from simulacra.report.cost import read_cost
from simulacra.report.family import family_section, places_over_time, viewer_family
from simulacra.report.per_world import report_of_run
from simulacra.report.prompts import kept_prompts
from simulacra.report.replay import build_replay
from simulacra.report.report_page import render_report
from simulacra.report.viewer_page import render_viewer
from simulacra.runlog import history


class ReportError(UserError, ValueError):
    """A run whose report, viewer or frames cannot be made from what it holds."""


def build_outputs(run_dir: str | Path) -> dict[str, Path]:
    """Render both pages into the run directory; return {"report": path, "viewer": path}."""
    run = Path(run_dir)
    events = list(history(run))  # a fork: its parent's prefix, then its own
    cost = read_cost(run)
    replay = build_replay(
        events, _read_json(run / "run.json"), cost.get("price"), kept_prompts(run)
    )
    metrics = _read_json(run / "metrics.json")
    world = report_of_run(replay, metrics)
    pictures = world.pictures
    if pictures is not None:
        replay = pictures(replay, run, events)
    paths = {"report": run / "report.html", "viewer": run / "viewer.html"}
    page = render_report(
        replay,
        events,
        metrics,
        _read_json(run / "eval.json"),
        _read_json(run / "diagnose.json"),
        _read_json(run / "trace.json"),
        cost,
        family_section(run, events, world.over_time or places_over_time),
    )
    paths["report"].write_text(page, encoding="utf-8")
    family = viewer_family(run, replay, events)
    paths["viewer"].write_text(render_viewer(replay, family=family), encoding="utf-8")
    return paths


def png_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _read_json(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    return read_json_object(path, "delete it or rewrite it to build the report")


def read_json_object(path: Path, fix: str) -> dict[str, Any]:
    """A JSON file holding one object; a fault says what is wrong and `fix`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ReportError(f"{path}: not valid JSON ({error}); {fix}") from error
    if not isinstance(data, dict):
        raise ReportError(
            f"{path}: expected a JSON object at the top, found {type(data).__name__}; {fix}"
        )
    return data
