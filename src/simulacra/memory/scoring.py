"""Retrieval arithmetic as pure functions: recency decay, min-max normalisation, the weighted
total, top-k selection and the token budget. The stream and the tests share them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import NamedTuple, overload

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]
Indices = npt.NDArray[np.intp]

_EPOCH = datetime(2000, 1, 1)
# Below this spread a component does not discriminate between candidates (float noise).
_FLAT = 1e-12


class Weights(NamedTuple):
    """How much each component counts; the source uses 1, 1, 1."""

    recency: float = 1.0
    importance: float = 1.0
    relevance: float = 1.0


WeightsLike = Weights | tuple[float, float, float]


def as_weights(weights: WeightsLike | None) -> Weights:
    if weights is None:
        return Weights()
    found = Weights(*(float(w) for w in weights))
    if not all(math.isfinite(w) and w >= 0 for w in found):
        raise ValueError(
            f"retrieval weights must be finite and non-negative, got {tuple(weights)}; "
            "use e.g. (1, 1, 1) for recency, importance, relevance"
        )
    return found


@overload
def score(
    recency: float, importance: float, relevance: float, weights: WeightsLike | None = None
) -> float: ...
@overload
def score(
    recency: Floats, importance: Floats, relevance: Floats, weights: WeightsLike | None = None
) -> Floats: ...
def score(
    recency: float | Floats,
    importance: float | Floats,
    relevance: float | Floats,
    weights: WeightsLike | None = None,
) -> float | Floats:
    """The source's total: a weighted sum of the (already normalised) components."""
    w = as_weights(weights)
    return w.recency * recency + w.importance * importance + w.relevance * relevance


class Span(NamedTuple):
    """Min-max normalisation as an affine map, fitted once over the candidates."""

    low: float
    width: float  # 0 when the values do not discriminate (see `min_max`)

    @classmethod
    def of(cls, values: Floats) -> Span:
        if values.size == 0:
            return cls(0.0, 0.0)
        low = float(values.min())
        width = float(values.max()) - low
        return cls(low, width if width > _FLAT else 0.0)

    def apply(self, values: Floats) -> Floats:
        if not self.width:
            return np.ones_like(values)
        result: Floats = (values - self.low) / self.width
        return result


def min_max(values: Floats) -> Floats:
    """Scale to [0, 1] over the candidates.

    A component with no spread (one candidate, or all equal) gives every candidate 1: equal
    values stay equal and cannot change the ranking, a lone candidate keeps its full weight,
    and a record identical to the query always has relevance 1.
    """
    return Span.of(values).apply(values)


def ranking_key(components: Sequence[Floats], spans: Sequence[Span], weights: Weights) -> Floats:
    """The weighted total of the min-max normalised components less the flat ones' weights:
    the order of `score`, built in one buffer without normalising each component apart."""
    key = np.zeros(components[0].size)
    scratch = np.empty_like(key)
    for values, span, weight in zip(components, spans, weights, strict=True):
        if weight and span.width:  # a flat component adds the same to every candidate
            # Subtract first: a narrow span of large values keeps its differences.
            np.subtract(values, span.low, out=scratch)
            scratch *= weight / span.width
            key += scratch
    return key


def sim_hours(moment: datetime) -> float:
    """Simulated hours since 2000-01-01; aware times are taken in UTC."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return (moment - _EPOCH).total_seconds() / 3600.0


def recency(hours_since_access: Floats, decay: float) -> Floats:
    """decay ** hours since last access; a time before the last access counts as none."""
    result: Floats = np.maximum(hours_since_access, 0.0)
    result *= math.log(decay)
    return np.exp(result, out=result)


def top_k(totals: Floats, k: int) -> Indices:
    """Indices of the k highest totals, best first; ties go to the lower index (older record)."""
    n = totals.size
    k = min(k, n)
    if k <= 0:
        return np.empty(0, dtype=np.intp)
    if k < n:
        # The k largest, in no order; among values equal to the k-th, the oldest are kept.
        chosen = np.argpartition(totals, n - k)[n - k :]
        kth = totals[chosen[0]]
        above = chosen[totals[chosen] > kth]
        tied = np.flatnonzero(totals == kth)[: k - above.size]
        chosen = np.concatenate([above, tied])
    else:
        chosen = np.arange(n, dtype=np.intp)
    order = np.lexsort((chosen, -totals[chosen]))
    result: Indices = chosen[order]
    return result


def approx_tokens(text: str) -> int:
    """A model-free token estimate: about four characters a token."""
    return math.ceil(len(text) / 4)


# Real tokens per approx_tokens token, SmolLM2's tokenizer on 150 records of a two-day town
# (measured): 1.43 over all of them, 1.75 at the 95th percentile of single records (plans,
# full of clock times, cost the most). A prompt sized by this fits the model's window.
TOKENIZER_SLACK = 1.8
# What a chat template adds around the messages (role markers), in real tokens.
CHAT_TOKENS = 32


def prompt_room(context_tokens: int, max_tokens: int, *fixed: str) -> int:
    """The approx_tokens budget left for memories in a prompt that holds the `fixed` texts
    and leaves `max_tokens` of a `context_tokens` window for the answer; never negative."""
    real = context_tokens - max_tokens - CHAT_TOKENS
    return max(0, int(real / TOKENIZER_SLACK) - sum(approx_tokens(text) for text in fixed))


def fit_budget(texts: Sequence[str], budget: int, per_text: int = 0) -> int:
    """How many of `texts`, taken in order, fit in `budget` tokens (a prefix, never a gap),
    each costing `per_text` tokens more than its own (a prompt's line prefix)."""
    used = 0
    for count, text in enumerate(texts):
        used += approx_tokens(text) + per_text
        if used > budget:
            return count
    return len(texts)
