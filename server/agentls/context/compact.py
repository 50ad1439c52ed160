"""L3: replace the old part of the history with a structured summary.

Unlike a "[summary, ack, last user message]" rewrite, the recent tail is
kept verbatim and the cut always falls on an assistant message, so no
tool_result is ever separated from its tool_use, even mid tool-loop. The
summary message also carries the user's own words verbatim (up to a budget)
and the files most recently read, so the model does not have to ask again.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .attachments import is_attachment
from .blocks import Message, blocks_of, result_text
from .config import ContextConfig
from .fold import FOLD_MARK, Fold
from .omit_turns import OMITTED_TURNS_MARK
from .history import History, last_turn_of
from .tool_record import ToolRecord
from .images import IMAGE_MARK, image_of_block, image_ref, is_image
from .placeholders import cut_middle, is_superseded
from .state_blocks import state_tag
from .store import ResultStore, result_ref

SUMMARY_MARK = "[Conversation summary: earlier turns were compacted; the full transcript is kept on disk]"
USER_TEXTS_MARK = "[Your messages before the summary, verbatim]"
FILES_MARK = "[Files as you last read them]"
OMITTED_MARK = "[Earlier messages omitted from this summary request to fit the window]"
PINNED_MARK = "[Kept verbatim across compactions]"
IMAGES_MARK = "[Images before the summary: not carried any more; the summary says what they showed]"
MARKS = (SUMMARY_MARK, USER_TEXTS_MARK, FILES_MARK, OMITTED_MARK, IMAGES_MARK, IMAGE_MARK, PINNED_MARK, FOLD_MARK,
         OMITTED_TURNS_MARK)

# Added to the summary prompt only when images are summarised away: a summary is text, so
# what an image showed survives only in the summary's words.
IMAGES_NOTE = ("Some of the messages being summarised hold images, which will not be kept: say in the "
               "summary what each one showed that the work still needs.")

SUMMARY_SECTIONS = """1. Goal: what the user wants, in their own terms.
2. Decisions: the choices made so far and why.
3. Files touched: every path read, created or edited, and what changed in it.
4. Errors and fixes: what failed, and what fixed it.
5. Pending work: what is not done yet.
6. Next step: the very next action, tied to the user's latest request.
Keep exact paths, names, commands and numbers."""

SUMMARY_PROMPT = f"""Stop working on the task for a moment: write a summary of this conversation so the work can go on \
after the older messages are removed from your context. Do not call any tool.

First, inside <analysis>...</analysis>, go through the conversation in order: each request of the user, \
what you did about it, the files and commands involved, what went wrong and how it was fixed. This part is thrown away.

