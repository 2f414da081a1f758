"""A reflection's evidence, resolved into a tree of the memory records it cites."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class EvidenceNode:
    """One cited record and what it cites in turn.

    `found` is False when the id names no record in the log; `stop` says why a branch was cut
    short ("cycle" or "depth") so the viewer can say so instead of silently hiding it.
    """

    id: str
    found: bool
    children: tuple[EvidenceNode, ...] = ()
    stop: str = ""


def evidence_tree(
    evidence_ids: Sequence[str],
    cites: Mapping[str, Sequence[str]],
    *,
    max_depth: int = 6,
) -> tuple[EvidenceNode, ...]:
    """Resolve `evidence_ids` through `cites` (record id -> the ids that record cites)."""
    return _resolve(evidence_ids, cites, frozenset(), max_depth)


def _resolve(
    ids: Sequence[str],
    cites: Mapping[str, Sequence[str]],
    above: frozenset[str],
    depth_left: int,
) -> tuple[EvidenceNode, ...]:
    nodes = []
    for record_id in ids:
        if record_id not in cites:
            nodes.append(EvidenceNode(record_id, found=False))
        elif record_id in above:
            # A record citing itself through others would recurse forever.
            nodes.append(EvidenceNode(record_id, found=True, stop="cycle"))
        elif cites[record_id] and depth_left <= 1:
            nodes.append(EvidenceNode(record_id, found=True, stop="depth"))
        else:
            children = _resolve(cites[record_id], cites, above | {record_id}, depth_left - 1)
            nodes.append(EvidenceNode(record_id, found=True, children=children))
    return tuple(nodes)
