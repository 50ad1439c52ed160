"""What enters the context engine: replies and results (L0 at append), user turns, system messages.

Everything here appends, or changes only what no request has carried an answer to yet (the trailing user
turn); the two exceptions (images over the API's limits, user texts over the window) are deliberate
rewrites and go through EngineCore.rewriting.
"""

from __future__ import annotations

from . import rewrite as rw
from .blocks import Block, Message, blocks_of
from .engine_core import EngineCore
from .images import ImageError, block_image_tokens, check_turn_images, image_of_block, is_image
from .keep_images import keep_within_limits
from .oversize import USER_SHARE, fit_history, fit_user_blocks
from .store import result_ref
from .truncate import cut_oversized, truncate_results


class EngineInput(EngineCore):
    # -- appending -------------------------------------------------------------

    def append(self, message: Message) -> list[str]:
        """Append a message (L0 applied to its results); returns the ids L0 cut. A system message (a saved
        session replayed) goes where add_system_message puts one."""
        if message.get("role") == "system":
            self.add_system_message(blocks_of(message))
            return []
        message, cut_ids = truncate_results(message, self.config.truncate_chars, self.store)
        message, cut_blocks = cut_oversized(message, self.config.oversized_chars, self.store)
        self.stats[rw.TRUNCATE].count += cut_blocks
        self.history.append(message)
        self.appended += self.history.msg_tokens[-1]
        self._place_pending_system()
        if message.get("role") == "assistant":
            self.unseen.clear()  # a reply answers a request that carried every result before it
        else:
            for block in blocks_of(message):
                if block.get("type") == "tool_result":
                    self.unseen[block["tool_use_id"]] = None
        for tool_use_id in cut_ids:
            record = self.history.records[tool_use_id]
            record.state = "truncated"
            self.layer_of[tool_use_id] = rw.TRUNCATE
            original = self.store.get(result_ref(tool_use_id)) or ""
            record.original_chars = len(original)
            self.stats[rw.TRUNCATE].count += 1
            self.stats[rw.TRUNCATE].tokens_saved += self.config.tokens(len(original) - record.chars)
        return cut_ids

    def add_user_turn(self, blocks: list[Block]) -> list[Block]:
        """What the user sent, its texts cut losslessly to their share of the window (oversize.py),
        which its images take first; returns the blocks as kept (what a session log saves).

        Images are never cut: a turn whose images cannot fit (images.check_turn_images)
        raises ImageError and nothing is added.
        """
        image_tokens = self.check_images(blocks)
        text_budget = max(0, self.user_budget_chars(USER_SHARE) - int(image_tokens * self.config.chars_per_token))
        blocks, _ = fit_user_blocks(blocks, text_budget, self.store)
        self.add_user_blocks(blocks)
        self._keep_images()
        return blocks

    def _keep_images(self) -> int:
        """The API's image limits, whatever the window: the oldest images beyond them go (keep_images.py)."""
        with self.rewriting():
            dropped = keep_within_limits(self.history)
        self.images_dropped += dropped
        self._dropped_unsent += dropped
        return dropped

    def check_images(self, blocks: list[Block]) -> int:
        """The tokens of a new turn's images; ImageError when they cannot fit in a request."""
        images = [b for b in blocks if is_image(b)]
        if not images:
            return 0
        readable = [image_of_block(b) for b in images]
        if any(item is None for item in readable):
            raise ImageError("an image of this message is not a readable PNG, JPEG, GIF or WebP")
        check_turn_images([item for item in readable if item is not None], self.image_budget_tokens())
        return sum(block_image_tokens(b) for b in images)

    def image_budget_tokens(self) -> int:
        """What one message's images may take: its share of the window."""
        return int(self.config.effective_window * USER_SHARE)

    def add_user_blocks(self, blocks: list[Block]) -> Message:
        """A new user turn; merged into a trailing user message that got no answer."""
        cut, count = cut_oversized({"role": "user", "content": blocks}, self.config.oversized_chars, self.store)
        blocks = cut["content"]
        self.stats[rw.TRUNCATE].count += count
        if self.history.last_role == "user":
            self.history.extend_last_user(blocks)
        else:
            self.history.append({"role": "user", "content": blocks})
            self._place_pending_system()
        return self.history.messages[self.history.last_turn()]

    def add_system_message(self, blocks: list[Block]) -> None:
        """Instructions as a ``role: "system"`` message, where the docs put one: right after the last user
        turn, before its reply (history.py). After a reply there is no such place until the next user turn:
        the blocks wait and follow it. A trailing system message takes the blocks (one, never two in a row).
        Never snipped, cleared or cut; a compaction restates it."""
        if not blocks:
            return
        if self.history.last_role != "user":
            self.pending_system.extend(blocks)
        elif self.history.messages[-1]["role"] == "system":
            self.history.extend_last_system(list(blocks))
        else:
            self.history.append({"role": "system", "content": list(blocks)})

    def _place_pending_system(self) -> None:
        if self.pending_system and self.history.last_role == "user":
            blocks, self.pending_system = self.pending_system, []
            self.add_system_message(blocks)

    def user_budget_chars(self, share: float) -> int:
        return int(self.config.effective_window * share * self.config.chars_per_token)

    def fit_user_texts(self, share: float) -> int:
        """Cut user texts over `share` of the window, losslessly; how many were cut.

        A deliberate rewrite of the history: the prompt cache starts over, which
        only happens when a request would otherwise be refused.
        """
        messages, cut = fit_history(self.history.messages, self.user_budget_chars(share), self.store)
        if cut:
            with self.rewriting():
                self.history = self.history.rebuilt(messages)
            self.meter.reset()
            self.cache_cold = True
        return cut

    def prompt_head_changed(self) -> None:
        """The system prompt or the tool list changed: nothing cached is read, so rewrites are free."""
        self.cache_cold = True

