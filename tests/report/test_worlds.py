"""Every world gets its frames, its report and its viewer: the town, the grid, the commute."""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

import pytest
from PIL import Image, ImageSequence

from simulacra.report import assemble_video, build_outputs, build_replay, render_frames
from simulacra.runlog import LogError, read_events

from .conftest import IMG_PAYLOAD, SCRIPT_PAYLOAD, STEPS
from .test_outputs import OUTSIDE
from .worlds import COMMUTE_DAYS, GRID_STEPS, ON_TIME_WINDOW

WORLDS = ["town_run", "grid_run", "commute_run"]
WORLD_EVENTS = {"town_run": STEPS, "grid_run": GRID_STEPS + 1, "commute_run": COMMUTE_DAYS + 1}


def world_events(run: Path) -> list[int]:
    return [e.data["step"] for e in read_events(run / "events.jsonl", kinds={"world"})]


@pytest.mark.parametrize("world", WORLDS)
def test_each_world_draws_one_frame_per_world_event_from_the_start(world, request):
    run = request.getfixturevalue(world)
    frames = render_frames(run)
    assert len(frames) == WORLD_EVENTS[world] == len(world_events(run))
    assert [f.name for f in frames][:2] == ["step_000.png", "step_001.png"]  # 0: the start
    assert sorted((run / "frames").iterdir()) == frames
    for frame in frames:
        with Image.open(frame) as image:
            assert image.format == "PNG" and image.width >= 700


@pytest.mark.parametrize("world", WORLDS)
def test_frames_drawn_twice_are_the_same_bytes(world, request):
    run = request.getfixturevalue(world)
    first = [f.read_bytes() for f in render_frames(run)]
    second = [f.read_bytes() for f in render_frames(run)]
    assert first == second
    assert len(set(first)) > 1  # and they change as the world does


def test_frames_are_redrawn_in_place_of_an_earlier_drawing(grid_run):
    (grid_run / "frames").mkdir()
    (grid_run / "frames" / "step_099.png").write_bytes(b"stale")
    render_frames(grid_run)
    assert not (grid_run / "frames" / "step_099.png").exists()


def test_a_run_whose_world_lays_out_nothing_is_refused_with_a_reason(town_run):
    lines = (town_run / "events.jsonl").read_text(encoding="utf-8").splitlines()
    start = json.loads(lines[0])
    start["data"]["world"] = {"kind": "nowhere"}
    world_lines = [json.loads(line) for line in lines if '"kind":"world"' in line]
    for line in world_lines:
        line["data"]["agents"] = {}
    kept = [json.dumps(start), *(json.dumps(line) for line in world_lines)]
    (town_run / "events.jsonl").write_text("\n".join(kept) + "\n", encoding="utf-8")
    (town_run / "run.json").unlink()
    with pytest.raises(ValueError, match=r"nowhere.*nothing to draw"):
        render_frames(town_run)


def test_a_folder_without_events_has_no_frames(tmp_path):
    with pytest.raises(LogError, match=r"events\.jsonl: the event log is missing"):
        render_frames(tmp_path)


