"""A run's outputs: the HTML report with plots, the replay viewer, and a local server for both."""

from simulacra.report.evidence import EvidenceNode, evidence_tree
from simulacra.report.frames import assemble_video, render_frames
from simulacra.report.outputs import ReportError, build_outputs, read_json_object
from simulacra.report.rating_page import render_rating_page
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
    "read_json_object",
    "render_frames",
    "render_rating_page",
    "serve_run",
]
