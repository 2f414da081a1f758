"""The gateway's wrappers, driven by the scripted model: validation, repair, retries,
fallback, cache and accounting."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import BaseModel
from tests.llm.support import FALLBACK, Answer

from simulacra.llm import (
    Completion,
    ModelFailure,
    Request,
    SqliteCache,
    chat,
    load_model,
)
from simulacra.llm.cache import cache_key
from simulacra.llm.structured import output_schema


class Step(BaseModel):
    place: str
    minutes: int


def ask(purpose: str = "plan.next", *, agent: str | None = None, seed: int = 0) -> Request:
    return Request(
        chat("You plan a step.", "What next?"),
        output=Answer,
        fallback=FALLBACK,
        purpose=purpose,
        agent=agent,
        seed=seed,
    )


@pytest.mark.parametrize(
    "reply",
    [
        '```json\n{"answer": "cafe"}\n```',
        'Sure! Here is my answer: {"answer": "cafe"} Hope that helps.',
        '{"answer": "cafe",}',
        '{"answer": "cafe',
        "{'answer': 'cafe'}",
    ],
    ids=["fence", "prose", "trailing-comma", "truncated", "single-quotes"],
)
async def test_near_json_is_repaired_on_the_first_attempt(reply: str) -> None:
    model = load_model("scripted")
    model.on("plan", lambda request: reply)
    completion = await model.complete(ask())
    assert completion.value == Answer(answer="cafe")
    assert completion.attempts == 1
    assert not completion.fallback


async def test_output_that_fails_validation_is_retried_then_accepted() -> None:
    replies = iter(['{"place": "cafe"}', "no idea", '{"answer": "park"}'])
    model = load_model("scripted")
    model.on("plan", lambda request: next(replies))
    completion = await model.complete(ask())
    assert completion.value == Answer(answer="park")
    assert completion.attempts == 3
    assert model.ledger.total.retries == 2
    assert model.ledger.total.fallbacks == 0


async def test_three_failed_attempts_give_the_declared_fallback_counted_in_the_ledger() -> None:
    calls: list[int] = []

    def refuse(request: Request) -> str:
        calls.append(1)
        return "I cannot answer that."

    model = load_model("scripted")
    model.on("plan", refuse)
    completion = await model.complete(ask(agent="isabella"))
    assert len(calls) == 3
    assert completion.fallback
    assert completion.value == FALLBACK
    assert completion.attempts == 3
    assert completion.error is not None and completion.error.count("attempt") == 3
    assert model.ledger.by_purpose["plan.next"].fallbacks == 1
    assert model.ledger.by_agent["isabella"].fallbacks == 1


async def test_failure_without_a_declared_fallback_raises_model_failure_naming_the_purpose() -> (
    None
):
    model = load_model("scripted", attempts=2)
    model.on("plan", lambda request: "nonsense")
    request = Request(chat("s", "u"), output=Answer, purpose="plan.next")
    with pytest.raises(ModelFailure, match=r"plan\.next failed 2 times"):
        await model.complete(request)


async def test_each_attempt_is_cached_under_its_own_seed_so_a_rerun_repeats_the_fallback(
    tmp_path: Path,
) -> None:
    calls: list[int] = []

    def refuse(request: Request) -> str:
        calls.append(1)
        return f"no answer, {len(calls)}"

    cache = SqliteCache(tmp_path / "cache.sqlite")
    for _ in range(2):
        model = load_model("scripted", cache=cache)
        model.on("plan", refuse)
        completion = await model.complete(ask(seed=40))
        assert completion.fallback
    assert len(calls) == 3
    assert "no answer, 3" in (completion.error or "")


async def test_a_second_identical_call_is_answered_from_the_cache(tmp_path: Path) -> None:
    calls: list[int] = []

    def answer(request: Request) -> Answer:
        calls.append(1)
        return Answer(answer="cafe")

    model = load_model("scripted", cache=tmp_path / "cache.sqlite")
    model.on("plan", answer)
    first = await model.complete(ask())
    second = await model.complete(ask())
    assert (first.cached, second.cached) == (False, True)
    assert second.value == first.value
    assert len(calls) == 1
    assert model.ledger.total.cache_hits == 1
    assert second.usage == first.usage


def test_the_cache_key_changes_with_seed_temperature_schema_and_messages() -> None:
    base = Request(chat("system", "user"), output=Answer, temperature=0.0)
    schema = output_schema(Answer)
    key = cache_key("m", base, schema, 0)
    assert cache_key("m", base, schema, 0) == key
    variants = [
        cache_key("m", base, schema, 1),
        cache_key("m", Request(base.messages, output=Answer, temperature=0.7), schema, 0),
        cache_key("m", base, output_schema(Step), 0),
        cache_key("m", Request(chat("system", "user!"), output=Answer), schema, 0),
        cache_key("other-model", base, schema, 0),
        cache_key("m", Request(base.messages, output=Answer, max_tokens=9), schema, 0),
    ]
    assert key not in variants
    assert len(set(variants)) == len(variants)


async def test_a_rerun_with_the_cache_repeats_failed_attempts_without_asking_the_model(
    tmp_path: Path,
) -> None:
    replies = iter(["not json", '{"answer": "park"}'])
    calls: list[int] = []

    def answer(request: Request) -> str:
        calls.append(1)
        return next(replies)

    cache = SqliteCache(tmp_path / "cache.sqlite")
    first_run = load_model("scripted", cache=cache)
    first_run.on("plan", answer)
    original = await first_run.complete(ask())
    rerun = load_model("scripted", cache=cache)
    rerun.on("plan", answer)
    again = await rerun.complete(ask())
    assert len(calls) == 2
    assert (again.value, again.attempts, again.cached) == (original.value, 2, True)


async def test_accounting_is_kept_per_purpose_and_per_agent() -> None:
    model = load_model("scripted")
    model.on("plan", lambda request: Answer(answer="cafe"))
    model.on("chat", lambda request: "not json")
    await model.complete(ask("plan.daily", agent="ana"))
    await model.complete(ask("plan.hourly", agent="ana"))
    await model.complete(ask("chat.reply", agent="ben"))
    ledger = model.ledger
    assert ledger.total.calls == 3
    assert ledger.by_purpose["plan.daily"].calls == 1
    assert ledger.by_purpose["chat.reply"].fallbacks == 1
    assert ledger.by_purpose["chat.reply"].retries == 2
    assert ledger.by_agent["ana"].calls == 2
    assert ledger.by_agent["ana"].prompt_tokens > 0
    assert ledger.by_agent["ana"].completion_tokens > 0
    assert ledger.by_agent["ben"].fallbacks == 1
    assert ledger.total.prompt_tokens == sum(t.prompt_tokens for t in ledger.by_agent.values())
    report = ledger.to_dict()
    assert set(report) == {"total", "by_purpose", "by_agent"}


async def test_the_on_call_hook_sees_every_request_and_completion() -> None:
    seen: list[tuple[str, bool]] = []

    def hook(request: Request, completion: Completion) -> None:
        seen.append((request.purpose, completion.fallback))

    model = load_model("scripted", on_call=hook)
    model.on("plan", lambda request: Answer(answer="cafe"))
    await asyncio.gather(model.complete(ask("plan.a")), model.complete(ask("talk.b")))
    assert sorted(seen) == [("plan.a", False), ("talk.b", False)]


async def test_a_free_text_request_returns_text_and_no_value() -> None:
    model = load_model("scripted")
    model.on("diary", lambda request: "Dear diary, the cafe was busy.")
    completion = await model.complete(Request(chat("s", "u"), purpose="diary.entry"))
    assert completion.text.startswith("Dear diary")
    assert completion.value is None
    assert completion.model == "scripted"


async def test_a_retry_of_a_greedy_request_samples_instead_of_repeating_itself() -> None:
    temperatures: list[float] = []

    def refuse(request: Request) -> str:
        temperatures.append(request.temperature)
        return "nonsense"

    model = load_model("scripted")
    model.on("plan", refuse)
    await model.complete(ask())
    assert temperatures[0] == 0.0
    assert all(t > 0 for t in temperatures[1:])
    assert len(temperatures) == 3
