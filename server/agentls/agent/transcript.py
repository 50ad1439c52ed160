"""The transcript of record: the conversation as the user saw it, kept apart from the model's history.

The model's history is rewritten (results cleared, turns summarised by a
compaction); what the user saw is not. As a turn runs, the agent writes one
`transcript` record per thing shown — a prompt with the names of its
attachments, a reply, a finished tool card (its summary, input, diff and
approval), a compaction divider, a note — and a resumed panel, the
terminal's /resume or ACP's session/load read them back, in order, through
`TranscriptBuilder`. A compaction never touches them.

Sessions written before these records existed are rebuilt from their logged
messages (`legacy_entries`): every prompt, reply and tool call, and a divider
where each compaction was.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..context.attachments import parse_attachment, typed_text
from ..context.blocks import blocks_of
from ..context.images import ImageAttachment, data_ref, image_of_block, is_image
from .subagents.marks import SubagentMark, mark_of

INPUT_CHARS = 20_000  # a tool input field kept in a card record (the full input stays in the model's history)
# Of a card's diff (what the user approved): an 11 MB write must not store 11 MB more nor send it with every
# resume; the whole change stays in the file and its checkpoint (agentls rewinds and diffs from there).
CARD_DIFF_CHARS = 100_000
NOTE_LEVELS = ("info", "warn", "error")


def tool_summary(name: str, tool_input: dict[str, Any]) -> str:
    """What a card says before its tool returns (the tool's own summary replaces it)."""
    if name == "task" and isinstance(tool_input.get("description"), str):  # a subagent: its description
        return f"{name} {tool_input['description']}"[:200]
    for key in ("path", "command", "pattern", "query"):
        if isinstance(tool_input.get(key), str):
            return f"{name} {tool_input[key]}"[:200]
    return name


def attachment_name(where: str, lines: tuple[int, int] | None) -> str:
    """An attachment as its chip names it: the path, and the lines of a selection."""
    return f"{where}:{lines[0]}-{lines[1]}" if lines else where


def _result_chars(block: dict[str, Any]) -> int:
    content = block.get("content", "")
    if isinstance(content, str):
        return len(content)
    return sum(len(b.get("text", "")) for b in content if isinstance(b, dict))


def card_diff(diff: str) -> str:
    """A diff as a card keeps it: at most CARD_DIFF_CHARS in all, cut on a line end, with a line saying so."""
    if len(diff) <= CARD_DIFF_CHARS:
        return diff
    kept = diff[:CARD_DIFF_CHARS - 300]  # room for the note: a card read back is not cut again
    kept = kept[: kept.rfind("\n") + 1] or kept
    rest = diff[len(kept):]
    return (f"{kept}… [the diff is cut here: {len(diff):,} characters, {rest.count(chr(10)):,} more lines; a card "
            f"keeps at most {CARD_DIFF_CHARS:,} — the whole change is in the file and its checkpoint]\n")


def kept_input(tool_input: dict[str, Any]) -> dict[str, Any]:
    """A tool input as a card record keeps it: long text fields cut (the card shows the diff instead)."""
    kept: dict[str, Any] = {}
    for name, value in tool_input.items():
        if isinstance(value, str) and len(value) > INPUT_CHARS:
            value = value[:INPUT_CHARS] + f"\n… ({len(value) - INPUT_CHARS:,} more characters)"
        kept[name] = value
    return kept


@dataclass
class TranscriptTool:
    id: str
    name: str
    summary: str
    is_error: bool = False
    result_chars: int = 0
    marker: str = ""  # "truncated" when the result was cut as it arrived
    input: dict[str, Any] | None = None
    diff: str = ""  # edits and writes: the change as it was approved (unified, 3 lines of context)
    approval: str = ""  # "" (not asked), approved, always, rejected, auto, refused
    reason: str = ""  # the user's words when they rejected it
    done: bool = True  # False: the tool never returned (the turn was stopped or the window closed)
    subagent: SubagentMark | None = None  # a `task` call: its subagent's steps (agent/subagents)


@dataclass(frozen=True)
class CompactionMark:
    tokens_before: int
    tokens_after: int
    reason: str  # "auto" | "manual"
    summary: str  # the summary message as the model saw it after the compaction


@dataclass
class TranscriptEntry:
    role: str  # "user" | "assistant" | "system" (compaction dividers and notes)
    text: str
    tools: list[TranscriptTool] = field(default_factory=list)
    checkpoint: str | None = None  # user entries: the checkpoint taken before that prompt (a rewind target)
    kind: str = "message"  # "message" | "compaction" | "note"
    attachments: list[str] = field(default_factory=list)  # user entries: what was attached, by name
    turn_id: str = ""  # the turn it belongs to ("" in sessions older than the transcript of record)
    compaction: CompactionMark | None = None
    level: str = ""  # notes: info, warn, error
    images: tuple[ImageAttachment, ...] = ()  # user entries: the images sent with the prompt (still carried)


# ---------------------------------------------------------------- records (what the agent writes)

def user_record(turn_id: str, text: str, attachments: list[str],
                images: list[ImageAttachment] | None = None) -> dict[str, Any]:
    """A prompt; its images by reference (their data is in the model's history, which the session keeps)."""
    return {"entry": "user", "turn": turn_id, "text": text, "attachments": attachments,
            "images": [{"ref": data_ref(image.data), "name": image.name} for image in images or []]}


def reply_record(turn_id: str, text: str, uses: list[dict[str, Any]]) -> dict[str, Any]:
    """A model reply as it was shown: its text, then the cards of the tools it called."""
    return {"entry": "reply", "turn": turn_id, "text": text,
            "tools": [{"id": u.get("id", ""), "name": u.get("name", ""),
                       "summary": tool_summary(u.get("name", ""), u.get("input") or {}),
                       "input": kept_input(u.get("input") or {})} for u in uses]}


def tool_record(turn_id: str, tool: TranscriptTool) -> dict[str, Any]:
    return {"entry": "tool", "turn": turn_id, "id": tool.id, "name": tool.name, "summary": tool.summary,
            "is_error": tool.is_error, "result_chars": tool.result_chars, "marker": tool.marker,
            "diff": tool.diff, "approval": tool.approval, "reason": tool.reason, "done": tool.done}


def marker_record(turn_id: str, tool_use_ids: list[str], marker: str) -> dict[str, Any]:
    """Earlier tool results changed form (cleared, snipped…): their cards keep the badge after a resume."""
    return {"entry": "marker", "turn": turn_id, "ids": list(tool_use_ids), "marker": marker}


def compaction_record(turn_id: str, mark: CompactionMark) -> dict[str, Any]:
    return {"entry": "compaction", "turn": turn_id, "tokens_before": mark.tokens_before,
            "tokens_after": mark.tokens_after, "reason": mark.reason, "summary": mark.summary}


def note_record(turn_id: str, level: str, text: str) -> dict[str, Any]:
    return {"entry": "note", "turn": turn_id, "level": level, "text": text}


# ---------------------------------------------------------------- reading them back

def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key, "")
    if not isinstance(value, str):
        raise ValueError(key)
    return value


