"""The Python API on runs: a scenario as a path, a mapping or a Scenario; runs read back as
typed DataFrames that agree with what the pipeline measured; Parquet that reads back equal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from tests.report.conftest import write_town_run
from tests.runs import same

import simulacra
from simulacra import api
from simulacra.errors import UserError
from simulacra.experiments import apply_override
from simulacra.runlog import EventWriter, RunDir
from simulacra.runlog.events import MemoryInvalidated

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"
ELFAROL = {"agents.count": 10, "clock.ticks": 5, "output.report": False}
TOWN = {
    "memory.embedder": "hashing",
    "clock.duration": "3h",
    "agents.count": 3,
    "interviews.times": ["08:00", "09:00"],
    "world.attendance": None,
}


@pytest.fixture(scope="module")
def town(tmp_path_factory: pytest.TempPathFactory) -> api.Run:
    root = tmp_path_factory.mktemp("runs")
    return simulacra.run(
        SCENARIOS / "town.yaml", set={**TOWN, "output.root": str(root)}, model="scripted"
    )


def test_the_package_re_exports_the_api_and_loads_it_only_when_asked():
    assert simulacra.run is api.run and simulacra.Sweep is api.Sweep
    shown = dir(simulacra)
    assert {"run", "sweep", "open_run", "Run", "errors", "__version__"} <= set(shown)
    assert not {"Any", "TYPE_CHECKING", "importlib", "annotations", "api"} & set(shown)
    assert simulacra.errors.UserError.__name__ == "UserError"
    probe = "import sys, simulacra.runlog; print('pandas' in sys.modules)"
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert found.stdout.strip() == "False", found.stderr


def test_a_scenario_runs_the_same_from_a_path_a_mapping_or_a_scenario(tmp_path):
    path = SCENARIOS / "elfarol.yaml"
    fields = yaml.safe_load(path.read_text())
    fields["output"] = {"root": str(tmp_path)}
    from_path = api.run(path, set={**ELFAROL, "output.root": str(tmp_path)}, model="scripted")
    from_mapping = api.run(fields, set=ELFAROL, model="scripted")
    scenario = api.Scenario.model_validate(from_mapping.scenario.model_dump())
    from_scenario = api.run(scenario)
    assert same(RunDir(from_path.path), RunDir(from_mapping.path))
    assert same(RunDir(from_path.path), RunDir(from_scenario.path))


def test_set_model_and_seed_override_the_scenario(tmp_path):
    done = api.run(
        SCENARIOS / "elfarol.yaml",
        set=[f"output.root={tmp_path}", "agents.count=4", "clock.ticks=3"],
        model="scripted",
        seed=11,
    )
    assert (done.info["seed"], done.info["model"], done.status) == (11, "scripted", "completed")
    assert len(done.agents()) == 4


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
        max_leaves=8,
    )
)
def test_a_setting_reaches_the_scenario_as_the_value_given(value):
    (override,) = api.runs.overrides({"world.note": value})
    raw: dict[str, object] = {}
    apply_override(raw, override)
    assert raw == {"world": {"note": value}}


def test_simulated_time_is_a_datetime_from_the_clock_start(town):
    events = town.events()
    assert str(events["t"].dtype) == "datetime64[us]"
    assert events["t"].min() == pd.Timestamp(town.scenario.clock.start)
    assert events["seq"].tolist() == list(range(len(events)))
    assert set(town.events(["plan", "message"])["kind"]) <= {"plan", "message"}


def test_the_calls_table_adds_up_to_the_pipeline_budget(town):
    calls = town.calls()
    total = yaml.safe_load((town.path / "metrics.json").read_text())["budget"]["total"]
    assert len(calls) == total["calls"]
    tokens = calls["prompt_tokens"].sum() + calls["completion_tokens"].sum()
    assert tokens == total["prompt_tokens"] + total["completion_tokens"]
    assert calls["purpose"].str.startswith("plan").any()


def test_the_metrics_table_ends_with_the_headline_figures(town):
    metrics = town.metrics()
    assert metrics["name"].tolist().count("aware") == 2  # one per interview time
    headline = metrics[metrics["t"] == metrics["t"].max()].drop_duplicates("name", keep="last")
    logged = dict(zip(headline["name"], headline["value"], strict=True))
    assert {k: logged[k] for k in town.summary()} == pytest.approx(town.summary())


def test_each_retrieval_ranks_records_the_agent_holds(town):
    retrievals, memories = town.retrievals(), town.memories()
    assert len(retrievals) > 0
    for _, hits in retrievals.groupby("seq"):
        assert hits["rank"].tolist() == list(range(1, len(hits) + 1))
    held = set(zip(memories["agent"], memories["id"], strict=True))
    assert set(zip(retrievals["agent"], retrievals["memory"], strict=True)) <= held


def test_an_interview_answers_from_memories_of_that_agent(town):
    agent = town.agents()["agent"].iloc[0]
    answer = town.interview(agent, "What have you done today?")
    assert answer.answer and not answer.fallback
    mine = set(town.memories().query("agent == @agent")["id"])
    assert set(answer.memory_ids) <= mine


def test_an_invalidated_record_and_the_reflections_resting_on_it_are_marked(tmp_path):
    path = write_town_run(tmp_path / "run")
    with EventWriter(path / "events.jsonl") as log:
        fallen = MemoryInvalidated(id="ada-1", reason="corrected", invalidated=["ada-r1"])
        log.emit(fallen, t="2024-02-13T10:00:00", agent="ada")
    memories = api.open_run(path).memories().set_index("id")
    assert not memories.loc["ada-1", "valid"]
    assert memories.loc["ada-1", "invalid_reason"] == "corrected"
    assert memories.loc["ada-r1", "invalid_reason"] == "rests on ada-1"
    assert memories.loc["ada-r1", "invalidated_at"] == pd.Timestamp("2024-02-13T10:00")
    assert memories.loc["ada-2", "valid"]
    assert memories.loc["ada-r2", "evidence_ids"] == ["ada-r1", "ada-3"]


def test_every_table_reads_back_equal_from_parquet(town, tmp_path):
    folder = town.export(tmp_path / "tables")
    for name in api.TABLES:
        back = pd.read_parquet(folder / f"{name}.parquet")
        expected = getattr(town, name)()
        for column in back.columns:
            if expected[column].map(lambda v: isinstance(v, dict)).any():  # JSON text there
                back[column] = back[column].map(lambda v: None if pd.isna(v) else json.loads(v))
            elif expected[column].map(lambda v: isinstance(v, list)).any():  # arrays there
                back[column] = back[column].map(lambda v: None if v is None else list(v))
        pd.testing.assert_frame_equal(back, expected, check_dtype=False)
        assert back.dtypes.astype(str).tolist() == expected.dtypes.astype(str).tolist()


def test_nested_data_are_python_objects_in_every_table(town):
    events, agents, memories = town.events(), town.agents(), town.memories()
    assert all(isinstance(d, dict) for d in events["data"])
    start = events.loc[events["kind"] == "run", "data"].iloc[0]
    assert start["seed"] == town.info["seed"]
    marta = agents.set_index("agent").loc["marta_okafor"]
    assert marta["traits"] == ["warm", "sociable", "organised"]
    assert isinstance(marta["relationships"], dict) and "theo_brandt" in marta["relationships"]
    assert all(isinstance(ids, list) for ids in memories["evidence_ids"])
    assert str(agents["age"].dtype) == "int64"


def test_numbers_are_numpy_s_and_text_pandas_default(town):
    tables = {name: getattr(town, name)() for name in api.TABLES}
    for name, frame in tables.items():
        for column, dtype in frame.dtypes.astype(str).items():
            assert dtype in ("int64", "float64", "bool", "str", "object") or dtype.startswith(
                "datetime64"
            ), f"{name}.{column}: {dtype}"
    calls = tables["calls"]
    counts = tables["events"]["kind"].value_counts()
    assert str(counts.dtype) == "int64"  # not int64[pyarrow], as a pyarrow string column gives
    sums = calls.groupby("purpose")[["prompt_tokens", "cached_prompt_tokens", "latency_s"]].sum()
    assert sums.dtypes.astype(str).tolist() == ["int64", "int64", "float64"]
    assert str(calls["purpose"].str.len().dtype) == "int64"


def test_a_folder_that_is_not_a_run_is_named(tmp_path):
    with pytest.raises(UserError, match="not a run directory"):
        api.open_run(tmp_path)
    with pytest.raises(api.NotASweep, match="not a sweep directory"):
        api.open_sweep(tmp_path)


async def test_runs_and_interviews_work_where_an_event_loop_runs(town, tmp_path):
    # A Jupyter kernel runs an event loop in the thread that runs a notebook's cells.
    done = api.run(
        SCENARIOS / "elfarol.yaml", set={**ELFAROL, "output.root": str(tmp_path)}, model="scripted"
    )
    assert done.status == "completed"
    assert town.interview("marta_okafor", "What are you doing today?").answer
