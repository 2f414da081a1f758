"""The evaluation of a run as the Generative Agents study did it: interviews in five categories
under each ablation from the same memories, ranked by a judge and rated with TrueSkill, and the
emergent social measures. `evaluate(run)` writes eval.json."""

from simulacra.experiments.evaluate.progress import Steps
from simulacra.experiments.evaluate.study import (
    EVAL_JSON,
    evaluate,
    merge_ratings,
    write_rating_page,
)

__all__ = ["EVAL_JSON", "Steps", "evaluate", "merge_ratings", "write_rating_page"]
