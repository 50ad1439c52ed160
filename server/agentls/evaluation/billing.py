"""What the replay bills for a block or a message, in tokens: its characters / 4, and each image (an image
block, or one nested in a tool result) by its pixels as the API counts it (context/images.py; an unreadable
one at the ceiling). The engine counts images the same way, so a policy is billed for what it weighed; an
image is never priced by its base64 length, nor as nothing."""

from __future__ import annotations

from ..context.blocks import Block, Message, block_chars, blocks_of
from ..context.images import message_image_tokens
from ..context.tokens import CHARS_PER_TOKEN


def block_tokens(block: Block) -> float:
    return block_chars(block) / CHARS_PER_TOKEN + message_image_tokens([block])


def message_tokens(message: Message) -> float:
    return sum(block_tokens(b) for b in blocks_of(message))
