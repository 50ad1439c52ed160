"""The read ledger saved with a session: what comes back from a saved state, and when it is saved again."""

from __future__ import annotations

from agentls.agent.read_ledger import ReadLedger
from agentls.agent.workspace import Workspace


async def test_a_saved_ledger_comes_back_without_what_is_malformed_and_names_a_file_changed_since(tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("first\n")
    workspace = Workspace([tmp_path])
    ledger = ReadLedger()
    await ledger.saw(workspace, "read_file", {"path": "notes.md"})
    saved = ledger.unsaved_state()
    assert saved is not None and list(saved) == [str(notes.resolve())]
    assert ledger.unsaved_state() is None, "saved once: nothing new until it changes"

    again = ReadLedger()
    again.load({**saved, "relative.md": "x", "/abs/number.md": 3, "/abs/list.md": ["d"]})
    assert again.unsaved_state() is None, "loading is not a change to save"
    assert await again.changed_note(workspace) is None, "unchanged: nothing to say"
    notes.write_text("second\n")
    note = await again.changed_note(workspace)
    assert note is not None and "notes.md" in note
    assert again.unsaved_state() == {}, "named once: forgotten, and saved so"
    again.load("not a dict")
    assert await again.changed_note(workspace) is None


async def test_a_read_of_the_same_text_is_not_saved_again(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    workspace, ledger = Workspace([tmp_path]), ReadLedger()
    await ledger.saw(workspace, "read_file", {"path": "a.py"})
    assert ledger.unsaved_state() is not None
    await ledger.saw(workspace, "read_file", {"path": "a.py"})
    assert ledger.unsaved_state() is None
    await ledger.saw(workspace, "list_files", {"path": "."})  # not a tool that shows a file's text
    assert ledger.unsaved_state() is None
