"""What a rewrite may risk: never more than the session could lose against sending everything.

The price rule (policy.py) buys a batch once the rent it would have saved reaches its price (ski rental)
and the session is expected to run long enough to pay it back. Both are bets on the future: a session
that ends right after the batch paid its price for nothing. Averaged over sessions that is the right bet;
on one short session that fits the window it can make the session dearer than sending everything (issue
31: short sessions at 1.06-1.09x doing nothing, the batch on their last request).

So a payback batch is also held to a **risk budget**: if the session ended right after it, it must cost at
most ``ContextConfig.rewrite_risk`` (a share) more than sending everything would have cost so far. Against
that comparator the session has spent ``spent`` (what sending everything costs: every request reads the
previous one and writes what is new, the tokens batches took out included), and our rewrites have
``banked`` what they saved since (the reads of what they took out, less their prices); the replies' output
counts in ``spent`` too (every policy pays it). A batch of price
``P`` is affordable when ``P <= rewrite_risk * spent + banked``: early in a session only cheap batches (a
short tail after the cached prefix) are taken; every one that pays back widens the budget for the next.
Batches that are not bets are not held to it: a cold cache or an idle pause (price 0), and the pressure
batches and summaries that keep the session inside the window (sending everything is then no option).

After a summary the comparator no longer exists (sending everything would be over the window), so the
ledger stops counting what batches took out; what was banked stays banked.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class RiskLedger:
    spent: float = 0.0  # what sending everything would have cost this session so far (token-price units)
    removed: float = 0.0  # tokens batches took out that sending everything would still carry
    banked: float = 0.0  # what the batches saved against sending everything, less their prices

    def request(self, prompt_tokens: float, new_tokens: float, read: float, write: float,
                output_cost: float = 0.0) -> None:
        """A request was answered: `prompt_tokens` sent, `new_tokens` of them appended since the last one;
        its reply cost `output_cost` (the same whatever the policy: part of what the session has spent)."""
        new = max(0.0, min(new_tokens, prompt_tokens))
        self.spent += read * (prompt_tokens - new + self.removed) + write * new + output_cost
        self.banked += read * self.removed

    def batch(self, saves: float, price: float) -> None:
        """A batch was carried out: it took `saves` tokens out at `price`."""
        self.removed += max(0.0, saves)
        self.banked -= price

    def summarised(self) -> None:
        self.removed = 0.0

    def budget(self, share: float) -> float:
        """The most a batch may cost and keep the session within `share` of sending everything, ended now."""
        return share * self.spent + self.banked

    def state(self) -> list[float]:
        return [self.spent, self.removed, self.banked]

    @classmethod
    def restored(cls, state: object, fallback_spent: float) -> RiskLedger:
        """From `state`; a state saved before the ledger was kept counts `fallback_spent` and nothing banked."""
        if isinstance(state, list) and len(state) == 3 and all(isinstance(x, (int, float)) for x in state):
            return cls(float(state[0]), float(state[1]), float(state[2]))
        return cls(fallback_spent)
