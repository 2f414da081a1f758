"""The report layer's extension point: what one world kind adds to its run's report, viewer,
frames and sweep page, registered once beside the world's binding.

The report layer names no world. It draws what every run has (the summary, agents, their
day, conversations, the model budget, all metrics) and asks the run's world, by the kind in
run.json or the `run` event, for the rest through a `WorldReport`:

- `sections`: the report's sections that read the world's metrics, in order;
- `shown`: the metrics.json keys those sections show, so "All metrics" does not repeat them;
- `units`: the unit of each headline figure (metrics.json's `summary`), shown beside it;
- `painter`: how a 2D frame of the world is drawn (else the map of places, when there is one);
- `frames`: a world that draws its frames itself (the embodied world renders its scene in 3D);
- `pictures`: the replay with the world's pictures inline (the embodied views and overviews);
- `sweep_sections`: the sweep page's sections after the comparison;
- `decisions`: the replay reads `decision` events into each agent's track (step by step);
- `over_time`: the world's figures over simulated time, which a fork's report draws beside
  its parent's (else the agents at each place, and awareness at each interview);
- `script`: JavaScript the viewer runs before its own, setting `window.SimulacraWorldView`'s
  hooks (`unit`, `backdrop`, `frame`; viewer.js says when each is called): how the world's
  map is drawn beyond places and markers (the town's tiles and walks);
- `timeline`, `conversations`: whether the report's day timeline and conversations per pair
  tell this world's story. (The viewer shows an agent's plan, memory and conversation panels
  only where the run logged any.)

`simulacra.experiments.kinds` registers each binding's `report` method when it is imported:
a loader, called the first time the report layer asks, so that running a world loads none of
its plotting. The registry imports that package itself on its first lookup, so a report built
from a bare `import simulacra.report` (a notebook, a test) finds every world's report whatever
was imported before; the name is a string so that the report layer's imports (lint-imports)
stay free of worlds and experiments. A world with none registered gets the common sections.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simulacra.report.replay_model import Replay
from simulacra.runlog import Event

if TYPE_CHECKING:  # matplotlib loads only where frames are drawn
    from simulacra.report.frame_maps import Painter

Metrics = Mapping[str, Any]
Sections = Callable[[Replay, Metrics], list[str]]
PainterFor = Callable[[Replay, Mapping[str, Any]], "Painter"]
FramesOf = Callable[[Path, Sequence[Event], Path], list[Path]]
Pictures = Callable[[Replay, Path, list[Event]], Replay]
SweepSections = Callable[[Path, Mapping[str, Any]], list[str]]
OverTime = Callable[[Sequence[Event]], Mapping[str, Sequence[tuple[datetime, float]]]]


@dataclass(frozen=True)
class WorldReport:
    """What one world kind adds to the common report (see the module's docstring)."""

    kind: str
    sections: Sections | None = None
    shown: tuple[str, ...] = ()
    units: Mapping[str, str] = field(default_factory=dict)
    painter: PainterFor | None = None
    frames: FramesOf | None = None
    pictures: Pictures | None = None
    sweep_sections: SweepSections | None = None
    over_time: OverTime | None = None
    decisions: bool = False
    script: str = ""
    timeline: bool = True
    conversations: bool = True


# The package whose import registers every binding's report (see the module's docstring).
BINDINGS_PACKAGE = "simulacra.experiments.kinds"

_LOADERS: dict[str, Callable[[], WorldReport]] = {}
_LOADED: dict[str, WorldReport] = {}


def _registered() -> dict[str, Callable[[], WorldReport]]:
    """The loaders, the bindings' among them: importing their package registers them (once;
    a second import is a lookup in sys.modules)."""
    import_module(BINDINGS_PACKAGE)
    return _LOADERS


def register_world_report(kind: str, load: Callable[[], WorldReport]) -> None:
    """Register how to load one world kind's report; a second loader replaces the first."""
    _LOADERS[kind] = load
    _LOADED.pop(kind, None)


def world_report(kind: str) -> WorldReport:
    """The registered report of `kind`, or one that adds nothing to the common sections."""
    if kind not in _LOADED:
        load = _registered().get(kind)
        report = load() if load is not None else WorldReport(kind)
        if report.kind != kind:
            raise ValueError(f"the report registered for {kind!r} is {report.kind!r}'s")
        _LOADED[kind] = report
    return _LOADED[kind]


def world_reports() -> tuple[WorldReport, ...]:
    """Every registered world's report, in the order they were registered."""
    return tuple(world_report(kind) for kind in tuple(_registered()))


def kind_of_run(replay: Replay, metrics: Metrics | None = None) -> str:
    """The run's world, from run.json or the `run` event; else guessed from the metrics keys
    the registered worlds show."""
    if replay.run.world:
        return replay.run.world
    keys = set(metrics or ())
    for report in world_reports():
        if keys & set(report.shown):
            return report.kind
    return ""


def report_of_run(replay: Replay, metrics: Metrics | None = None) -> WorldReport:
    return world_report(kind_of_run(replay, metrics))
