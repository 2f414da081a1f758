"""A sweep's groups compared with a reference group, replicate by replicate.

Every variant and model of a replicate runs with the same seed, so the difference between a
group's figure and the reference's at each replicate is a paired difference: the seed's own
luck cancels out. Its mean over replicates, with a Student-t interval, says how far a group
lies from the reference and how sure that is.

`reference` is a variant name (each group is compared with the reference variant under the
same model) or a model spec (each group with the reference model in the same variant).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from simulacra.experiments.stats import PAIRED, mark, mean_ci

Group = tuple[str, str]  # (variant, model)


def check_reference(
    reference: str | None, variants: Sequence[str], models: Sequence[str]
) -> list[str]:
    """Faults of `sweep.reference`, each naming the field."""
    if reference is None:
        return []
    if reference in variants and reference in models:
        return [
            f'scenario.sweep.reference: "{reference}" names both a variant and a model; rename '
            "the variant"
        ]
    if reference not in variants and reference not in models:
        known = ", ".join([*variants, *models])
        return [
            f'scenario.sweep.reference: "{reference}" is neither a variant nor a model of this '
            f"sweep; known: {known}"
        ]
    return []


def reference_group(group: Group, reference: str, variants: Sequence[str]) -> Group:
    variant, model = group
    return (reference, model) if reference in variants else (variant, reference)


def paired_differences(
    runs: Sequence[Mapping[str, Any]], reference: str, variants: Sequence[str]
) -> list[dict[str, Any]]:
    """For each group but the reference's: per figure, the mean difference from the reference
    over the replicates both finished, with its interval (`runs` as summary.json lists them)."""
    by_group: dict[Group, dict[int, Mapping[str, float]]] = {}
    for run in runs:
        if run.get("error") is None:
            group = (str(run["variant"]), str(run["model"]))
            by_group.setdefault(group, {})[int(run["replicate"])] = run["summary"]
    rows = []
    for group, replicates in by_group.items():
        against = reference_group(group, reference, variants)
        if group == against or against not in by_group:
            continue
        theirs = by_group[against]
        shared = sorted(set(replicates) & set(theirs))
        names = sorted({n for r in shared for n in replicates[r] if n in theirs[r]})
        figures = {
            name: mean_ci(
                [replicates[r][name] - theirs[r][name] for r in shared if name in replicates[r]]
            ).as_dict()
            for name in names
        }
        rows.append(
            {
                "variant": group[0],
                "model": group[1],
                "against": {"variant": against[0], "model": against[1]},
                "pairs": len(shared),
                "figures": figures,
            }
        )
    return rows


def signature_columns(
    signature: Mapping[str, Sequence[str]], figures: Sequence[str]
) -> list[tuple[str, list[str]]]:
    """The figures in the world's signature groups (those the runs produced), then the rest."""
    groups = [(name, [f for f in wanted if f in figures]) for name, wanted in signature.items()]
    placed = {f for _, names in groups for f in names}
    rest = [f for f in figures if f not in placed]
    return [(name, names) for name, names in [*groups, ("other", rest)] if names]


def comparison_markdown(summary: Mapping[str, Any]) -> list[str]:
    """summary.md's comparison table, when the sweep names a reference."""
    rows = summary.get("comparison") or []
    if not rows:
        return []
    names = [f for _, group in summary["columns"] for f in group]
    lines = [
        f"## Paired differences from {summary['reference']}",
        "",
        "Mean over replicates of (group - reference) at the same seed "
        f"[{summary['confidence']:.0%} interval, Student's t]. {PAIRED}",
        "",
        "| variant | model | pairs | " + " | ".join(names) + " |",
        "|" + " --- |" * (len(names) + 3),
    ]
    for row in rows:
        cells = [interval_text(row["figures"].get(n), signed=True) for n in names]
        lines.append(
            f"| {row['variant']} | {row['model']} | {row['pairs']} | " + " | ".join(cells) + " |"
        )
    return [*lines, ""]


def interval_text(value: Mapping[str, Any] | None, *, signed: bool = False) -> str:
    """A mean with its interval, as summary.md writes it ("-" for none, "(n/a)" for one
    replicate); `signed` for differences."""
    if value is None:
        return "-"
    form = "+.2f" if signed else ".2f"
    if value["low"] is None:
        return f"{value['mean']:{form}} (n/a)"
    after = mark(value.get("method"))  # stats.METHOD says why
    return f"{value['mean']:{form}} [{value['low']:{form}}, {value['high']:{form}}]{after}"
