"""A rich progress bar for runs in a terminal: ticks, simulated time, model calls, tokens,
fallbacks."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from simulacra.engine.engine import Progress as RunProgress
from simulacra.engine.engine import ProgressHook


@contextmanager
def console_progress(
    title: str, ticks: int, start: int = 0, tick: timedelta = timedelta(minutes=10)
) -> Iterator[ProgressHook | None]:
    """Yields a progress hook drawing a bar on stderr, or None when no terminal is attached.
    Simulated time shows as a date when a tick is a day or longer, else as a weekday and hour."""
    if not sys.stderr.isatty():
        yield None
        return
    stamp = "%a %d %b" if tick >= timedelta(days=1) else "%a %H:%M"
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} ticks"),
        TextColumn("{task.fields[now]}"),
        TextColumn("calls {task.fields[calls]}  tokens {task.fields[tokens]}"),
        TextColumn("fallbacks {task.fields[fallbacks]}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=False,
    )
    task = bar.add_task(title, total=ticks, completed=start, now="", calls=0, tokens=0, fallbacks=0)

    def show(p: RunProgress) -> None:
        bar.update(
            task,
            completed=p.step,
            now=p.now.strftime(stamp),
            calls=p.calls,
            tokens=f"{p.tokens / 1000:.1f}k",
            fallbacks=p.fallbacks,
        )

    with bar:
        yield show
