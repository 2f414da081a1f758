"""A price table: what served models charge, each entry a `model.price` (US dollars per
million input, cached input and output tokens).

```yaml
deepseek-chat: {input: 0.27, cached_input: 0.07, output: 1.10}
```
A model is looked up by its name as the lab logs it (`openai:deepseek-chat`) or by the name
it is served under (`deepseek-chat`); the price found is the bench's `model.price`, for its
dollars per task (the source reports median cost per task) and its budget's dollars alike.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import RootModel, ValidationError

from simulacra.errors import UserError
from simulacra.llm.budget import Price


class PriceError(UserError):
    """A price table that does not load, or one without the model's price."""


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
