import json

from hypothesis import given
from hypothesis import strategies as st

from simulacra.report import EvidenceNode, build_replay, evidence_tree, json_for_script
from simulacra.report.replay import initials
from simulacra.report.replay_model import Marker
from simulacra.report.timeline import ON_THE_WAY, segments
from simulacra.runlog import Event, read_events

from .conftest import DAYS, SCRIPT_PAYLOAD, STEPS, at


def _replay(run):
    info = json.loads((run / "run.json").read_text())
    return build_replay(read_events(run / "events.jsonl"), info)


def test_there_is_one_frame_per_world_event_with_every_agents_place_and_action(town_run):
    replay = _replay(town_run)
    assert [f.step for f in replay.frames] == list(range(STEPS))  # step 0: the start
    assert replay.frames[3].t == at(3).isoformat()
    for step, frame in enumerate(replay.frames):
        for agent, day in DAYS.items():
            assert (frame.agents[agent].place, frame.agents[agent].action) == day[step]
    assert replay.frames[9].extras == {"fires": [{"x": 72, "y": 57, "r": 3, "label": "bonfire"}]}
    assert replay.frames[0].extras == {}


def test_an_event_belongs_to_the_step_whose_world_state_is_written_after_it(town_run):
    replay = _replay(town_run)
    assert {m.frame for m in replay.messages if m.conversation == "c1"} == {7}
    assert replay.agents["ada"].retrievals[0].frame == 2
    assert [c.frame for c in replay.conversations] == [7, 10]


def test_memories_until_a_frame_are_those_the_agent_had_stored_by_then(town_run):
    replay = _replay(town_run)
    ids = lambda frame: [m.id for m in replay.memories_until("ada", frame)]  # noqa: E731
    assert ids(0) == ["ada-1", "ada-2"]
    assert ids(3) == ["ada-1", "ada-2", "ada-3"]
    assert ids(4) == ["ada-1", "ada-2", "ada-3", "ada-r1"]
    assert ids(STEPS - 1)[-1] == "ada-r2"
    assert [m.id for m in replay.memories_until("bo", 6)] == ["bo-1"]


def test_a_reflections_evidence_is_resolved_through_the_reflections_it_cites(town_run):
    replay = _replay(town_run)
    later = replay.agents["ada"].reflections[1]
    (insight,) = later.insights
    assert insight.tree == (
        EvidenceNode("ada-r1", True, (EvidenceNode("ada-1", True), EvidenceNode("ada-2", True))),
        EvidenceNode("ada-3", True),
        EvidenceNode("ghost-9", False),
    )
    assert later.rejected == ("Cy is coming too (cited a statement it was not shown)",)


def test_evidence_that_cites_itself_is_cut_at_the_cycle():
    cites = {"a": ("b",), "b": ("a",)}
    again = EvidenceNode("a", True, stop="cycle")
    assert evidence_tree(["a"], cites) == (
        EvidenceNode("a", True, (EvidenceNode("b", True, (again,)),)),
    )


def test_evidence_deeper_than_the_limit_is_marked_not_dropped():
    cites = {"r3": ("r2",), "r2": ("r1",), "r1": ("o",), "o": ()}
    (root,) = evidence_tree(["r3"], cites, max_depth=2)
    assert root.children == (EvidenceNode("r2", True, stop="depth"),)


def _depth(nodes):
    return 1 + max((_depth(n.children) for n in nodes), default=0) if nodes else 0


@given(
    st.dictionaries(
        st.sampled_from("abcdefgh"), st.lists(st.sampled_from("abcdefghz"), max_size=4), max_size=8
    ),
    st.integers(min_value=1, max_value=5),
)
def test_an_evidence_tree_always_ends_within_its_depth_limit(graph, max_depth):
    cites = {k: tuple(v) for k, v in graph.items()}
    tree = evidence_tree(list("abcz"), cites, max_depth=max_depth)
    assert _depth(tree) <= max_depth
    assert [n.found for n in tree] == [k in cites for k in "abcz"]


def test_frame_of_step_picks_the_frame_at_or_just_before_that_step(town_run):
    replay = _replay(town_run)
    assert replay.frame_of_step(5) == 5
    assert replay.frame_of_step(-3) == 0
    assert replay.frame_of_step(999) == STEPS - 1


def test_the_run_summary_says_when_the_model_was_scripted(town_run):
    replay = _replay(town_run)
    assert replay.run.scripted
    assert (replay.run.scenario, replay.run.seed, replay.run.status) == ("town", 7, "completed")
    assert replay.run.duration_s == 12.5
    assert replay.to_dict()["run"]["scripted"] is True


def test_events_with_missing_fields_still_make_a_replay():
    events = [
        Event(0, None, 0.0, "run", None, {"world": {"places": [{"name": "nowhere"}]}}),
        Event(1, None, 0.0, "memory.add", "x", {}),
        Event(2, None, 0.0, "retrieval", "x", {"results": [{"id": "m"}, "junk"]}),
        Event(3, None, 0.0, "reflection", "x", {"insights": [{"text": "hm"}]}),
        Event(4, None, 0.0, "world", None, {"agents": {"x": {"place": "p"}}}),
        Event(5, None, 0.0, "message", "x", {"text": None}),
    ]
    replay = build_replay(events)
    assert replay.places == ()  # a place without x and y cannot be drawn
    assert replay.frames[0].agents["x"].x is None
    assert replay.agents["x"].retrievals[0].results[0].total == 0.0
    assert replay.run.status == "unknown"
    assert json.loads(json_for_script(replay.to_dict()))["frames"][0]["step"] == 0