def _int(body: dict[str, Any], key: str) -> int:
    value = body.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(key)
    return value


class TranscriptBuilder:
    """Transcript records → entries, in order; the same code for a live turn and a resumed session."""

    def __init__(self) -> None:
        self.entries: list[TranscriptEntry] = []
        self.images: dict[str, ImageAttachment] = {}  # the session's images by reference (user records name them)

    def know_images(self, images: list[ImageAttachment]) -> None:
        self.images.update((data_ref(image.data), image) for image in images)

    def tool_ids(self) -> set[str]:
        return {t.id for e in self.entries for t in e.tools}

    def tool(self, tool_use_id: str) -> TranscriptTool | None:
        for entry in reversed(self.entries):
            for tool in entry.tools:
                if tool.id == tool_use_id:
                    return tool
        return None

    def add(self, body: Any) -> bool:
        """Add one record; False (nothing added) when it does not read as one."""
        if not isinstance(body, dict):
            return False
        try:
            self._add(body)
        except (ValueError, TypeError, AttributeError):
            return False
        return True

    def _add(self, body: dict[str, Any]) -> None:
        kind, turn = body.get("entry"), _text(body, "turn")
        if kind == "user":
            names = body.get("attachments") or []
            self.entries.append(TranscriptEntry("user", _text(body, "text"), attachments=[str(n) for n in names],
                                                turn_id=turn, images=self._images(body.get("images") or [])))
        elif kind == "reply":
            tools = [TranscriptTool(_text(t, "id"), _text(t, "name"), _text(t, "summary"),
                                    input=t.get("input") if isinstance(t.get("input"), dict) else None, done=False)
                     for t in body.get("tools") or []]
            self.entries.append(TranscriptEntry("assistant", _text(body, "text"), tools, turn_id=turn))
        elif kind == "tool":
            self._finish_tool(body, turn)
        elif kind == "compaction":
            mark = CompactionMark(_int(body, "tokens_before"), _int(body, "tokens_after"),
                                  _text(body, "reason") or "auto", _text(body, "summary"))
            self.entries.append(TranscriptEntry("system", "", kind="compaction", turn_id=turn, compaction=mark))
        elif kind == "marker":
            marker = _text(body, "marker")
            for tool_use_id in body.get("ids") or []:
                card = self.tool(str(tool_use_id))
                if card is not None and marker:
                    card.marker = marker
        elif kind == "subagent":
            card = self.tool(_text(body, "id"))
            if card is not None:
                card.subagent = mark_of(body)
        elif kind == "note":
            level = _text(body, "level")
            self.entries.append(TranscriptEntry("system", _text(body, "text"), kind="note", turn_id=turn,
                                                level=level if level in NOTE_LEVELS else "info"))
        else:
            raise ValueError(f"unknown transcript record {kind!r}")

    def _images(self, named: list[Any]) -> tuple[ImageAttachment, ...]:
        """A prompt's images that the session still has (a damaged stored image is left out)."""
        found = [(self.images.get(str(item.get("ref"))), item.get("name")) for item in named if isinstance(item, dict)]
        return tuple(replace(image, name=name) if isinstance(name, str) and name else image
                     for image, name in found if image is not None)

    def _finish_tool(self, body: dict[str, Any], turn: str) -> None:
        tool_use_id = _text(body, "id")
        card = self.tool(tool_use_id)
        if card is None:  # its reply was not recorded (a damaged row): the card stands on its own
            card = TranscriptTool(tool_use_id, _text(body, "name"), "")
            self.entries.append(TranscriptEntry("assistant", "", [card], turn_id=turn))
        card.name = _text(body, "name") or card.name
        card.summary = _text(body, "summary") or card.summary
        card.is_error = body.get("is_error") is True
        card.result_chars = _int(body, "result_chars")
        card.marker = _text(body, "marker")
        card.diff = card_diff(_text(body, "diff"))  # sessions stored before the cap, too
        card.approval = _text(body, "approval")
        card.reason = _text(body, "reason")
        card.done = body.get("done", True) is not False


