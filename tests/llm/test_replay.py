"""The replay backend: a finished run's cache answers every call the run made, attempt by
attempt; anything else is a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.llm.support import FALLBACK, Answer, FaultServerFactory

from simulacra.llm import (
    CACHE_FILE,
    Gateway,
    ModelSpecError,
    RawReply,
    ReplayMiss,
    Request,
    SqliteCache,
    Usage,
    chat,
    load_model,
    model_name,
)
from simulacra.runlog import RunDir
from simulacra.runlog.events import ModelCall


def ask(purpose: str, seed: int = 0, agent: str | None = "ana") -> Request:
    return Request(
        chat("You plan.", f"What next? ({purpose})"),
        output=Answer,
        fallback=FALLBACK,
        purpose=purpose,
        agent=agent,
        seed=seed,
    )


def new_run(root: Path, model: str) -> RunDir:
    return RunDir.create(root, "replay-test", seed=7, model=model, config={})


async def test_a_replay_answers_every_call_exactly_as_the_run_got_it(tmp_path: Path) -> None:
    run = new_run(tmp_path, "scripted")
    second_tries = iter(["not json", '{"answer": "park"}'])
    original = load_model("scripted", cache=run.path / CACHE_FILE)
    original.on("plan", lambda request: Answer(answer="cafe"))
    original.on("walk", lambda request: next(second_tries))
    original.on("talk", lambda request: "I refuse.")
    requests = [ask("plan.daily"), ask("walk.route", seed=3), ask("talk.reply", agent="ben")]
    recorded = [await original.complete(r) for r in requests]

    replay = load_model(f"replay:{run.path}")
    replayed = [await replay.complete(r) for r in requests]
    assert replay.name == "scripted"
    for before, after in zip(recorded, replayed, strict=True):
        assert (after.value, after.attempts, after.fallback, after.usage) == (
            before.value,
            before.attempts,
            before.fallback,
            before.usage,
        )
    assert [c.attempts for c in replayed] == [1, 2, 3]
    assert replay.ledger.total.fallbacks == 1


async def test_a_call_the_run_never_made_is_a_clear_error(tmp_path: Path) -> None:
    run = new_run(tmp_path, "scripted")
    original = load_model("scripted", cache=run.path / CACHE_FILE)
    await original.complete(ask("plan.daily"))
    replay = load_model(f"replay:{run.path}")
    with pytest.raises(ReplayMiss, match=r"never asked 'plan\.hourly' for agent ana") as error:
        await replay.complete(ask("plan.hourly"))
    assert "--model 'scripted'" in str(error.value)


async def test_a_replay_repeats_the_faults_of_a_served_run_without_the_server(
    tmp_path: Path, fault_server: FaultServerFactory
) -> None:
    server = fault_server("error", "ok", "truncated", "slow", "malformed", slow_s=10.0)
    spec = f"openai:{server.url}?model=fake"
    run = new_run(tmp_path, spec)
    original = load_model(spec, cache=run.path / CACHE_FILE, timeout_s=0.5)
    recorded = [await original.complete(ask("plan.daily", seed)) for seed in (0, 10)]
    await original.aclose()
    server.stop()

    replay = load_model(f"replay:{run.path}")
    replayed = [await replay.complete(ask("plan.daily", seed)) for seed in (0, 10)]
    assert replay.name == "openai:fake"
    assert [(c.attempts, c.fallback) for c in recorded] == [(2, False), (3, True)]
    assert [(c.attempts, c.fallback, c.cached) for c in replayed] == [
        (2, False, True),
        (3, True, False),
    ]
    assert "as in the original run: timed out" in (replayed[1].error or "")


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "no run.json"),
        ({"run.json": "{}"}, 'records no "model"'),
        ({"run.json": '{"model": "scripted"}'}, "no llm_cache.sqlite"),
        ({"run.json": '{"model": "replay:/elsewhere"}'}, "itself a replay"),
    ],
)
def test_a_directory_that_cannot_be_replayed_is_refused_with_the_reason(
    tmp_path: Path, files: dict[str, str], message: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(ModelSpecError, match=message):
        load_model(f"replay:{tmp_path}")


class _Named:
    """A backend under the name a run's calls logged: the replay is under test, not it."""

    name = "embedded:SmolLM2-135M-Instruct.Q4_1"

    async def generate(self, request: Request, schema: object, seed: int) -> RawReply:
        return RawReply('{"answer": "cafe"}', Usage(10, 5))


async def test_a_replay_keys_calls_by_the_model_its_calls_logged_not_what_its_spec_names_now(
    tmp_path: Path,
) -> None:
    # The run's spec, `embedded`, named the shipped Q4_1 file when it ran and names the
    # re-encoded Q8_0 file now; its calls logged the model they were keyed with.
    run = new_run(tmp_path, "embedded")
    assert model_name("embedded") != _Named.name
    original = Gateway(_Named(), cache=SqliteCache(run.path / CACHE_FILE))
    recorded = await original.complete(ask("plan.daily"))
    writer = run.writer()
    writer.emit(
        ModelCall(
            purpose="plan.daily",
            model=recorded.model,
            prompt_tokens=10,
            completion_tokens=5,
            latency_s=0.1,
            cached=False,
            attempts=1,
            fallback=False,
        )
    )
    writer.flush()
    replay = load_model(f"replay:{run.path}")
    assert replay.name == _Named.name
    assert (await replay.complete(ask("plan.daily"))).value == recorded.value
