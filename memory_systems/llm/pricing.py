"""Prices of models, USD per 1M tokens: :class:`PriceTable` (editable, loadable from YAML or JSON)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from memsuite.memory_systems.errors import ConfigError

#: Built-in prices, USD per 1M (prompt, completion) tokens: OpenAI's list prices as of 2025; edit or
#: override with :meth:`PriceTable.load`. Local models cost nothing.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "local": (0.0, 0.0),
    "SmolLM2-135M-Instruct.Q4_1": (0.0, 0.0),
}


@dataclass(frozen=True)
class PriceTable:
    """USD per 1M prompt and completion tokens, by model name. Edit it, or load one from a file.

    A model is looked up by exact name, then by the longest listed prefix, so dated snapshots
    (``gpt-4o-2024-08-06``) get their family's price. Unlisted models have no price (cost None).
    """

    usd_per_1m: Mapping[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))
    """Model name -> (USD per 1M prompt tokens, USD per 1M completion tokens)."""

    @classmethod
    def load(cls, path: str | Path, *, base: PriceTable | None = None) -> PriceTable:
        """Read a YAML or JSON price file and lay it over ``base`` (default: the built-in table).

        The file maps a model name to ``[prompt, completion]`` or ``{prompt: x, completion: y}``,
        both in USD per 1M tokens.

        Raises:
            ConfigError: The file is unreadable or an entry is malformed (the message names it).
        """
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
            raw = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
        except (OSError, ValueError, yaml.YAMLError) as exc:
            raise ConfigError(f"price table {path}: {exc}") from exc
        if not isinstance(raw, Mapping):
            raise ConfigError(f"price table {path}: expected a mapping of model -> prices")
        prices = dict((base or cls()).usd_per_1m)
        for model, entry in raw.items():
            if isinstance(entry, Mapping) and set(entry) == {"prompt", "completion"}:
                entry = (entry["prompt"], entry["completion"])
            if (
                not isinstance(entry, Sequence)
                or isinstance(entry, str)
                or len(entry) != 2
                or not all(isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in entry)
            ):
                raise ConfigError(
                    f"price table {path}: model {model!r}: expected [prompt, completion] or "
                    f"{{prompt: x, completion: y}} in USD per 1M tokens, got {entry!r}"
                )
            prices[str(model)] = (float(entry[0]), float(entry[1]))
        return cls(prices)

    def price(self, model: str) -> tuple[float, float] | None:
        """(prompt, completion) USD per 1M tokens for ``model``, or None when it is not listed."""
        if model in self.usd_per_1m:
            return self.usd_per_1m[model]
        prefixes = [name for name in self.usd_per_1m if model.startswith(name)]
        return self.usd_per_1m[max(prefixes, key=len)] if prefixes else None

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        """USD for the given token counts, or None when ``model`` has no price."""
        price = self.price(model)
        if price is None:
            return None
        return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000
