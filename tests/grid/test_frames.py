import shutil
from pathlib import Path

from PIL import Image, ImageSequence

from simulacra.experiments import run
from simulacra.llm import ScriptedModel
from simulacra.mind.grid import script_grid_agents
from simulacra.report.frame_maps import title_of
from simulacra.report.frames import assemble_video
from simulacra.report.replay import build_replay
from simulacra.runlog import read_events

from .conftest import scenario


def test_frames_are_written_for_the_start_and_every_step_then_assembled(
    tmp_path: Path,
) -> None:
    people = [
        {"id": "a", "gender": "female", "position": [0, 0]},
        {"id": "b", "gender": "male", "position": [2, 0]},
    ]
    fire = {"name": "fire1", "start_step": 1, "position": [1, 1], "intensity": 0.5, "radius": 3}
    cafe = {"name": "cafe", "type": "cafe", "center": [-5, -5], "extent": [2, 2], "capacity": 2}
    done = run(
        scenario(tmp_path, people, steps=2, fires=[fire], places=[cafe], frames=True),
        model=script_grid_agents(ScriptedModel()),
        progress=False,
    )
    frames = sorted((done.path / "frames").glob("*.png"))
    assert [f.name for f in frames] == ["step_000.png", "step_001.png", "step_002.png"]
    assert Image.open(frames[0]).size == (700, 700)
    video = assemble_video(done)
    if shutil.which("ffmpeg"):
        assert video.name == "frames.mp4" and video.stat().st_size > 0
    else:
        assert video.name == "frames.gif"
        assert len(list(ImageSequence.Iterator(Image.open(video)))) == 3


def test_a_frame_is_titled_with_its_steps_span_not_the_start_of_it(tmp_path: Path) -> None:
    people = [{"id": "a", "gender": "female", "position": [0, 0]}]
    model = script_grid_agents(ScriptedModel())
    done = run(scenario(tmp_path, people, steps=3), model=model, progress=False)
    replay = build_replay(read_events(done.events_path))
    titles = [title_of(replay, frame) for frame in replay.frames]
    # The state after step 3 of an hourly clock from midnight holds at 03:00, not at 02:00.
    assert [t.split(" · ", 2)[1:] for t in titles] == [
        ["step 0 (the start)", "2000-01-01 00:00"],
        ["step 1", "2000-01-01 00:00-01:00"],
        ["step 2", "2000-01-01 01:00-02:00"],
        ["step 3", "2000-01-01 02:00-03:00"],
    ]
