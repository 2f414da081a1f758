"""Dollars per task, from a price table: what a served model charges per million tokens.

A price table is a YAML mapping of model names to prices, in US dollars per million tokens:

```yaml
deepseek-chat: {input: 0.27, output: 1.10}
```
A model is looked up by its name as the lab logs it (`openai:deepseek-chat`) or by the name
it is served under (`deepseek-chat`). The source reports median cost per task the same way.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError

from simulacra.errors import UserError


class PriceError(UserError):
    """A price table that does not load, or one without the model's price."""


class Price(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0, description="US dollars per million prompt tokens")
    output: float = Field(ge=0, description="US dollars per million completion tokens")

    def dollars(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1e6


class PriceTable(RootModel[dict[str, Price]]):
    def price(self, model: str) -> Price | None:
        return self.root.get(model) or self.root.get(model.removeprefix("openai:"))


def load_prices(path: Path) -> PriceTable:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return PriceTable.model_validate(data or {})
    except yaml.YAMLError as exc:
        raise PriceError(f"{path}: not YAML: {exc}") from exc
    except ValidationError as exc:
        fields = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()
        )
        raise PriceError(f"{path}: {fields}") from exc


def price_for(table: PriceTable | None, model: str) -> Price | None:
    """The model's price, None without a table; a table that lacks the model is an error."""
    if table is None:
        return None
    found = table.price(model)
    if found is None:
        known = ", ".join(sorted(table.root)) or "none"
        raise PriceError(f"the price table has no price for {model}; it prices {known}")
    return found
