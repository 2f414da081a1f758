"""A rich progress bar for runs in a terminal: ticks, simulated time, model calls, tokens and
their cost so far, each with the total it projects to, and fallbacks."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from simulacra.engine.engine import Progress as RunProgress
from simulacra.engine.engine import ProgressHook
from simulacra.llm.budget import Price


@contextmanager
def console_progress(
    title: str,
    ticks: int,
    start: int = 0,
    tick: timedelta = timedelta(minutes=10),
    price: Price | None = None,
) -> Iterator[ProgressHook | None]:
    """Yields a progress hook drawing a bar on stderr, or None when no terminal is attached.
    Simulated time shows as a date when a tick is a day or longer, else as a weekday and hour.
    Calls, tokens and (with a price) dollars show what was spent and, after `~`, the total
    the run comes to at the pace of its ticks so far."""
    if not sys.stderr.isatty():
        yield None
        return
    stamp = "%a %d %b" if tick >= timedelta(days=1) else "%a %H:%M"
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} ticks"),
        TextColumn("{task.fields[now]}"),
        TextColumn("{task.fields[spent]}"),
        TextColumn("fallbacks {task.fields[fallbacks]}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=False,
    )
    task = bar.add_task(title, total=ticks, completed=start, now="", spent="", fallbacks=0)

    def show(p: RunProgress) -> None:
        bar.update(
            task,
            completed=p.step,
            now=p.now.strftime(stamp),
            spent=spent_line(p, price),
            fallbacks=p.fallbacks,
        )

    with bar:
        yield show


def spent_line(p: RunProgress, price: Price | None) -> str:
    """`calls 120 ~300  tokens 40.1k ~100.2k  $0.012 ~$0.030`: spent, then projected."""
    scale = p.ticks / p.step if p.step else 0.0
    parts = [
        f"calls {p.calls:,} ~{p.calls * scale:,.0f}",
        f"tokens {p.tokens / 1000:.1f}k ~{p.tokens * scale / 1000:.1f}k",
    ]
    if price is not None:
        dollars = price.cost(p.prompt_tokens, p.cached_prompt_tokens, p.tokens - p.prompt_tokens)
        parts.append(f"${dollars:,.3f} ~${dollars * scale:,.3f}")
    return "  ".join(parts)
