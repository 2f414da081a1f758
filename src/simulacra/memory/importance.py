"""How important a new memory is: rated by the model, by a keyword rule, or fixed by config."""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from simulacra.llm import LanguageModel
from simulacra.memory.prompts import (
    ImportanceRating,
    ImportanceRatings,
    Voice,
    importance_request,
    importances_request,
)

# The most records one rating call may take (`memory.rating_batch`): a look at a busy place
# shows many at once. The default is one, as the source rates: SmolLM2-135M, given a list,
# counts 1, 2, 3 ... instead of rating (measured), and its ratings would follow the order.
MAX_BATCH = 32

# A rough stand-in for the model's judgement: words that usually mark consequential events.
_WEIGHTY = {
    3: (
        "died death funeral fire emergency accident hospital injured married wedding divorce "
        "breakup pregnant fired hired promotion accepted rejected proposal proposed election "
        "arrested stolen"
    ),
    2: (
        "party invited invitation invite birthday exam interview deadline date love argument "
        "fight celebrate celebration anniversary moving"
    ),
    1: "meeting plan plans promise promised help asked visit news tomorrow",
}
_WORD_WEIGHT = {word: weight for weight, words in _WEIGHTY.items() for word in words.split()}
_WORD = re.compile(r"[a-z]+")
_IDLE = re.compile(r"\b(is idle|sleeping|brushing|walking)\b")


def rule_importance(text: str) -> int:
    """A keyword rating from 1 to 10: 2 for ordinary text, more for weighty words."""
    if _IDLE.search(text.lower()):
        return 1
    found = {w for w in _WORD.findall(text.lower()) if w in _WORD_WEIGHT}
    return max(1, min(10, 2 + sum(_WORD_WEIGHT[w] for w in found)))


@dataclass(frozen=True)
class ImportancePolicy:
    """Where importance comes from: "model" (the source's way), "rule", or a fixed number."""

    mode: Literal["model", "rule", "fixed"] = "model"
    value: float = 0.0

    @classmethod
    def parse(cls, setting: str | float) -> ImportancePolicy:
        """Read a configuration value: "model", "rule", or a number from 1 to 10."""
        if setting in ("model", "rule"):
            return cls(mode="model" if setting == "model" else "rule")
        try:
            value = float(setting)
        except (TypeError, ValueError):
            raise ValueError(
                f'importance: unknown setting {setting!r}; expected "model", "rule" or a number '
                "from 1 to 10"
            ) from None
        check_importance(value, "importance")
        return cls(mode="fixed", value=value)

    @classmethod
    def resolve(
        cls, setting: ImportancePolicy | str | float | None, model: LanguageModel | None
    ) -> ImportancePolicy:
        """The policy a stream uses: the model's rating when there is a model, else the rule."""
        if setting is None:
            return cls("model" if model is not None else "rule")
        policy = setting if isinstance(setting, ImportancePolicy) else cls.parse(setting)
        if policy.mode == "model" and model is None:
            raise ValueError(
                'importance "model" needs a language model: pass model=..., or use '
                'importance="rule" or a fixed number'
            )
        return policy


def check_importance(value: float, what: str) -> float:
    if not (math.isfinite(value) and 0 <= value <= 10):
        raise ValueError(
            f"{what} must be a number from 0 to 10 (the source rates 1-10), got {value}"
        )
    return float(value)


def given_importance(
    importance: float | Sequence[float | None] | None, count: int, what: str = "importance"
) -> list[float | None]:
    """One value (or None) per text, from what `add_many` was given."""
    if importance is None or isinstance(importance, int | float):
        return [importance] * count
    given = list(importance)
    if len(given) != count:
        raise ValueError(f"add_many got {count} texts but {len(given)} {what} values")
    return given


async def rate_all(
    policy: ImportancePolicy,
    model: LanguageModel | None,
    agent: str,
    texts: Sequence[str],
    given: Sequence[float | None],
    rules: Sequence[float | None] | None = None,
    seed: int = 0,
    voice: Voice | None = None,
    batch: int = 1,
) -> list[tuple[float, str]]:
    """(importance, source) for each text: "given" where a value was supplied; else the
    policy's: "fixed", "rule" (the caller's rule value where it gave one, else the keyword
    rule), or the model's rating (its name), the rule's value standing in when it fails.
    The texts a model rates go to it `batch` at a time, one call each."""
    if not 1 <= batch <= MAX_BATCH:
        raise ValueError(f"rating batch must be 1 to {MAX_BATCH}, got {batch}")
    rules = rules if rules is not None else [None] * len(texts)
    found: list[tuple[float, str] | None] = []
    asked: list[tuple[int, str, float]] = []  # (position, text, the rule's value)
    for i, (text, value, hint) in enumerate(zip(texts, given, rules, strict=True)):
        if value is not None:
            found.append((check_importance(value, "given importance"), "given"))
        elif policy.mode == "fixed":
            found.append((policy.value, "fixed"))
        else:
            guess = float(rule_importance(text)) if hint is None else hint
            if policy.mode == "rule" or model is None:
                found.append((check_importance(guess, "rule importance"), "rule"))
            else:
                found.append(None)
                asked.append((i, text, guess))
    if asked and model is not None:
        batches = [asked[i : i + batch] for i in range(0, len(asked), batch)]
        if len(batches) == 1:  # one call: no task to create
            rated = [await _rate(model, agent, batches[0], seed, voice)]
        else:
            asks = (_rate(model, agent, b, seed, voice) for b in batches)
            rated = list(await asyncio.gather(*asks))
        for chunk, ratings in zip(batches, rated, strict=True):
            for (i, _, _), rating in zip(chunk, ratings, strict=True):
                found[i] = rating
    return [rating for rating in found if rating is not None]


async def _rate(
    model: LanguageModel,
    agent: str,
    batch: Sequence[tuple[int, str, float]],
    seed: int,
    voice: Voice | None,
) -> list[tuple[float, str]]:
    texts, guesses = [text for _, text, _ in batch], [guess for _, _, guess in batch]
    # The fallback answer is the rule's value, as a rating from 1 to 10.
    answers = [max(1, min(10, round(g))) for g in guesses]
    request = (
        importance_request(agent, texts[0], answers[0], seed, voice)
        if len(batch) == 1
        else importances_request(agent, texts, answers, seed, voice)
    )
    completion = await model.complete(request)
    value = completion.value
    if completion.fallback or value is None:
        return [(float(g), "rule") for g in guesses]
    source = completion.model or model.name
    ratings = [value.rating] if isinstance(value, ImportanceRating) else []
    if isinstance(value, ImportanceRatings):
        ratings = list(value.ratings)
    return [(float(r), source) for r in ratings]
