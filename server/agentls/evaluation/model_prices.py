"""A model's list prices applied to the replay's cache usage (``agentls replay --model ID``).

The prices come from model/pricing.py (``price_for``): the cache multipliers the context engine is told
(read / input, 5-minute write / input) are derived from them here, so the replay follows whatever the table
says; a long-prompt tier (Haiku 5.5 over 100K tokens) prices a whole request, as pricing.cost_usd does.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..context.prompt_cache import CacheUsage, minimum_cacheable_tokens
from ..model import pricing
from ..model.pricing import Price, price_for


@dataclass(frozen=True)
class ModelPrices:
    model: str
    price: Price
    minimum_tokens: int  # the shortest cacheable prompt

    @classmethod
    def of(cls, model: str) -> ModelPrices:
        price = price_for(model)
        if price is None or not price.input:
            raise ValueError(f"no known price for model {model!r}")
        # pricing.min_cacheable_tokens (the prompt-caching page's minimums, 512 on the 5.x models) comes with
        # the model branch of issue 29; before it, the prompt cache's own table
        minimum = getattr(pricing, "min_cacheable_tokens", minimum_cacheable_tokens)(model)
        return cls(model, price, int(minimum))

    @property
    def read_multiplier(self) -> float:
        return self.price.cache_read / self.price.input

    @property
    def output_multiplier(self) -> float:
        return self.price.output / self.price.input

    @property
    def write_multiplier(self) -> float:
        return self.price.cache_write / self.price.input

    def usd(self, usage: CacheUsage, output_tokens: float = 0.0) -> float:
        """One request's cost in USD."""
        price = self.price.for_prompt(int(usage.total))
        return (usage.input_tokens * price.input + usage.read * price.cache_read
                + usage.write_5m * price.cache_write + usage.write_1h * price.write_1h
                + output_tokens * price.output) / 1_000_000
