"""A run's outputs: the HTML report with plots, the replay viewer, and a local server for both.

Each name is imported on first use, so that a world's binding can register its report
(`simulacra.report.per_world`) without loading matplotlib.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from simulacra.report.console_api import ConsoleSite
    from simulacra.report.evidence import EvidenceNode, evidence_tree
    from simulacra.report.frames import assemble_video, render_frames
    from simulacra.report.outputs import ReportError, build_outputs, read_json_object
    from simulacra.report.per_world import WorldReport, register_world_report, world_report
    from simulacra.report.rating_page import render_rating_page
    from simulacra.report.replay import build_replay
    from simulacra.report.replay_model import Replay
    from simulacra.report.safe_json import json_for_script
    from simulacra.report.serve import ServeError, serve_run

_WHERE = {
    "ConsoleSite": "console_api",
    "EvidenceNode": "evidence",
    "evidence_tree": "evidence",
    "assemble_video": "frames",
    "render_frames": "frames",
    "ReportError": "outputs",
    "build_outputs": "outputs",
    "read_json_object": "outputs",
    "render_rating_page": "rating_page",
    "build_replay": "replay",
    "Replay": "replay_model",
    "json_for_script": "safe_json",
    "ServeError": "serve",
    "serve_run": "serve",
    "WorldReport": "per_world",
    "register_world_report": "per_world",
    "world_report": "per_world",
}
__all__ = [
    "ConsoleSite",
    "EvidenceNode",
    "Replay",
    "ReportError",
    "ServeError",
    "WorldReport",
    "assemble_video",
    "build_outputs",
    "build_replay",
    "evidence_tree",
    "json_for_script",
    "read_json_object",
    "register_world_report",
    "render_frames",
    "render_rating_page",
    "serve_run",
    "world_report",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"simulacra.report.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'simulacra.report' has no attribute {name!r}")
