"""Gateway overhead and the embedded model's speed; prints one JSON line.

Throughput: the gateway (openai backend, its HTTP client) against a server that answers every call
after a fixed latency L, at concurrency C. The ideal is C / L calls per second; the ratio
to it is what the gateway's own overhead leaves. The server runs in a child process so it
does not share the client's interpreter.

The client's CPU time per call is printed too: on a busy machine the ratio falls with the
CPU left to the client, and 1000 / cpu_ms is the rate one free core would sustain.

Embedded: seconds and completion tokens per second for a short structured answer from the
in-process model, after it has loaded (median of a few calls).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
from typing import Any

from pydantic import BaseModel, Field

from simulacra.llm import Request, chat, load_model
from simulacra.llm.embedded import DEFAULT_THREADS
from simulacra.llm.fault_server import FaultServer

LATENCY_S = 0.2
CONCURRENCY = (1, 8, 32, 128)
EMBEDDED_CALLS = 3


class Answer(BaseModel):
    answer: str


class Mood(BaseModel):
    mood: str = Field(description="one word", max_length=24)
    energy: int = Field(description="1 to 10")


def _ask(i: int) -> Request:
    return Request(chat("You answer briefly.", f"Question {i}?"), output=Answer, purpose="bench")


async def _throughput(url: str, concurrency: int) -> tuple[float, float]:
    """Calls per second, and the client's CPU milliseconds per call."""
    model = load_model(
        f"openai:{url}?model=bench", concurrency=concurrency, timeout_s=30.0, attempts=1
    )
    # Warm-up: open the connections, so that the timed calls measure steady state.
    await asyncio.gather(*(model.complete(_ask(i)) for i in range(concurrency)))
    # Ten rounds of `concurrency` calls (2 s of ideal time): a window long enough that the
    # first and last rounds' ramps do not decide the figure.
    calls = max(32, 10 * concurrency)
    started, cpu_started = time.perf_counter(), time.process_time()
    done = await asyncio.gather(*(model.complete(_ask(i)) for i in range(calls)))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    await model.aclose()
    if any(c.fallback for c in done):
        raise RuntimeError("a benchmark call failed; the figures would be meaningless")
    return calls / elapsed, 1000 * cpu / calls


async def _embedded(spec: str, calls: int) -> tuple[float, float]:
    model = load_model(spec, timeout_s=300.0)
    seconds: list[float] = []
    tokens: list[int] = []
    for i in range(calls + 1):
        request = Request(
            chat(
                "You are Isabella, who runs Hobbs Cafe. Answer in JSON.",
                f"Day {i}: how do you feel this morning? Give your mood and energy.",
            ),
            output=Mood,
            max_tokens=48,
            purpose="bench.mood",
            seed=i,
        )
        completion = await model.complete(request)
        if i == 0:
            continue  # the first call loads the model
        seconds.append(completion.latency_s)
        tokens.append(completion.usage.completion_tokens)
    answer_s = statistics.median(seconds)
    return answer_s, sum(tokens) / sum(seconds)


async def main() -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    throughput: dict[str, float] = {}
    cpu_ms: dict[str, float] = {}
    with FaultServer("ok", latency_s=LATENCY_S, own_process=True) as server:
        for concurrency in CONCURRENCY:
            rate, cpu_per_call = await _throughput(server.url, concurrency)
            throughput[str(concurrency)] = round(rate, 2)
            cpu_ms[str(concurrency)] = round(cpu_per_call, 3)
    ratios = {c: round(v / (int(c) / LATENCY_S), 3) for c, v in throughput.items()}
    answer_s, tokens_per_s = await _embedded("embedded", EMBEDDED_CALLS)
    # Two threads, for comparison: fast on idle cores, very slow on busy ones.
    answer_2_s, tokens_2_per_s = await _embedded("embedded?threads=2", 1)
    return {
        "latency_s": LATENCY_S,
        "throughput": throughput,
        "ratio": ratios,
        "ratio_at_128": ratios["128"],
        "client_cpu_ms_per_call": cpu_ms,
        "embedded_threads": DEFAULT_THREADS,
        "embedded_answer_s": round(answer_s, 3),
        "embedded_tokens_per_s": round(tokens_per_s, 1),
        "embedded_2_threads_answer_s": round(answer_2_s, 3),
        "embedded_2_threads_tokens_per_s": round(tokens_2_per_s, 1),
        "cpu_count": os.cpu_count(),
        "load_avg_1min_before": round(load_before, 2),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