def test_the_frames_are_joined_into_a_gif_without_ffmpeg(commute_run, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    video = assemble_video(commute_run, fps=4)  # draws the frames first: there are none yet
    assert video.name == "frames.gif"
    with Image.open(video) as gif:
        assert len(list(ImageSequence.Iterator(gif))) == COMMUTE_DAYS + 1


# ---- the report and the viewer of each world -------------------------------------------


@pytest.mark.parametrize("world", WORLDS)
def test_each_world_gets_a_self_contained_report_and_viewer(world, request):
    run = request.getfixturevalue(world)
    paths = build_outputs(run)
    report = paths["report"].read_text(encoding="utf-8")
    viewer = paths["viewer"].read_text(encoding="utf-8")
    assert "<script" not in report
    for page in (report, viewer):
        assert SCRIPT_PAYLOAD not in page and IMG_PAYLOAD not in page
        assert not OUTSIDE.search(page)
    replay = build_replay(
        read_events(run / "events.jsonl"), json.loads((run / "run.json").read_text())
    )
    assert len(replay.frames) == WORLD_EVENTS[world]
    assert f"<th>world</th><td>{replay.run.world}</td>" in report


def test_the_grid_report_shows_who_was_warned_and_how_and_the_exposure_per_step(grid_run):
    page = build_outputs(grid_run)["report"].read_text(encoding="utf-8")
    warnings = _section(page, "warnings")
    assert "1 saw it; 1 knew of it by message alone" in warnings
    assert '<a href="viewer.html#step=3">step 3</a>' in warnings  # agent 1, warned by 0
    assert 'href="viewer.html#step=0&amp;agent=1"' in warnings
    exposure = _section(page, "exposure")
    assert "<svg" in exposure and "any fire" in exposure
    assert "warned by message only" in _section(page, "headline")
    assert "<h3>warnings</h3>" not in _section(page, "metrics")  # shown above, not twice


def test_the_commute_report_shows_punctuality_with_its_window_and_both_figures(commute_run):
    page = build_outputs(commute_run)["report"].read_text(encoding="utf-8")
    punctuality = _section(page, "punctuality")
    assert ON_TIME_WINDOW in punctuality
    assert "Taxi strike: days 2." in punctuality
    for row in ("all trips", "student", "factory_worker", "strike days only"):
        assert f"<td>{row}</td>" in punctuality
    for anchor in ("modal-split", "taxi-wait"):
        (uri,) = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', _section(page, anchor))
        assert base64.b64decode(uri).decode().count("<svg") == 1
    assert "11.5" in _section(page, "taxi-wait")


def test_the_town_report_plots_the_news_spreading_and_lists_who_came(town_run):
    page = build_outputs(town_run)["report"].read_text(encoding="utf-8")
    diffusion = _section(page, "diffusion")
    assert "<svg" in diffusion
    assert '<a href="viewer.html#step=0&amp;agent=bo">bo</a>' in diffusion  # aware at the end
    assert "Juniper Cafe" in _section(page, "attendance")


def test_the_commute_viewer_carries_the_corridor_and_its_bus_stops(commute_run):
    page = build_outputs(commute_run)["viewer"].read_text(encoding="utf-8")
    data = re.search(r'id="replay-data">(.*?)</script>', page, re.S)
    assert data is not None
    replay = json.loads(data.group(1))
    assert replay["run"]["world"] == "commute"
    assert len(replay["layers"]["stops"]) == 11
    assert [p["name"] for p in replay["places"]] == ["riverside", "university", "industrial_estate"]


# ---- through the real pipeline ---------------------------------------------------------

SCENARIOS = Path(__file__).parents[2] / "scenarios"
SMALL = {
    "town": [
        "memory.embedder=hashing",
        "clock.duration=40m",
        'interviews.times=["07:20"]',
        "world.attendance.start=07:20",
        "world.attendance.end=07:40",
    ],
    "hazard": ["clock.ticks=3", "world.fires.1.start_step=3"],
    "commute": [
        "clock.ticks=3",
        "world.city.taxi_strikes.0.days=[2, 3]",
        "agents.mix={student: 2, factory_worker: 2}",
    ],
}


@pytest.mark.parametrize("scenario", list(SMALL))
def test_a_scripted_run_of_each_world_gets_its_report_viewer_and_frames(scenario, tmp_path):
    from simulacra.experiments import load_scenario, run

    chosen = load_scenario(
        SCENARIOS / f"{scenario}.yaml",
        [
            "model.spec=scripted",
            f"output.root={tmp_path}",
            "output.report=true",
            "output.frames=true",
            *SMALL[scenario],
        ],
    )
    path = run(chosen, progress=False).path
    assert (path / "report.html").stat().st_size > 1000
    assert (path / "viewer.html").stat().st_size > 1000
    frames = sorted((path / "frames").glob("step_*.png"))
    assert len(frames) == len(world_events(path)) > 1


def _section(page: str, anchor: str) -> str:
    match = re.search(rf'<section id="{anchor}">(.*?)</section>', page, re.S)
    assert match is not None, f"no section #{anchor}"
    return match.group(1)
