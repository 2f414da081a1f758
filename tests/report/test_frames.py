"""Frames drawn over the town's backdrop, each reusing the pixels of the frame before when
its agents did not change, are the frames drawn whole, pixel for pixel; a GIF joins them."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from simulacra.experiments import load_scenario, run
from simulacra.report import assemble_video, render_frames
from simulacra.report.frame_maps import DPI
from simulacra.report.frames import painter_for
from simulacra.report.replay import build_replay
from simulacra.runlog import read_events

TOWN = Path(__file__).resolve().parents[2] / "scenarios" / "town.yaml"


@pytest.fixture(scope="module")
def town(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    quiet = ["model.spec=scripted", "memory.embedder=hashing", "output.report=false"]
    # From 05:30: they sleep until their day begins (frames that reuse the one before), then
    # go from step to step (frames drawn anew).
    early = ["agents.count=3", "clock.start=2024-02-14T05:30", "clock.duration=3h"]
    scenario = load_scenario(TOWN, [*quiet, *early, f"output.root={root}"])
    return run(scenario, progress=False).path


def whole(path: Path, step: int) -> np.ndarray:
    events = list(read_events(path / "events.jsonl"))
    replay = build_replay(events)
    painter = painter_for(replay, next(e.data["world"] for e in events if e.kind == "run"))
    fig = Figure(figsize=painter.size, dpi=DPI)
    canvas = FigureCanvasAgg(fig)
    painter.draw(fig, replay.frames[step])
    canvas.draw()
    image = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba())
    return np.asarray(image.convert("RGB"))


def test_every_frame_is_the_frame_drawn_whole(town: Path) -> None:
    drawn = render_frames(town)
    frames = [e.data for e in read_events(town / "events.jsonl", {"world"})]
    unchanged = sum(1 for a, b in pairwise(frames) if {**a, "step": 0} == {**b, "step": 0})
    assert len(drawn) == len(frames) and unchanged > 0  # some frames reuse the one before
    for step, path in enumerate(drawn):
        assert np.array_equal(np.asarray(Image.open(path)), whole(town, step)), path.name


def test_the_gif_has_a_frame_per_png(town: Path) -> None:
    drawn = render_frames(town)
    video = assemble_video(town)
    if video.suffix == ".gif":
        assert Image.open(video).n_frames == len(drawn)
    assert video.stat().st_size > 0
