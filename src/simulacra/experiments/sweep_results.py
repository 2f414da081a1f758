"""A sweep's results: results.csv, summary.json and summary.md, with each headline figure's
mean and 95% Student-t interval per variant and model."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from simulacra.experiments.kinds import binding_of
from simulacra.experiments.paired import (
    comparison_markdown,
    interval_text,
    paired_differences,
    signature_columns,
)
from simulacra.experiments.scenario import Scenario
from simulacra.experiments.stats import CONFIDENCE, MARKS, METHOD, PAIRED, figure_ci


@dataclass(frozen=True)
class JobResult:
    variant: str
    model: str
    replicate: int
    seed: int
    run: str  # the run directory
    summary: dict[str, float] = field(default_factory=dict)
    wall_s: float = 0.0
    error: str | None = None


def summarize_sweep(
    results: Sequence[JobResult], shares: Mapping[str, float]
) -> list[dict[str, Any]]:
    """Per variant and model: the replicates and each figure's mean with its interval
    (Wilson's for the `shares`, see stats.figure_ci)."""
    groups: dict[tuple[str, str], list[JobResult]] = {}
    for result in results:
        if result.error is None:
            groups.setdefault((result.variant, result.model), []).append(result)
    rows = []
    for (variant, model), runs in groups.items():
        names = sorted({k for r in runs for k in r.summary})
        figures = {
            name: figure_ci(
                name, [r.summary[name] for r in runs if name in r.summary], shares
            ).as_dict()
            for name in names
        }
        rows.append(
            {"variant": variant, "model": model, "replicates": len(runs), "figures": figures}
        )
    return rows


def write_outputs(
    out: Path,
    scenario: Scenario,
    variants: dict[str, dict[str, Any]],
    results: Sequence[JobResult],
    wall_s: float,
) -> dict[str, Any]:
    """results.csv, summary.json and summary.md; `variants` maps each variant to its field
    changes (see sweep.variants)."""
    done = [r for r in results if r.error is None]
    names = sorted({k for r in done for k in r.summary})
    with (out / "results.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["variant", "model", "replicate", "seed", *names])
        for r in done:
            writer.writerow(
                [r.variant, r.model, r.replicate, r.seed, *(r.summary.get(n) for n in names)]
            )
    runs = [asdict(r) | {"run": Path(r.run).name if r.run else None} for r in results]
    reference = scenario.sweep.reference
    kind = binding_of(scenario)
    summary = {
        "scenario": scenario.name,
        "world": scenario.world.kind,
        "agents": len(kind.roster(scenario)),
        "ticks": len(scenario.clock.calendar().times()),
        "confidence": CONFIDENCE,
        "interval_method": METHOD,
        "marks": MARKS,  # each method's mark after its intervals (METHOD says why)
        "paired_note": PAIRED,
        "wall_s": wall_s,
        "figures": names,
        "columns": signature_columns(kind.signature_groups(), names),
        "minds": {
            name: str(changes.get("agents.mind", kind.mind(scenario)))
            for name, changes in variants.items()
        },
        "baselines": list(kind.baselines),
        "rows": summarize_sweep(results, kind.share_scales()),
        "reference": reference,
        "comparison": (paired_differences(runs, reference, list(variants)) if reference else []),
        "runs": runs,
        "config": scenario.model_dump(mode="json"),
    }
    write_json(out / "summary.json", summary)
    (out / "summary.md").write_text(_markdown(summary), encoding="utf-8")
    return summary


def _markdown(summary: dict[str, Any]) -> str:
    names = [name for _, group in summary["columns"] for name in group]  # by signature
    lines = [
        f"# {summary['scenario']}: sweep",
        "",
        f"{summary['agents']} agents x {summary['ticks']} ticks. Mean "
        f"[{summary['confidence']:.0%} interval: {summary['interval_method']}]",
        "",
        "| variant | model | replicates | " + " | ".join(names) + " |",
        "|" + " --- |" * (len(names) + 3),
    ]
    for row in summary["rows"]:
        cells = [interval_text(row["figures"].get(n)) for n in names]
        lines.append(
            f"| {row['variant']} | {row['model']} | {row['replicates']} | "
            + " | ".join(cells)
            + " |"
        )
    lines += ["", *comparison_markdown(summary), f"Wall time: {summary['wall_s']} s.", ""]
    return "\n".join(lines)


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
