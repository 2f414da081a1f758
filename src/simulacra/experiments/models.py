"""The model a run uses: loaded from its scenario before anything is created, then given a
response cache inside the run directory."""

from __future__ import annotations

from typing import Any

from simulacra.experiments.kinds import binding_of
from simulacra.experiments.scenario import Scenario
from simulacra.llm import Gateway, ScriptedModel, SqliteCache
from simulacra.mind.town.scripted import interviewees
from simulacra.runlog import RunDir

LLM_CACHE = "llm_cache.sqlite"


def load_run_model(scenario: Scenario, **settings: Any) -> Gateway:
    """The scenario's model (`settings` replace fields of its model section); a scripted
    model gets the interview responder and the world's own. Creates no file."""
    config = scenario.model.model_copy(update=settings) if settings else scenario.model
    model = config.load()
    if isinstance(model, ScriptedModel):
        interviewees(model)  # every world's minds that keep a stream answer interviews
        binding_of(scenario).script(model)
    return model


def cache_in_run(model: Gateway, scenario: Scenario, run_dir: RunDir) -> None:
    """Cache the model's answers in the run, unless the model is scripted (free and
    deterministic), a replay (it reads its own run's cache), or the scenario names a cache."""
    spec = scenario.model.spec
    if spec == "scripted" or spec.startswith("replay:") or scenario.model.cache is not None:
        return
    model.cache = SqliteCache(run_dir.path / LLM_CACHE)
