"""The openai backend against real OpenAI-compatible servers: two xllamacpp servers
serving the embedded GGUF on 127.0.0.1, started and stopped here."""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, Field

from simulacra.llm import Request, chat, load_model
from simulacra.llm.embedded import find_gguf

pytestmark = pytest.mark.slow


class Mood(BaseModel):
    mood: str = Field(description="one word")
    energy: int = Field(description="1 to 10")


def _start_server() -> Any:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(find_gguf())
    params.n_ctx = 2048
    # One thread each: spin-waiting thread pairs collapse when the 2 cores are busy.
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    params.endpoint_metrics = True
    params.verbosity = 0
    return xllamacpp.Server(params)  # listens on 127.0.0.1, on a free port


def _tokens_predicted(server: Any) -> int:
    found = re.search(r"^llamacpp:tokens_predicted_total (\d+)", server.handle_metrics(), re.M)
    return int(found.group(1)) if found else 0


@pytest.fixture(scope="module")
def servers() -> Iterator[list[Any]]:
    started = [_start_server(), _start_server()]
    yield started
    started.clear()
    gc.collect()  # an xllamacpp server stops when its object is freed


def ask(seed: int) -> Request:
    return Request(
        chat(
            "You are Isabella, who runs a cafe. Answer in JSON.",
            "How do you feel this morning? Give your mood and energy from 1 to 10.",
        ),
        output=Mood,
        max_tokens=48,
        purpose="mood.morning",
        seed=seed,
    )


async def test_a_real_server_returns_a_schema_valid_answer(servers: list[Any]) -> None:
    model = load_model(f"openai:{servers[0].listening_address}/v1?model=smollm2", timeout_s=60)
    completion = await model.complete(ask(seed=1))
    await model.aclose()
    assert not completion.fallback, completion.error
    assert isinstance(completion.value, Mood)
    assert completion.usage.prompt_tokens > 0
    assert completion.usage.completion_tokens > 0


async def test_calls_go_round_robin_over_two_real_servers(servers: list[Any]) -> None:
    first, second = (f"{s.listening_address}/v1" for s in servers)
    before = [_tokens_predicted(s) for s in servers]
    model = load_model(f"openai:{first}?model=smollm2&endpoints={second}", timeout_s=60)
    completions = [await model.complete(ask(seed)) for seed in (2, 3)]
    await model.aclose()
    assert all(isinstance(c.value, Mood) for c in completions)
    after = [_tokens_predicted(s) for s in servers]
    assert after[0] > before[0]
    assert after[1] > before[1]
