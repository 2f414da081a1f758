"""The openai backend against a misbehaving server on 127.0.0.1: every request ends in a
valid value or a counted fallback, and nothing hangs."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from tests.llm.support import FALLBACK, Answer, FaultServerFactory

from simulacra.llm import Gateway, Request, chat, load_model
from simulacra.llm.fault_server import closed_port_url

TIMEOUT_S = 0.5


def ask(seed: int = 0) -> Request:
    return Request(chat("s", "u"), output=Answer, fallback=FALLBACK, purpose="fault", seed=seed)


def served(url: str, *extra: str, **options: float) -> Gateway:
    endpoints = f"&endpoints={','.join(extra)}" if extra else ""
    options = {"timeout_s": TIMEOUT_S, **options}
    return load_model(f"openai:{url}?model=fake{endpoints}", **options)


async def test_a_healthy_endpoint_gives_a_valid_value_with_usage(
    fault_server: FaultServerFactory,
) -> None:
    model = served(fault_server("ok").url)
    completion = await model.complete(ask())
    await model.aclose()
    assert completion.value == Answer(answer="yes")
    assert completion.usage.prompt_tokens > 0
    assert completion.usage.completion_tokens > 0
    assert completion.model == "openai:fake"


@pytest.mark.parametrize("fault", ["slow", "error", "truncated", "malformed"])
async def test_a_fault_is_retried_and_the_next_good_answer_is_used(
    fault_server: FaultServerFactory, fault: str
) -> None:
    server = fault_server(fault, "ok", slow_s=10.0)
    model = served(server.url)
    completion = await model.complete(ask())
    await model.aclose()
    assert completion.value == Answer(answer="yes")
    assert completion.attempts == 2
    assert not completion.fallback
    assert model.ledger.total.retries == 1


@pytest.mark.parametrize("fault", ["slow", "error", "truncated", "malformed"])
async def test_a_fault_on_every_attempt_ends_in_a_counted_fallback_without_hanging(
    fault_server: FaultServerFactory, fault: str
) -> None:
    server = fault_server(fault, slow_s=10.0)
    model = served(server.url)
    started = time.perf_counter()
    completion = await asyncio.wait_for(model.complete(ask()), timeout=5)
    await model.aclose()
    assert completion.fallback
    assert completion.value == FALLBACK
    assert completion.error is not None and completion.error.count("attempt") == 3
    assert model.ledger.by_purpose["fault"].fallbacks == 1
    assert server.requests == 3
    assert time.perf_counter() - started < 5


async def test_a_refused_connection_ends_in_a_counted_fallback() -> None:
    model = served(closed_port_url())
    completion = await asyncio.wait_for(model.complete(ask()), timeout=5)
    assert completion.fallback
    assert "ConnectError" in (completion.error or "")
    assert model.ledger.total.fallbacks == 1


async def test_near_json_content_is_repaired(fault_server: FaultServerFactory) -> None:
    model = served(fault_server("fenced").url)
    completion = await model.complete(ask())
    await model.aclose()
    assert completion.value == Answer(answer="yes")
    assert completion.attempts == 1


@pytest.mark.parametrize("framing", ["chunked", "closing"])
async def test_chunked_bodies_and_closed_connections_are_read_in_full(
    fault_server: FaultServerFactory, framing: str
) -> None:
    """Go servers (Ollama) send chunked bodies; proxies may close after each answer."""
    server = fault_server(framing, "ok")
    model = served(server.url)
    answers = [await model.complete(ask(seed)) for seed in range(4)]
    await model.aclose()
    assert [c.value for c in answers] == [Answer(answer="yes")] * 4
    assert [c.attempts for c in answers] == [1] * 4
    assert server.requests == 4


async def test_requests_go_round_robin_over_the_endpoints(
    fault_server: FaultServerFactory,
) -> None:
    first, second = fault_server("ok"), fault_server("ok")
    model = served(first.url, second.url)
    for seed in range(6):
        await model.complete(ask(seed))
    await model.aclose()
    assert (first.requests, second.requests) == (3, 3)


async def test_a_dead_endpoint_among_live_ones_costs_a_retry_not_an_answer(
    fault_server: FaultServerFactory,
) -> None:
    live = fault_server("ok")
    model = served(live.url, closed_port_url())
    completions = [await model.complete(ask(seed)) for seed in range(4)]
    await model.aclose()
    assert all(c.value == Answer(answer="yes") for c in completions)
    assert model.ledger.total.fallbacks == 0
    # Turns alternate: live; dead, live; dead, live; dead, live.
    assert model.ledger.total.retries == 3


async def test_a_mix_of_faults_under_concurrency_never_hangs_and_always_answers(
    fault_server: FaultServerFactory,
) -> None:
    server = fault_server("ok", "slow", "error", "truncated", "malformed", "fenced", slow_s=10.0)
    model = served(server.url, closed_port_url(), concurrency=8)
    completions = await asyncio.wait_for(
        asyncio.gather(*(model.complete(ask(seed)) for seed in range(24))), timeout=10
    )
    await model.aclose()
    assert len(completions) == 24
    for completion in completions:
        assert completion.value == (FALLBACK if completion.fallback else Answer(answer="yes"))
    fallbacks = sum(c.fallback for c in completions)
    assert model.ledger.total.fallbacks == fallbacks
    assert model.ledger.total.calls == 24


async def test_the_concurrency_limit_is_honoured(fault_server: FaultServerFactory) -> None:
    server = fault_server("ok", latency_s=0.05)
    model = served(server.url, concurrency=4, timeout_s=5.0)
    await asyncio.gather(*(model.complete(ask(seed)) for seed in range(16)))
    await model.aclose()
    assert server.requests == 16
    assert server.peak_in_flight == 4


async def test_a_waiting_call_goes_out_before_the_caller_of_the_finished_one_resumes(
    fault_server: FaultServerFactory,
) -> None:
    # One slot: the second call waits for the first's. The first's caller then works without
    # yielding (an agent's memory work between two calls); the second call is out by then.
    server = fault_server("ok", latency_s=0.01)
    model = served(server.url, concurrency=1, timeout_s=5.0)
    sent_while_working: list[int] = []

    async def first() -> None:
        await model.complete(ask(1))
        time.sleep(0.2)  # blocking on purpose: the server counts what reached it meanwhile
        sent_while_working.append(server.requests)

    await asyncio.gather(first(), model.complete(ask(2)))
    await model.aclose()
    assert sent_while_working == [2]


async def test_the_server_runs_in_a_child_process_too() -> None:
    from simulacra.llm.fault_server import FaultServer

    with FaultServer("ok", own_process=True) as server:
        model = served(server.url)
        completion = await model.complete(ask())
        await model.aclose()
        assert completion.value == Answer(answer="yes")
        assert server.requests == 1


def _echo(request: dict[str, Any]) -> str | None:
    said = request["messages"][-1]["content"]
    return json.dumps({"answer": said.upper()}) if said.startswith("echo") else None


async def test_a_responder_answers_from_the_prompt_and_leaves_the_rest_to_the_content(
    fault_server: FaultServerFactory,
) -> None:
    model = served(fault_server("ok", respond=_echo).url)

    def asking(text: str) -> Request:
        return Request(chat("s", text), output=Answer, fallback=FALLBACK, purpose="fault")

    read, left = await asyncio.gather(model.complete(asking("echo me")), model.complete(ask()))
    await model.aclose()
    assert read.value == Answer(answer="ECHO ME")
    assert left.value == Answer(answer="yes")
