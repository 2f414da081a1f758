"""What a researcher reads in the reports, checked without a browser: each place of the
timeline its own fill, names given room, a two-day town's every planted fact on its own line
with its times' days, topics cut at a word, and the diffusion line broken at the night."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.engine.test_conformance import SCENARIOS

from simulacra.core import at_a_word
from simulacra.experiments import load_scenario, run
from simulacra.report import build_outputs
from simulacra.report.plots import DiffusionPoint, diffusion_svg
from simulacra.report.replay import build_replay
from simulacra.report.replay_model import Place, Replay
from simulacra.report.timeline import PALETTE, day_timeline_svg, place_colours
from simulacra.runlog import read_events

from .conftest import write_town_run


def _replay(tmp_path: Path) -> Replay:
    path = write_town_run(tmp_path / "run")
    return build_replay(
        read_events(path / "events.jsonl"), json.loads((path / "run.json").read_text())
    )


def _with_places(replay: Replay, count: int) -> Replay:
    places = tuple(Place(f"place {i}", "home", 10.0 * i, 0.0, 8.0, 8.0) for i in range(count))
    return type(replay)(**{**vars(replay), "places": places})


def test_each_place_of_the_timeline_has_a_fill_of_its_own_past_the_palette(
    tmp_path: Path,
) -> None:
    replay = _replay(tmp_path)
    for count in (16, len(PALETTE) + 4):
        colours = place_colours(_with_places(replay, count))
        named = [c for name, c in colours.items() if name != "between places"]
        assert len(set(named)) == len(named) >= count
        svg = day_timeline_svg(_with_places(replay, count))
        for fill in named:  # each hatch a place takes is defined in the drawing
            if fill.startswith("url(#"):
                assert f'<pattern id="{fill[5:-1]}"' in svg


def test_a_long_agent_name_gets_room_left_of_the_timeline(tmp_path: Path) -> None:
    replay = _replay(tmp_path)
    long = "administrative_worker_001 of the northern district"
    agents = dict(replay.agents)
    first = next(iter(agents))
    agents[first] = type(agents[first])(**{**vars(agents[first]), "name": long})
    svg = day_timeline_svg(type(replay)(**{**vars(replay), "agents": agents}))
    x = float(re.search(r'<text x="([\d.]+)"[^>]*class="agent-name">' + long, svg).group(1))
    assert x >= 6.5 * len(long)  # the name, right-aligned at x, starts inside the drawing


@given(st.text(alphabet="ab cd,", min_size=0, max_size=60), st.integers(min_value=4, max_value=40))
def test_text_cut_at_a_word_fits_and_cuts_no_word(text: str, most: int) -> None:
    cut = at_a_word(text, most)
    assert len(cut) <= max(most, len(text) if len(text) <= most else 0) or cut == text
    if cut == text:
        assert len(text) <= most
        return
    assert cut.endswith("\u2026") and len(cut) <= most
    head = cut[:-1]
    assert text.startswith(head)
    rest = text[len(head) :]
    # What was dropped starts a new word, unless a single word ran past the room.
    assert " " not in head.strip() or not rest[:1].isalnum() or not head[-1:].isalnum()


def test_the_diffusion_line_stops_at_the_skipped_night() -> None:
    points = [
        DiffusionPoint(datetime(2024, 2, 13, 13), 1, 4, "a"),
        DiffusionPoint(datetime(2024, 2, 13, 20, 50), 2, 4, "b"),
        DiffusionPoint(datetime(2024, 2, 14, 16), 3, 4, "c"),
    ]
    svg = diffusion_svg(points, [(datetime(2024, 2, 13, 21), datetime(2024, 2, 14, 7))])
    paths = re.findall(r'<path d="([^"]*)"[^>]*style="([^"]*)"', svg)
    xs = [[float(x) for x in re.findall(r"[ML] ([\d.]+) ", d)] for d, _ in paths]
    night = next(x for x, (_, style) in zip(xs, paths, strict=True) if "#eef0f3" in style)
    lines = [x for x, (_, style) in zip(xs, paths, strict=True) if "stroke: #00798c" in style]
    assert len(lines) >= 2  # a line each side of the night
    low, high = min(night), max(night)
    assert not [x for x in lines if min(x) < high - 1 and max(x) > low + 1]
    assert "14 Feb" in svg  # the axis says the day


@pytest.fixture(scope="module")
def two_days(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped two-day town, four agents on the scripted model, 07:00 to 09:00 the next
    day (the night skipped), interviewed each evening and morning."""
    root = tmp_path_factory.mktemp("two-days")
    settings = [
        "model.spec=scripted",
        "memory.embedder=hashing",
        "agents.count=4",
        "clock.duration=26h",
        'interviews.times=["2024-02-13T20:50", "2024-02-14T08:50"]',
        "world.attendance=null",
        f"output.root={root}",
    ]
    path = run(load_scenario(SCENARIOS / "town-2day.yaml", settings), progress=False).path
    build_outputs(path)
    return path


def test_every_planted_fact_gets_its_line_with_who_holds_it(two_days: Path) -> None:
    planted = json.loads((two_days / "metrics.json").read_text())["planted"]
    assert [(p["owner"], p["fact"], p["asked"]) for p in planted] == [
        ("marta_okafor", "party", True),
        ("sam_whitaker", "candidacy", False),
    ]
    assert [h["t"][:16] for h in planted[1]["held"]] == ["2024-02-13T20:50", "2024-02-14T08:50"]
    events = [json.loads(line) for line in (two_days / "events.jsonl").open(encoding="utf-8")]

    def heard(word: str) -> set[str]:
        """By hand: who was told a turn holding `word` in a conversation."""
        return {
            p
            for e in events
            if e["kind"] == "conversation"
            for t in e["data"]["turns"]
            if word in t["text"].lower()
            for p in e["data"]["participants"]
            if p != t["speaker"]
        }

    # The stand-in raises the party (the news it is given first), never the candidacy.
    party, candidacy = (set(p["held"][-1]["agents"]) for p in planted)
    assert party and party <= heard("party") - {"marta_okafor"}
    assert candidacy <= heard("mayor") - {"sam_whitaker"}
    page = (two_days / "report.html").read_text(encoding="utf-8")
    story = page[page.index('id="story"') : page.index("</section>", page.index('id="story"'))]
    assert "planted fact (candidacy)" in story and "run for mayor" in story
    assert "not asked at this run's interviews" in story
    assert "planted fact (party)" in story and "asked about at the interviews" in story
    # Times carry their day: every conversation and interview line starts "13 Feb" / "14 Feb".
    assert re.search(r"1[34] Feb \d\d:\d\d \w", story)
    assert "knew at 13 Feb 20:50" in story and "knew at 14 Feb 08:50" in story
    assert not re.search(r"<br>\d\d:\d\d ", story)  # no time without its day
