import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulacra.runlog import Event, EventWriter, RunDir, RunDirError, read_events
from simulacra.runlog.events import (
    PAYLOADS,
    Acted,
    MemoryAdded,
    Observed,
    RunEnded,
    WorldState,
    reference,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "events.md"

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=10,
)


@given(
    kind=st.text(min_size=1, max_size=12),
    agent=st.none() | st.text(max_size=8),
    data=st.dictionaries(st.text(max_size=6), json_values, max_size=4),
)
def test_event_round_trips_through_one_json_line(kind, agent, data):
    event = Event(seq=3, t="2023-02-13T08:00:00", wall=1.5, kind=kind, agent=agent, data=data)
    line = event.to_json()
    assert "\n" not in line
    assert Event.from_json(line) == event


def test_events_are_written_only_when_flushed_and_in_order(tmp_path):
    path = tmp_path / "events.jsonl"
    writer = EventWriter(path)
    seen = Observed(text="the stove is on")
    writer.emit(seen, t=datetime(2023, 2, 13, 8), agent="a")
    assert path.read_text() == ""
    writer.emit(Acted(step=1, phase="act", ok=True, description="cooks"), agent="a")
    offset = writer.flush()
    events = list(read_events(path))
    assert [e.seq for e in events] == [0, 1]
    assert events[0].t == "2023-02-13T08:00:00"
    assert offset == path.stat().st_size
    writer.close()


def test_reading_some_kinds_goes_by_the_events_kind_not_a_kind_in_its_data(tmp_path):
    path = tmp_path / "events.jsonl"
    with EventWriter(path) as writer:
        writer.emit(Observed(text="the stove is on"), agent="a")
        # A memory of kind "observation": its data holds "kind":"observation" too.
        writer.emit(
            MemoryAdded(
                id="a-00001",
                kind="observation",
                text="the stove is on",
                importance=2.0,
                importance_source="given",
                evidence_ids=[],
                created_at="2023-02-13T08:00:00",
            ),
            agent="a",
        )
        writer.emit(RunEnded(status="completed"))
    assert [e.kind for e in read_events(path, {"observation"})] == ["observation"]
    assert [e.kind for e in read_events(path, {"memory.add", "run.end"})] == [
        "memory.add",
        "run.end",
    ]
    assert [e.kind for e in read_events(path, {"conversation"})] == []


def test_reopening_appends_and_continues_the_sequence(tmp_path):
    path = tmp_path / "events.jsonl"
    with EventWriter(path) as writer:
        writer.emit(RunEnded(status="interrupted"))
    with EventWriter(path) as writer:
        writer.emit(RunEnded(status="completed"))
    assert [e.seq for e in read_events(path)] == [0, 1]


def test_a_torn_last_line_is_ignored_by_the_reader_and_cut_by_the_writer(tmp_path):
    path = tmp_path / "events.jsonl"
    with EventWriter(path) as writer:
        writer.emit(WorldState(step=0, agents={}))
    with path.open("a") as fh:
        fh.write('{"seq": 1, "kind": "wor')  # what a kill in mid-write leaves
    assert len(list(read_events(path))) == 1
    with EventWriter(path) as writer:
        writer.emit(WorldState(step=1, agents={}))
    assert [e.data["step"] for e in read_events(path)] == [0, 1]


def test_truncating_to_a_checkpoint_offset_drops_later_events(tmp_path):
    path = tmp_path / "events.jsonl"
    with EventWriter(path) as writer:
        writer.emit(WorldState(step=0, agents={}))
        checkpoint = writer.flush()
        writer.emit(WorldState(step=1, agents={}))
    with EventWriter(path, truncate_at=checkpoint) as writer:
        assert writer.seq == 1
        writer.emit(WorldState(step=99, agents={}))
    assert [e.data["step"] for e in read_events(path)] == [0, 99]


def test_a_killed_writer_leaves_only_whole_lines(tmp_path):
    path = tmp_path / "events.jsonl"
    script = textwrap.dedent(
        f"""
        from simulacra.runlog import EventWriter
        from simulacra.runlog.events import WorldState
        w = EventWriter({str(path)!r})
        i = 0
        while True:
            w.emit(WorldState(step=i, agents={{}}, extra={{"pad": "x" * 5000}}))
            i += 1
            if i % 7 == 0:
                w.flush()
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and (not path.exists() or path.stat().st_size < 200_000):
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    ticks = [e.data["step"] for e in read_events(path)]
    assert len(ticks) >= 7
    assert ticks == list(range(len(ticks)))
    with EventWriter(path) as writer:
        assert writer.seq == len(ticks)
    assert path.read_bytes().endswith(b"\n")


def test_run_directory_holds_config_info_and_status(tmp_path):
    run = RunDir.create(tmp_path, "town", seed=7, model="scripted", config={"name": "town"})
    assert run.path.name.startswith("town-")
    info = run.info()
    assert info["status"] == "running"
    assert info["seed"] == 7
    assert info["model"] == "scripted"
    assert "python" in info["versions"]
    assert run.config() == {"name": "town"}
    run.set_status("completed", ticks=12)
    reopened = RunDir.open(run.path)
    assert reopened.info()["status"] == "completed"
    assert reopened.info()["ticks"] == 12
    assert reopened.info()["ended"] >= info["started"]
    assert json.loads(Path(run.run_json).read_text())["scenario"] == "town"


def test_opening_something_that_is_not_a_run_says_so(tmp_path):
    with pytest.raises(RunDirError, match="not a run directory"):
        RunDir.open(tmp_path)


def test_docs_events_md_is_generated_from_the_event_classes() -> None:
    assert DOCS.read_text(encoding="utf-8") == reference(), "run python scripts/events_doc.py"
    for kind in PAYLOADS:
        assert f"| `{kind}` |" in DOCS.read_text(encoding="utf-8")


@given(
    step=st.integers(0, 10**6),
    ok=st.booleans(),
    extra=st.dictionaries(st.sampled_from(["place", "to", "mode"]), st.text(max_size=5)),
)
def test_a_payload_and_its_world_extras_round_trip_through_the_log(step, ok, extra):
    acted = Acted(step=step, phase="act", ok=ok, extra=extra)
    event = Event(0, None, 0.0, acted.KIND, "a", acted.to_data())
    assert Event.from_json(event.to_json()).payload == acted


def test_a_line_with_nan_written_by_json_dumps_is_still_read():
    # Logs written before events went through orjson could hold NaN, which orjson refuses.
    line = '{"seq":0,"t":null,"wall":1.0,"kind":"metric","agent":null,"data":{"value":NaN}}'
    event = Event.from_json(line)
    assert event.kind == "metric" and math.isnan(event.data["value"])


def test_the_same_instant_in_another_zone_keeps_its_own_stamp(tmp_path):
    writer = EventWriter(tmp_path / "events.jsonl")
    utc = datetime(2023, 2, 13, 8, tzinfo=UTC)
    paris = utc.astimezone(timezone(timedelta(hours=1)))
    assert utc == paris
    for t in (utc, paris, utc):
        writer.emit(RunEnded(status="completed"), t=t)
    writer.close()
    stamps = [e.t for e in read_events(tmp_path / "events.jsonl")]
    assert stamps == [utc.isoformat(), paris.isoformat(), utc.isoformat()]