Then, inside <summary>...</summary>, write these sections:
{SUMMARY_SECTIONS}"""

# The API's compaction keeps whatever its summarizer writes, signed (the client cannot cut a scratch part
# out of it): one pass, the same sections, no analysis.
SERVER_SUMMARY_PROMPT = f"""Write a summary of this conversation so the work can go on after the older messages are \
removed from the context, in these sections:
{SUMMARY_SECTIONS}"""


MIN_COMPACTED_TOKENS = 500  # an automatic compaction summarises at least this much


class SummaryError(ValueError):
    pass


@dataclass
class SummaryRequest:
    messages: list[Message]
    cut: int  # messages before this index are replaced by the summary
    history_length: int  # the history must not change before the summary is applied
    tokens_before: int
    max_tokens: int
    instructions: str | None = None


def choose_cut(history: History, config: ContextConfig, manual: bool = False) -> int | None:
    """Index of the assistant message where the verbatim tail starts, or None.

    Auto-compaction keeps a recent tail verbatim; a manual compaction keeps only
    what the structure needs (the last assistant message and what follows).
    """
    if manual:
        return tail_start(history, 0)[0]
    return auto_cut(history, config)[0]


def auto_cut(history: History, config: ContextConfig) -> tuple[int | None, int]:
    """(the cut an automatic compaction makes now, the tokens of the tail it keeps verbatim); (None, 0)
    when there is nothing worth summarising."""
    best, tail = tail_start(history, config.compact_tail_tokens)
    if best is None or history.total_tokens - tail < MIN_COMPACTED_TOKENS:
        return None, 0
    return best, tail


def tail_start(history: History, budget: float) -> tuple[int | None, int]:
    """(the oldest assistant message whose tail from it fits the budget — the newest one when none does —,
    the tokens of that tail); (None, 0) without an assistant message (the first message is never one).
    Work: logarithmic in the history (token_sums.py), plus the messages up to the nearest assistant one;
    the compaction clock asks on every request, and in a large window the tail is most of the session."""
    messages, sums = history.messages, history.msg_tokens
    total = sums.prefix(len(messages))
    start = max(1, sums.first_reaching(math.ceil(total - budget)))  # the tail from `start` on fits
    for index in range(start, len(messages)):
        if messages[index]["role"] == "assistant":
            return index, total - sums.prefix(index)
    for index in range(min(start, len(messages)) - 1, 0, -1):  # none within it: the newest one
        if messages[index]["role"] == "assistant":
            return index, total - sums.prefix(index)
    return None, 0


def _prompt(instructions: str | None, images: bool = False, base: str = SUMMARY_PROMPT) -> str:
    prompt = f"{base}\n\n{IMAGES_NOTE}" if images else base
    if instructions:
        return f"{prompt}\n\nThe user adds these instructions for the summary:\n{instructions}"
    return prompt


def server_instructions(history: History, cut: int, instructions: str | None) -> str | None:
    """The `instructions` of the API's on-demand compaction of `messages[:cut]`: None (the API's own
    prompt) unless the user adds instructions or images are summarised away (the summary is all that will
    be left of them). They replace the API's prompt (the SDK's BetaCompactionConfigParam), so they are a
    whole summary prompt, never a bare addendum."""
    images = bool(images_before(history, cut))
    if not (images or instructions):
        return None
    return _prompt(instructions, images=images, base=SERVER_SUMMARY_PROMPT)


def images_before(history: History, cut: int) -> list[str]:
    """What each image summarised away was (its name and size), oldest first."""
    named = []
    for message in history.messages[:cut]:
        for block in blocks_of(message) if message["role"] == "user" else ():
            if is_image(block):
                item = image_of_block(block)
                named.append(f"{image_ref(block)} ({item.describe() if item is not None else 'unreadable'})")
    return named


def _trim_front(messages: list[Message], tokens: list[int], limit: int) -> list[Message]:
    """Drop the oldest turns until the request fits; never orphan a tool_result."""
    total = sum(tokens)
    start = 0
    while total > limit and start < len(messages) - 2:
        total -= tokens[start]
        start += 1
    if start == 0:
        return messages
    while start < len(messages) and messages[start]["role"] != "user":
        start += 1  # a request starts with the user
    head = messages[start]
    texts = [b for b in blocks_of(head) if b.get("type") != "tool_result"]
    notes = [
        {"type": "text", "text": f"(result of an omitted tool call) {result_text(b)[:2000]}"}
        for b in blocks_of(head) if b.get("type") == "tool_result"
    ]
    first = {"role": "user", "content": [{"type": "text", "text": OMITTED_MARK}, *notes, *texts]}
    return [first, *messages[start + 1:]]


def summary_input_limit(config: ContextConfig) -> int:
    """The most the summary request may carry in messages: the window less its own output and the head.

    The summary call's output reserve is its `max_tokens` (summary_max_tokens), not the conversation's
    reserve as well: counting both (effective_window - summary_max_tokens) cut the request at a small
    window, where it was compacted at 85% of the effective window, so it lost its cache and was written anew.
    """
    return config.window - config.summary_max_tokens - config.system_tokens


def build_summary_request(history: History, config: ContextConfig, estimate: int,
                          instructions: str | None, manual: bool = False) -> SummaryRequest | None:
    cut = choose_cut(history, config, manual)
    if cut is None:
        return None
    limit = summary_input_limit(config)
    # Images stay in the summary request as they were sent (it extends the last request, so it
    # reads the cache, and the summarizer sees what it summarises); the summary replaces them.
    ask = {"type": "text", "text": _prompt(instructions, images=bool(images_before(history, cut)))}
    # The request extends the last one sent, so the summary call reads the cache. When the whole history
    # does not fit the summary call (the window forced this compaction), it stops at the cut instead: the
    # tail is kept verbatim anyway, and dropping the oldest turns would drop the previous summary with them.
    # (The cut falls on an assistant message, so messages[:cut] ends with a user turn and orphans nothing.)
    end = len(history.messages) if history.total_tokens <= limit else cut
    messages = list(history.messages[:end])
    tokens = list(history.msg_tokens[:end])
    # A system message after the last user turn stays last: the ask joins that turn (a system message
    # precedes the reply).
    last_turn = last_turn_of(messages)
    if last_turn >= 0 and messages[last_turn]["role"] == "user":
        last = messages[last_turn]
        messages[last_turn] = {**last, "content": [*blocks_of(last), ask]}
    else:
        messages.append({"role": "user", "content": [ask]})
        tokens.append(0)
    messages = _trim_front(messages, tokens, limit)
    return SummaryRequest(messages, cut, len(history.messages), estimate, config.summary_max_tokens, instructions)


def parse_summary(raw: str) -> str:
    """Keep the <summary> part; the <analysis> scratch work is discarded."""
    found = re.search(r"<summary>(.*?)(?:</summary>|$)", raw, re.S)
    text = found.group(1) if found else re.sub(r"<analysis>.*?(</analysis>|$)", "", raw, flags=re.S)
    text = text.strip()
    if not text:
        raise SummaryError("the model returned an empty summary")
    return text


def is_generated(text: str) -> bool:
    return text.startswith(MARKS)


def user_texts_before(history: History, cut: int) -> list[str]:
    """The user's own words before the cut: no generated marks, no attachments, no harness state blocks
    (a tag that repeats, superseded.py) nor what stands for a superseded one, no results a harness sent as text
    (text_results.py). A tagged block whose tag came once is the user's (Cline's ``<task>``)."""
    texts = []
    harness_text = history.text_results.active  # no tool call ever: its text results are no one's words
    for index, message in enumerate(history.messages[:cut]):
        if message["role"] != "user" or (harness_text and history.text_results.is_result(index)):
            continue
        for block in blocks_of(message):
            text = block.get("text") if block.get("type") == "text" else None
            tag = state_tag(block)
            if (text and not is_generated(text) and not is_attachment(block) and not is_superseded(text)
                    and (tag is None or not history.states.repeated(tag))):
                texts.append(text)
    return texts


def once(texts: list[str]) -> list[str]:
    """Each text once, at its last place."""
    last = {text: index for index, text in enumerate(texts)}
    return [text for index, text in enumerate(texts) if last[text] == index]


def select_user_texts(texts: list[str], config: ContextConfig) -> list[str]:
    """Newest first until the budget is spent, then back in order."""
    budget = config.user_text_budget_tokens
    chosen: list[str] = []
    for text in reversed(texts):
        cost = config.tokens(len(text))
        if cost > budget:
            break
        chosen.append(text)
        budget -= cost
    return list(reversed(chosen))


def _still_useful(history: History, record: ToolRecord, cut: int, in_tail: set[str]) -> bool:
    """A file read is worth re-attaching only when the model still saw it in full before the cut.

    Not when a later read of the same file is kept in the tail (it is there already),
    nor when the read was cleared or snipped (the model had let it go: re-attaching it
    would only grow the context).
    """
    path = record.path_or_command
    if record.use_msg >= cut or record.name != "read_file" or record.is_error:
        return False
    if not path or path in in_tail or path.startswith("context://"):
        return False
    return record.state in ("", "truncated", "budgeted")


def reattached_files(history: History, config: ContextConfig, cut: int, store: ResultStore) -> list[str]:
    """The files most recently read before the cut, as last read, within a budget."""
    in_tail = {r.path_or_command for r in history.records.values() if r.use_msg >= cut}
    total_chars = int(min(config.reattach_files * config.reattach_file_tokens,
                          config.reattach_total_tokens) * config.chars_per_token)
    per_file = int(config.reattach_file_tokens * config.chars_per_token)
    seen: set[str] = set()
    parts: list[str] = []
    for tool_use_id in reversed(history.results):
        record = history.records[tool_use_id]
        path = record.path_or_command
        if path in seen:
            continue
        seen.add(path)  # only the newest read of a path counts
        if not _still_useful(history, record, cut, in_tail):
            continue
        ref = result_ref(tool_use_id)
        text = store.get(ref)
        if text is None:
            block = history.result_block(tool_use_id)
            text = result_text(block) if block else ""
        limit = min(per_file, total_chars)
        if limit < 200:
            break
        if len(text) > limit:
            store.put(ref, text)  # the marker names the ref: it must read back once the tail is gone
            text = cut_middle(text, limit, ref, "truncated")
        parts.append(f"## {path}\n{text}")
        total_chars -= len(parts[-1])
        if len(parts) >= config.reattach_files:
            break
    return parts


def compacted_messages(history: History, config: ContextConfig, cut: int, summary: str,
                       user_texts: list[str], store: ResultStore, *, files: bool = True,
                       pinned: str = "", fold: Fold | None = None) -> list[Message]:
    """The summary message (with the pinned state, never shed), the system messages it replaced restated
    as one (instructions outlive a summary), then the verbatim tail (which starts with a reply)."""
    blocks = [{"type": "text", "text": f"{SUMMARY_MARK}\n\n{summary}"}]
    if pinned:
        blocks.append({"type": "text", "text": f"{PINNED_MARK}\n{pinned}"})
    chosen = select_user_texts(once(user_texts), config)
    if chosen:
        quoted = "\n\n".join(f"- {t}" for t in chosen)
        blocks.append({"type": "text", "text": f"{USER_TEXTS_MARK}\n{quoted}"})
    reattached = reattached_files(history, config, cut, store) if files else []
    if reattached:
        blocks.append({"type": "text", "text": FILES_MARK + "\n\n" + "\n\n".join(reattached)})
    images = images_before(history, cut)
    if images:
        blocks.append({"type": "text", "text": IMAGES_MARK + "\n" + "\n".join(f"- {name}" for name in images)})
    tail = history.messages[cut:]
    if fold is not None:  # the settled turns of the tail, as an index (fold.py)
        blocks.append({"type": "text", "text": fold.text})
        tail = fold.kept(history.messages)
    return [{"role": "user", "content": blocks}, *restated_system(history, cut), *tail]


def restated_system(history: History, cut: int) -> list[Message]:
    """The system messages before `cut` as one system message (none when there are none)."""
    blocks = [b for message in history.system_messages_before(cut) for b in blocks_of(message)]
    return [{"role": "system", "content": blocks}] if blocks else []