# ---------------------------------------------------------------- sessions older than the records

def _results(messages: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {str(b.get("tool_use_id")): b for m in messages if m.get("role") == "user"
            for b in blocks_of(m) if b.get("type") == "tool_result"}


def transcript(messages: list[dict[str, Any]],
               results: dict[str, dict[str, Any]] | None = None) -> list[TranscriptEntry]:
    """User prompts, assistant text and tool calls rebuilt from logged messages, one entry per turn."""
    if results is None:
        results = _results(messages)
    entries: list[TranscriptEntry] = []
    for message in messages:
        blocks = blocks_of(message)
        if message.get("role") == "user":
            text = typed_text(blocks)
            images = tuple(item for item in (image_of_block(b) for b in blocks if is_image(b)) if item is not None)
            if text.strip() or images:
                names = [attachment_name(a.where, a.lines) for b in blocks if (a := parse_attachment(b)) is not None]
                entries.append(TranscriptEntry("user", text, attachments=names, images=images))
            continue
        text = "\n\n".join(b.get("text", "") for b in blocks if b.get("type") == "text" and b.get("text"))
        tools = []
        for b in blocks:
            if b.get("type") != "tool_use":
                continue
            result = results.get(str(b.get("id")), {})
            tools.append(TranscriptTool(b.get("id", ""), b.get("name", ""),
                                        tool_summary(b.get("name", ""), b.get("input") or {}),
                                        bool(result.get("is_error")), _result_chars(result),
                                        input=kept_input(b.get("input") or {}), done=bool(result)))
        if entries and entries[-1].role == "assistant":  # one entry per turn, like the live panel
            previous = entries[-1]
            previous.text = "\n\n".join(t for t in (previous.text, text) if t)
            previous.tools += tools
        else:
            entries.append(TranscriptEntry("assistant", text, tools))
    return entries


def legacy_entries(rows: list[tuple[str, dict[str, Any]]]) -> list[TranscriptEntry]:
    """Entries rebuilt from `message` and `compaction` records: a divider where each compaction was."""
    messages = [body["message"] for kind, body in rows if kind == "message" and isinstance(body.get("message"), dict)]
    results = _results(messages)
    entries: list[TranscriptEntry] = []
    segment: list[dict[str, Any]] = []
    for kind, body in rows:
        if kind == "message" and isinstance(body.get("message"), dict):
            segment.append(body["message"])
        elif kind == "compaction":
            entries += transcript(segment, results)
            segment = []
            try:
                mark = CompactionMark(_int(body, "tokens_before"), _int(body, "tokens_after"), "auto",
                                      _text(body, "summary"))
            except ValueError:
                continue
            entries.append(TranscriptEntry("system", "", kind="compaction", compaction=mark))
    return entries + transcript(segment, results)


def entries_of(rows: list[tuple[str, dict[str, Any]]]) -> tuple[list[TranscriptEntry], TranscriptBuilder]:
    """A session's transcript from its records (kind, body) in order, and the builder that goes on from it.

    The part logged before the first transcript record (a session older than
    them) is rebuilt from its messages; from there on the records are the truth.
    """
    first = next((i for i, (kind, _) in enumerate(rows) if kind == "transcript"), len(rows))
    legacy = legacy_entries(rows[:first])
    builder = TranscriptBuilder()
    builder.know_images([image for kind, body in rows if kind == "message" and isinstance(body.get("message"), dict)
                         for block in blocks_of(body["message"]) if is_image(block)
                         if (image := image_of_block(block)) is not None])
    builder.entries = legacy
    for kind, body in rows[first:]:
        if kind == "transcript":
            builder.add(body)
    return builder.entries, builder


def with_checkpoints(entries: list[TranscriptEntry], turns: list[tuple[str, str]]) -> list[TranscriptEntry]:
    """Give each user entry the id of the checkpoint taken before it, where known.

    `turns` are (checkpoint id, prompt) of the turns still in the conversation, oldest first. A
    checkpoint's id is its turn's id; entries older than the transcript of record have no turn id,
    and are matched from the end, by text.
    """
    ids = {checkpoint for checkpoint, _ in turns}
    pending = [(c, p) for c, p in turns]
    for entry in entries:
        if entry.role == "user" and entry.turn_id and entry.turn_id in ids:
            entry.checkpoint = entry.turn_id
            pending = [(c, p) for c, p in pending if c != entry.turn_id]
    for entry in reversed(entries):
        if entry.role != "user" or entry.turn_id or not pending:
            continue
        for i in range(len(pending) - 1, -1, -1):
            if pending[i][1].strip() == entry.text.strip():
                entry.checkpoint = pending[i][0]
                del pending[i:]
                break
    return entries
