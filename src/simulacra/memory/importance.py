"""How important a new memory is: rated by the model, by a keyword rule, or fixed by config."""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from simulacra.llm import LanguageModel
from simulacra.memory.prompts import ImportanceRating, importance_request

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


async def rate(
    policy: ImportancePolicy, model: LanguageModel | None, agent: str, text: str, seed: int = 0
) -> tuple[float, str]:
    """The importance of `text` under `policy`, and its source (model name, "rule", "fixed")."""
    if policy.mode == "fixed":
        return policy.value, "fixed"
    guess = rule_importance(text)
    if policy.mode == "rule" or model is None:
        return float(guess), "rule"
    completion = await model.complete(importance_request(agent, text, guess, seed))
    if completion.fallback or not isinstance(completion.value, ImportanceRating):
        return float(guess), "rule"
    return float(completion.value.rating), completion.model or model.name


def given_importance(
    importance: float | Sequence[float | None] | None, count: int
) -> list[float | None]:
    """One value (or None: to be rated) per text, from what `add_many` was given."""
    if importance is None or isinstance(importance, int | float):
        return [importance] * count
    given = list(importance)
    if len(given) != count:
        raise ValueError(f"add_many got {count} texts but {len(given)} importance values")
    return given


async def rate_all(
    policy: ImportancePolicy,
    model: LanguageModel | None,
    agent: str,
    texts: Sequence[str],
    given: Sequence[float | None],
    seed: int = 0,
) -> list[tuple[float, str]]:
    """(importance, source) for each text: "given" where a value was supplied, else rated."""
    if policy.mode == "model" and model is not None and None in given:
        return list(
            await asyncio.gather(
                *(_one(policy, model, agent, t, v, seed) for t, v in zip(texts, given, strict=True))
            )
        )
    # Nothing to wait for: rate in place without creating tasks.
    return [await _one(policy, model, agent, t, v, seed) for t, v in zip(texts, given, strict=True)]


async def _one(
    policy: ImportancePolicy,
    model: LanguageModel | None,
    agent: str,
    text: str,
    given: float | None,
    seed: int,
) -> tuple[float, str]:
    if given is not None:
        return check_importance(given, "given importance"), "given"
    return await rate(policy, model, agent, text, seed)
