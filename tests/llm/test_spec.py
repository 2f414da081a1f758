"""Model specs and the model section of a scenario: malformed ones are refused with the
reason, before anything loads."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from simulacra.llm import (
    Gateway,
    LanguageModel,
    ModelConfig,
    ModelSpecError,
    SqliteCache,
    check_spec,
    load_model,
    model_name,
)
from simulacra.llm.openai_compat import parse_openai_spec


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("gpt4", "unknown model spec"),
        ("scripted:extra", "unknown model spec"),
        ("openai:http://127.0.0.1:8080/v1", "names no model"),
        ("openai:ftp://example.org?model=m", "not an http"),
        ("openai:http://h/v1?model=m&temperature=1", "unknown option"),
        ("openai:http://h/v1?model=m&key_env=9X", "not an environment variable name"),
        ("openai:http://h/v1?model=m&endpoints=nowhere", "not an http"),
        ("replay:", "names no run directory"),
    ],
)
def test_a_malformed_spec_is_refused_with_the_reason(spec: str, message: str) -> None:
    with pytest.raises(ModelSpecError, match=message):
        load_model(spec)


def test_an_openai_spec_lists_its_endpoints_model_and_key_variable() -> None:
    target = parse_openai_spec(
        "openai:http://10.0.0.1:8000/v1/?model=qwen&key_env=LAB_KEY"
        "&endpoints=http://10.0.0.2:8000/v1,http://10.0.0.3:8000/v1"
    )
    assert target.urls == (
        "http://10.0.0.1:8000/v1",
        "http://10.0.0.2:8000/v1",
        "http://10.0.0.3:8000/v1",
    )
    assert (target.model, target.key_env) == ("qwen", "LAB_KEY")


def test_a_key_variable_named_in_the_spec_must_be_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LAB_KEY", raising=False)
    with pytest.raises(ModelSpecError, match="export LAB_KEY"):
        load_model("openai:http://127.0.0.1:1/v1?model=m&key_env=LAB_KEY")
    monkeypatch.setenv("LAB_KEY", "secret")
    assert load_model("openai:http://127.0.0.1:1/v1?model=m&key_env=LAB_KEY").name == "openai:m"


def test_the_model_name_ignores_where_the_model_is_served() -> None:
    assert model_name("openai:http://a:1/v1?model=m") == model_name("openai:https://b/v1?model=m")
    assert model_name("scripted") == "scripted"


def test_unknown_load_model_options_are_refused() -> None:
    with pytest.raises(ModelSpecError, match="retries"):
        load_model("scripted", retries=3)


def test_load_model_passes_its_options_to_the_gateway(tmp_path: Path) -> None:
    model = load_model(
        "scripted", attempts=5, timeout_s=2.5, concurrency=3, cache=tmp_path / "c.sqlite"
    )
    assert isinstance(model, LanguageModel)
    assert (model.attempts, model.timeout_s, model.concurrency) == (5, 2.5, 3)
    assert isinstance(model.cache, SqliteCache)


def test_a_model_config_refuses_a_bad_spec_naming_the_field() -> None:
    with pytest.raises(ValidationError, match=r"spec\n.*names no model"):
        ModelConfig(spec="openai:http://127.0.0.1:8080/v1")
    with pytest.raises(ValidationError, match="attempts"):
        ModelConfig(spec="scripted", attempts=0)
    assert check_spec("replay:runs/x") == "replay:runs/x"


def test_a_model_config_loads_the_model_it_describes(tmp_path: Path) -> None:
    config = ModelConfig.model_validate(
        {"spec": "scripted", "timeout_s": 5, "attempts": 2, "cache": str(tmp_path / "c.sqlite")}
    )
    model = config.load()
    assert isinstance(model, Gateway)
    assert (model.name, model.attempts, model.timeout_s) == ("scripted", 2, 5.0)
    assert (tmp_path / "c.sqlite").exists()