@given(st.text())
def test_embedded_json_can_never_close_its_script_tag(text):
    embedded = json_for_script({"persona": text, "list": [text]})
    assert "<" not in embedded and ">" not in embedded and "&" not in embedded
    assert "\u2028" not in embedded and "\u2029" not in embedded
    assert json.loads(embedded) == {"persona": text, "list": [text]}


def test_script_payloads_survive_embedding_as_text():
    embedded = json_for_script({"traits": SCRIPT_PAYLOAD, "score": float("nan")})
    assert "</script" not in embedded.lower()
    assert json.loads(embedded) == {"traits": SCRIPT_PAYLOAD, "score": None}


def test_an_agent_between_places_is_on_the_way_in_its_timeline():
    def world(step, place):
        return Event(
            step, None, 0.0, "world", None, {"step": step, "agents": {"x": {"place": place}}}
        )

    replay = build_replay([world(0, "Cafe"), world(1, None), world(2, None), world(3, "Park")])
    assert [(s.place, s.first, s.last) for s in segments(replay, "x")] == [
        ("Cafe", 0, 0),
        (ON_THE_WAY, 1, 2),
        ("Park", 3, 3),
    ]


def test_markers_of_the_layout_are_kept_so_frames_can_name_them():
    world = {
        "places": [{"name": "cafe", "x": -20, "y": -5, "w": 11, "h": 11}],
        "fires": [{"name": "fire1", "position": [15, 10], "radius": 15.0}, {"name": "no place"}],
    }
    events = [
        Event(0, None, 0.0, "run", None, {"world": world}),
        Event(1, None, 0.0, "world", None, {"step": 0, "agents": {}, "fires": ["fire1"]}),
    ]
    replay = build_replay(events)
    assert replay.layers == {"fires": (Marker("fire1", 15.0, 10.0, 15.0),)}
    assert replay.frames[0].extras["fires"] == ["fire1"]


def test_a_world_whose_y_axis_points_up_is_mirrored_for_the_screen():
    world = {
        "y_axis": "up",
        "places": [{"name": "cafe", "kind": "cafe", "x": -20, "y": -5, "w": 11, "h": 11}],
        "fires": [{"name": "fire1", "position": [15, 10], "radius": 15}],
    }
    events = [
        Event(0, None, 0.0, "run", None, {"world": world, "agents": {"a": {"gender": "f"}}}),
        Event(1, None, 0.0, "world", None, {"step": 0, "agents": {"a": {"x": 3, "y": 7}}}),
    ]
    replay = build_replay(events)
    assert replay.frames[0].agents["a"].y == -7  # north of the origin is drawn above it
    assert replay.places[0].y == -6  # the rectangle spans y -5..6, drawn from -6 down to 5
    assert replay.layers["fires"][0].y == -10
    upright = build_replay(
        [Event(0, None, 0.0, "run", None, {"world": {**world, "y_axis": "down"}})]
    )
    assert upright.places[0].y == -5


def test_the_summary_names_the_world_from_run_json_or_else_the_run_event(town_run, grid_run):
    assert _replay(town_run).run.world == "town"
    assert build_replay(read_events(grid_run / "events.jsonl")).run.world == "grid"


def test_a_grid_is_drawn_by_cells_and_its_positions_are_not_repeated_in_the_frames(grid_run):
    replay = _replay(grid_run)
    (cafe,) = replay.places
    # Cells x -6..-2 and y -2..2, mirrored for the screen: edges at x -6.5..-1.5, y -2.5..2.5.
    assert (cafe.x, cafe.y, cafe.w, cafe.h) == (-6.5, -2.5, 5, 5)
    assert replay.bounds[0] < -8.5 and replay.bounds[0] + replay.bounds[2] > 8.5  # the field
    assert "positions" not in replay.frames[0].extras
    assert replay.frames[2].extras["fires"] == ["fire1"]
    assert replay.layers["fires"][0].y == -4  # north of the origin is drawn above it


def test_the_commute_corridor_keeps_its_stops_and_gets_room_above_and_below(commute_run):
    replay = _replay(commute_run)
    assert [m.name for m in replay.layers["stops"]][:2] == ["stop 0", "stop 1"]
    _, _, width, height = replay.bounds
    assert height >= 0.3 * width  # a 10 km corridor is not drawn as a hairline
    assert replay.frames[0].agents["student_001"].place == "riverside"
    assert replay.frames[1].agents["student_001"].action == "walk"


def test_initials_keep_the_number_of_a_numbered_id():
    assert [initials(n) for n in ("Ada Lin", "student_007", "factory_worker_010", "12", "bo")] == [
        "AL",
        "S7",
        "FW10",
        "12",
        "BO",
    ]


def test_the_day_timeline_leaves_a_skipped_night_empty_and_says_so():
    """Two evenings and a morning, ticks of an hour: the night between is not simulated, so
    no agent's bar may cross it (a bar ends at 21:00 and the next starts at 07:00)."""
    from simulacra.report.timeline import day_timeline_svg

    times = ["2024-02-13T20:00", "2024-02-13T21:00", "2024-02-14T08:00", "2024-02-14T09:00"]
    run = Event(0, times[0], 0.0, "run", None, {"clock": {"tick_minutes": 60}, "world": {}})
    frames = [
        Event(i + 1, t, 0.0, "world", None, {"step": i, "agents": {"x": {"place": "Cafe"}}})
        for i, t in enumerate(times)
    ]
    svg = day_timeline_svg(build_replay([run, *frames]))
    assert svg.count('class="segment"') == 2  # the Cafe bar is cut at the night
    assert "skipped" in svg
    assert "21:00–07:00" not in svg and "13 Feb 21:00–14 Feb 07:00" not in svg
    assert "20:00–21:00" in svg and "07:00–09:00" in svg
