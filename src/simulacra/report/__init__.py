"""A run's outputs: the HTML report with plots, the replay viewer, and a local server for both."""

from simulacra.report.evidence import EvidenceNode, evidence_tree
from simulacra.report.frames import assemble_video, render_frames
from simulacra.report.outputs import ReportError, build_outputs
from simulacra.report.replay import build_replay
from simulacra.report.replay_model import Replay
from simulacra.report.safe_json import json_for_script
from simulacra.report.serve import ServeError, serve_run

__all__ = [
    "EvidenceNode",
    "Replay",
    "ReportError",
    "ServeError",
    "assemble_video",
    "build_outputs",
    "build_replay",
    "evidence_tree",
    "json_for_script",
    "render_frames",
    "serve_run",
]
