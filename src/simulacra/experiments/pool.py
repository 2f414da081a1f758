"""A sweep's runs on local processes, from a pool that runs in a module of ours.

multiprocessing's spawn and forkserver start each worker by importing the main module of the
process that starts it, so a plain script that calls `simulacra.sweep(...)` at its top level
(no `if __name__ == "__main__":`) would run its sweep again in every worker, which fails with
"An attempt has been made to start a new process before the current process has finished its
bootstrapping phase". So the pool runs in a child process started as
`python -m simulacra.experiments.pool`: its workers import this module, whose work is
guarded, and never the caller's script. Jobs go to the child as JSON lines on its stdin;
each result comes back as a JSON line on its stdout as soon as its run ends.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict
from multiprocessing.synchronize import Event as EventType
from pathlib import Path

from simulacra.errors import UserError
from simulacra.experiments.sweep_jobs import SweepJob, run_job
from simulacra.experiments.sweep_results import JobResult

# The folder holding the simulacra package: the child imports the same code as this process.
_SOURCES = str(Path(__file__).resolve().parents[2])
STOP_WAIT_S = 60  # for runs told to stop to mark themselves interrupted
STOP = signal.SIGUSR1  # the caller to the pool: an interrupt reached the caller alone
NOT_RUN = "not run: Ctrl+C stopped the sweep"  # a queued job's result after the stop


class PoolError(UserError, RuntimeError):
    """The pool's process stopped before every run reported back."""


def on_processes(jobs: Sequence[SweepJob], root: str, workers: int) -> Iterator[JobResult]:
    """Run `jobs` on `workers` local processes; yield each result as its run ends."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_SOURCES, env.get("PYTHONPATH")) if p)
    command = [sys.executable, "-m", "simulacra.experiments.pool", root, str(workers)]
    # This process group, so that a signal to the group (Ctrl+C in a terminal, a kill) reaches
    # the pool and its workers too; an interrupt of this process alone (a notebook's) is
    # passed on below, as STOP.
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert child.stdin is not None and child.stdout is not None
    reported = 0
    try:
        try:
            with child.stdin:
                for job in jobs:
                    child.stdin.write(json.dumps(asdict(job)).encode() + b"\n")
        except BrokenPipeError:
            pass  # the child ended before reading them all: its exit code says so below
        for line in child.stdout:
            reported += 1
            yield JobResult(**json.loads(line))
        code = child.wait()
    finally:
        if child.poll() is None:  # stopped early (Ctrl+C, an error): the runs stop as a run does
            child.send_signal(STOP)
            try:
                child.wait(timeout=STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
    if reported < len(jobs):
        raise PoolError(
            f"the sweep's process pool stopped (exit code {code}) after {reported} of "
            f"{len(jobs)} runs; its error is printed above"
        )


def _serve(root: str, workers: int) -> None:
    """The child's side: read the jobs, run them on a pool, write each result as it ends."""
    jobs = [SweepJob(**json.loads(line)) for line in sys.stdin if line.strip()]
    # Results own the stdout pipe; anything else printed (a library's notice) goes to stderr.
    results = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    # spawn, not fork: a worker starts clean, without this process's threads or libraries.
    context = multiprocessing.get_context("spawn")
    stopping = context.Event()
    count = max(1, min(workers, len(jobs)))
    stop = _stop_on_signals(stopping)
    pool = ProcessPoolExecutor(count, context, initializer=_start_worker, initargs=(stopping,))
    with results, pool:
        try:
            # The first submit starts the workers. They start with Ctrl+C ignored (a new
            # process keeps that), so that one arriving before they are ready kills none.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                futures = [pool.submit(_run_job, job, root) for job in jobs]
            finally:
                signal.signal(signal.SIGINT, stop)
            for future in as_completed(futures):
                results.write(json.dumps(asdict(future.result())) + "\n")
                results.flush()
        except KeyboardInterrupt:  # the running runs stop as Ctrl+C stops a run; start no other
            pool.shutdown(cancel_futures=True)
            raise


# A worker process's state, set by _start_worker.
_stopping: EventType | None = None  # the pool's: the sweep is stopping
_interrupted = False  # Ctrl+C reached this worker


def _start_worker(stopping: EventType) -> None:
    """A worker waiting for its next job ignores Ctrl+C but remembers it: a worker that died
    of it would make the pool terminate the others while they still mark their runs."""
    global _stopping
    _stopping = stopping

    def remember(signum: int, frame: object) -> None:
        global _interrupted
        _interrupted = True

    signal.signal(signal.SIGINT, remember)


def _run_job(job: SweepJob, root: str) -> JobResult:
    """A worker's job, which Ctrl+C stops as it stops a run; once the sweep is stopping, the
    jobs the pool had already queued for this worker end without starting their runs."""
    global _interrupted
    not_run = JobResult(job.variant, job.model, job.replicate, job.seed, "", error=NOT_RUN)
    if _interrupted or (_stopping is not None and _stopping.is_set()):
        return not_run
    waiting = signal.signal(signal.SIGINT, signal.default_int_handler)  # asyncio.run's cue
    try:
        return run_job(job, root)
    except KeyboardInterrupt:  # the run has marked itself interrupted
        _interrupted = True
        return not_run
    finally:
        signal.signal(signal.SIGINT, waiting)


def _stop_on_signals(stopping: EventType) -> Callable[[int, object], None]:
    """Ctrl+C (SIGINT, which a terminal sends the workers too) or STOP (the caller's, when
    the interrupt reached it alone: then this process passes SIGINT on to each worker) stops
    the pool, once: each worker gets one SIGINT, which asyncio turns into a clean stop, and
    `stopping` tells them to start no other run. Returns the SIGINT handler."""
    done = False

    def stop(signum: int, frame: object) -> None:
        nonlocal done
        if done:
            return
        done = True
        stopping.set()
        if signum == STOP:
            for worker in multiprocessing.active_children():
                if worker.pid is not None:
                    os.kill(worker.pid, signal.SIGINT)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, stop)
    signal.signal(STOP, stop)
    return stop


if __name__ == "__main__":
    try:
        _serve(sys.argv[1], int(sys.argv[2]))
    except KeyboardInterrupt:  # the caller says where the sweep stands and how to resume it
        sys.exit(130)
