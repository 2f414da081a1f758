"""Write a run's report.html and viewer.html from its events.jsonl, run.json and metrics.json."""

from __future__ import annotations

import base64
import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from simulacra.errors import UserError
from simulacra.report.cost import read_cost
from simulacra.report.replay import build_replay
from simulacra.report.replay_model import Replay
from simulacra.report.report_page import render_report
from simulacra.report.viewer_page import render_viewer
from simulacra.runlog import Event, read_events

log = logging.getLogger(__name__)


class ReportError(UserError, ValueError):
    """A run whose report, viewer or frames cannot be made from what it holds."""


def build_outputs(run_dir: str | Path) -> dict[str, Path]:
    """Render both pages into the run directory; return {"report": path, "viewer": path}."""
    run = Path(run_dir)
    events = list(read_events(run / "events.jsonl"))
    replay = build_replay(events, _read_json(run / "run.json"))
    if replay.run.world == "embodied":
        replay = with_images(replay, run, events)
    metrics = _read_json(run / "metrics.json")
    paths = {"report": run / "report.html", "viewer": run / "viewer.html"}
    page = render_report(
        replay,
        events,
        metrics,
        _read_json(run / "eval.json"),
        _read_json(run / "diagnose.json"),
        _read_json(run / "trace.json"),
        read_cost(run),
    )
    paths["report"].write_text(page, encoding="utf-8")
    paths["viewer"].write_text(render_viewer(replay), encoding="utf-8")
    return paths


def with_images(replay: Replay, run: Path, events: list[Event]) -> Replay:
    """The embodied replay with its pictures inline: each decision's first-person view (the
    file the run saved) and an overview per frame, re-rendered from the log. A run whose
    scene cannot be rendered here keeps its views and goes without overviews."""
    agents = {}
    for agent_id, track in replay.agents.items():
        decisions = tuple(
            replace(d, image=_data_uri(run / d.image) if d.image else "") for d in track.decisions
        )
        agents[agent_id] = replace(track, decisions=decisions)
    overviews: tuple[str, ...] = ()
    try:
        from simulacra.report.frame_embodied import overview_pngs

        overviews = tuple(_png_uri(png) for png in overview_pngs(run, events))
    except Exception:
        log.exception("the overviews of %s could not be rendered; the viewer shows none", run)
    return replace(replay, agents=agents, overviews=overviews)


def _data_uri(path: Path) -> str:
    views = (path.parent.parent.parent / "views").resolve()
    inside = path.resolve().is_relative_to(views)  # only the run's own views/ folder
    if not inside or path.suffix != ".png" or not path.is_file():
        return ""
    return _png_uri(path.read_bytes())


def _png_uri(png: bytes) -> str:
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
