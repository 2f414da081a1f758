"""The embedded model's speed beside this machine's limits for a model of its size.

The limits are those of the cores the model's threads take, from one core's rates measured in
the same run, times those cores: its multiply-add rate (a float32 GEMM on one OpenBLAS thread;
a token's forward pass costs about 2 x parameters flops) bounds prompt processing, and its
memory read rate over the model's bytes bounds generation too (every weight is read once a
generated token). The model runs as a run runs it: on embedded.DEFAULT_THREADS threads, a
request the shape of the demo's average call (about 264 new prompt tokens and 67 generated),
timed by llama.cpp itself; the shipped Q4_1 encoding runs
beside the default as the baseline. The demo (`make demo`) is then played, or read from a run
directory with --demo-run, and its wall time set over the ideal those limits give for the
tokens it processed. The first AGREEMENT requests of the demo's first hour are replayed
greedily on the default and the baseline: how many answers are the same, and how much of each
the two share from its start (the re-encoding changes the weights by under half a Q8_0 step;
its answers should stay near the shipped model's). The demo's shape, 5 agents' calls at once
and then 5 probes at once, is timed through the backend on 1 and on 2 model instances
(`embedded?instances=N`), with the answers of both compared. Prints one JSON line.

    python bench/embedded.py                      # the default model, its baseline, the demo
    python bench/embedded.py --model gemma3-270m --no-demo
    python bench/embedded.py --no-demo --threads 1
    python bench/embedded.py --no-demo --no-instances    # the speed beside the limits only
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "town.yaml"
DEMO_SET = ["memory.importance=rule"]  # the Makefile's DEMO_SET
REPEATS = 5
PROMPT_WORDS = (
    "Marta Okafor is 41 and runs the flower stall by the square in Willow Bend. She is warm, "
    "quick to laugh and knows everyone by name. Today is February 14. She wants to host a "
    "Valentine's party at Hobbs Cafe at 17:00 and invite everyone she meets. "
)
GENERATED = 67
AGREEMENT = 12
BASELINE = "smollm2-135m-q4_1"


def one_core_rates() -> dict[str, float]:
    """Run in a child process, so that OpenBLAS starts with one thread."""
    import numpy as np

    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((1024, 1024), dtype=np.float32) for _ in range(2))
    gemm = min(_timed(lambda: a @ b) for _ in range(7))
    data = np.ones(512 << 20, dtype=np.uint8).view(np.uint64)
    read = min(_timed(lambda: np.bitwise_or.reduce(data)) for _ in range(5))
    return {"flops": 2 * 1024**3 / gemm, "read_bytes_per_s": data.nbytes / read}


def _timed(work: Any) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def measure_limits() -> dict[str, float]:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, __file__, "--rates"], env=env, capture_output=True, text=True, check=True
    )
    rates: dict[str, float] = json.loads(out.stdout)
    return rates


def model_facts(path: Path) -> tuple[int, int]:
    """Parameters (elements of every tensor) and the bytes of their data."""
    import gguf

    tensors = gguf.GGUFReader(path).tensors
    return sum(int(t.n_elements) for t in tensors), sum(int(t.n_bytes) for t in tensors)


def _server(name: str, threads: int) -> tuple[Path, Any]:
    from simulacra.llm.embedded import EmbeddedSettings, find_gguf, load_server

    path = find_gguf(name)
    return path, load_server(EmbeddedSettings(path, threads=threads, parallel=1))


def speed(name: str, threads: int) -> dict[str, Any]:
    """Prompt and generation tokens/s of one model, median of REPEATS requests with a fresh
    prompt each (no prompt cache)."""
    from simulacra.llm.embedded import embedded_name

    path, server = _server(name, threads)
    prompt_tps, generation_tps = [], []
    for i in range(REPEATS + 1):
        body = {
            "messages": [
                {"role": "system", "content": "You simulate one person. Answer briefly."},
                {"role": "user", "content": f"{PROMPT_WORDS * 4}Call {i}: what does she do?"},
            ],
            "max_tokens": GENERATED,
            "ignore_eos": True,
            "temperature": 0.8,
            "seed": i,
            "id_slot": 0,
            "cache_prompt": False,
        }
        timings = server.handle_chat_completions(body)["timings"]
        if i == 0:
            continue  # warm-up: page the weights in
        prompt_tps.append(timings["prompt_n"] / timings["prompt_ms"] * 1000)
        generation_tps.append(timings["predicted_n"] / timings["predicted_ms"] * 1000)
    params, nbytes = model_facts(path)
    return {
        "model": embedded_name(name),
        "params": params,
        "bytes": nbytes,
        "prompt_tokens": timings["prompt_n"],
        "prompt_tps": round(statistics.median(prompt_tps), 1),
        "prompt_tps_range": [round(min(prompt_tps), 1), round(max(prompt_tps), 1)],
        "generation_tps": round(statistics.median(generation_tps), 1),
        "generation_tps_range": [round(min(generation_tps), 1), round(max(generation_tps), 1)],
    }


def instances_throughput(name: str, agents: int = 5) -> dict[str, Any]:
    """Wall time, CPU time and tokens/s of `agents` agent-shaped calls at once and then as
    many probes at once, through the backend as a run uses it, on 1 and on 2 instances; and
    whether both gave the same answers (they must)."""
    import asyncio

    from simulacra.llm import Request, chat, load_model

    def request(i: int, probe: bool) -> Request:
        task = f"{PROMPT_WORDS * 4}Call {i}: what does she do?"
        return Request(
            chat("You simulate one person. Answer briefly.", task),
            max_tokens=GENERATED,
            temperature=0.8,
            seed=i,
            agent=f"agent{i}",
            probe=probe,
        )

    async def play(instances: int) -> tuple[dict[str, Any], list[str]]:
        model = load_model(f"embedded:{name}?instances={instances}", concurrency=agents)
        await model.complete(request(99, True))  # load the weights before timing
        if instances > 1:
            await asyncio.gather(*(model.complete(request(99, True)) for _ in range(2)))
        figures: dict[str, Any] = {}
        texts: list[str] = []
        for kind, probe in (("agents", False), ("probes", True)):
            started, cpu = time.perf_counter(), time.process_time()
            done = await asyncio.gather(
                *(model.complete(request(i + 10 * probe, probe)) for i in range(agents))
            )
            wall = time.perf_counter() - started
            tokens = sum(c.usage.prompt_tokens + c.usage.completion_tokens for c in done)
            figures[kind] = {
                "wall_s": round(wall, 1),
                "cpu_s": round(time.process_time() - cpu, 1),
                "tokens_per_s": round(tokens / wall, 1),
            }
            texts += [c.text for c in done]
        await model.aclose()
        return figures, texts

    one, one_texts = asyncio.run(play(1))
    two, two_texts = asyncio.run(play(2))
    return {
        "instances_1": one,
        "instances_2": two,
        "speedup": {k: round(one[k]["wall_s"] / two[k]["wall_s"], 2) for k in one},
        "same_answers": one_texts == two_texts,
    }


def _shared_start(a: str, b: str) -> int:
    """How many characters the two strings share from their start."""
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def with_limits(figures: dict[str, Any], rates: dict[str, float], cores: int) -> dict[str, Any]:
    """The model's limits on this machine, on the `cores` its threads run on (one core's rates
    times the cores), and how far below them it runs."""
    compute = cores * rates["flops"] / (2 * figures["params"])
    bandwidth = cores * rates["read_bytes_per_s"] / figures["bytes"]
    prompt_limit, generation_limit = compute, min(compute, bandwidth)
    return {
        **figures,
        "prompt_limit_tps": round(prompt_limit, 1),
        "generation_limit_tps": round(generation_limit, 1),
        "prompt_limit_over_speed": round(prompt_limit / figures["prompt_tps"], 2),
        "generation_limit_over_speed": round(generation_limit / figures["generation_tps"], 2),
    }


def play_demo(
    spec: str, root: Path, more: tuple[str, ...] = ()
) -> tuple[Path, float, list[dict[str, Any]]]:
    """The demo's events, its wall time, and the first AGREEMENT request bodies its model got;
    `more` overrides more of the scenario."""
    from simulacra.experiments import load_scenario, run
    from simulacra.llm.embedded import EmbeddedBackend

    bodies: list[dict[str, Any]] = []
    complete = EmbeddedBackend._complete

    def recorded(backend: EmbeddedBackend, instance: int, body: dict[str, Any]) -> Any:
        if len(bodies) < AGREEMENT:
            bodies.append(copy.deepcopy(body))
        return complete(backend, instance, body)

    scenario = load_scenario(
        SCENARIO,
        [*DEMO_SET, *more, f"model.spec={spec}", f"output.root={root}", "output.report=false"],
    )
    EmbeddedBackend._complete = recorded  # type: ignore[method-assign,assignment]
    try:
        started = time.perf_counter()
        done = run(scenario, progress=False)
        wall = time.perf_counter() - started
    finally:
        EmbeddedBackend._complete = complete  # type: ignore[method-assign]
    return done.events_path, wall, bodies


def agreement(names: tuple[str, str]) -> dict[str, Any]:
    """The first requests of the demo's first hour (played on the first model), each
    answered greedily by both (one slot, no prompt cache): how many answers are identical,
    and the mean share of the second's answer that the first's starts with."""
    with tempfile.TemporaryDirectory(prefix="bench-embedded-") as root:
        _, _, bodies = play_demo(f"embedded:{names[0]}", Path(root), ("clock.duration=1h",))
    answers = []
    for name in names:
        _, server = _server(name, 1)
        greedy = [{**b, "temperature": 0.0, "id_slot": 0, "cache_prompt": False} for b in bodies]
        answers.append(
            [server.handle_chat_completions(b)["choices"][0]["message"]["content"] for b in greedy]
        )
        del server
    shared = [_shared_start(a, b) / max(len(b), 1) for a, b in zip(*answers, strict=True)]
    return {
        "requests": len(bodies),
        "identical": sum(a == b for a, b in zip(*answers, strict=True)),
        "mean_shared_start": round(statistics.fmean(shared), 2) if shared else None,
    }


def demo_figures(events_path: Path, wall_s: float | None, limits: dict[str, Any]) -> dict[str, Any]:
    """The demo's tokens from its llm.call events, its wall time (given, or from the first
    event to the last), and the ideal time the limits give for those tokens."""
    from simulacra.runlog import read_events

    events = list(read_events(events_path))
    calls = [e.data for e in events if e.kind == "llm.call" and not e.data.get("cached")]
    processed = sum(c["prompt_tokens"] - c.get("cached_prompt_tokens", 0) for c in calls)
    generated = sum(c["completion_tokens"] for c in calls)
    if wall_s is None:
        wall_s = events[-1].wall - events[0].wall
    ideal = processed / limits["prompt_limit_tps"] + generated / limits["generation_limit_tps"]
    return {
        "calls": len(calls),
        "processed_prompt_tokens": processed,
        "generated_tokens": generated,
        "wall_s": round(wall_s, 1),
        "ideal_s": round(ideal, 1),
        "wall_over_ideal": round(wall_s / ideal, 2),
        "model_s": round(sum(c["latency_s"] for c in calls), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="a catalogue name (default: the default)")
    parser.add_argument("--no-demo", action="store_true", help="skip the demo")
    parser.add_argument("--demo-run", type=Path, help="read the demo from this run directory")
    parser.add_argument("--no-instances", action="store_true", help="skip 1 against 2 instances")
    parser.add_argument("--threads", type=int, default=None, help="threads (default: a run's)")
    parser.add_argument("--rates", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rates:
        print(json.dumps(one_core_rates()))
        return
    from simulacra.llm.catalogue import DEFAULT_MODEL
    from simulacra.llm.embedded import DEFAULT_THREADS, usable_cores

    name = args.model or DEFAULT_MODEL
    threads = args.threads or DEFAULT_THREADS
    cores = min(threads, usable_cores())
    load_before = os.getloadavg()
    rates = measure_limits()
    result: dict[str, Any] = {
        "threads": threads,
        "limit_cores": cores,  # the limits are these cores' (one core's rates times them)
        "one_core_gflops": round(rates["flops"] / 1e9, 1),
        "one_core_read_gb_per_s": round(rates["read_bytes_per_s"] / 1e9, 1),
    }
    result["default"] = figures = with_limits(speed(name, threads), rates, cores)
    if args.model is None:
        result["baseline"] = with_limits(speed(BASELINE, threads), rates, cores)
    if not args.no_instances:
        result["demo_shape_by_instances"] = instances_throughput(name)
    if args.demo_run is not None:
        events = next(args.demo_run.glob("**/events.jsonl"))
        result["demo"] = demo_figures(events, None, figures)
    elif not args.no_demo:
        with tempfile.TemporaryDirectory(prefix="bench-embedded-") as root:
            spec = f"embedded:{name}" + (f"?threads={threads}" if args.threads else "")
            events, wall, _ = play_demo(spec, Path(root))
            result["demo"] = demo_figures(events, wall, figures)
    if args.model is None:
        result["agreement_with_baseline"] = agreement((name, BASELINE))
    result["loadavg_before"] = [round(x, 2) for x in load_before]
    result["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
