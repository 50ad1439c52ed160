"""Instruction files (caps, activation, change detection), custom commands, the task list and the
settings that switch auto-compaction off."""

from __future__ import annotations

import pytest

from agentls.agent import commands as cc
from agentls.agent.instructions import FILE_CAP, TOTAL_CAP, Instructions
from agentls.agent.settings import context_config, parse_settings
from agentls.agent.todos import TodoItem, parse_todos, render


def test_root_claude_md_only_when_there_is_no_agents_md(tmp_path):
    (tmp_path / "CLAUDE.md").write_text("claude rules")
    found = Instructions(None)
    assert found.refresh([tmp_path]) and [f.shown for f in found.files] == ["CLAUDE.md"]
    (tmp_path / "AGENTS.md").write_text("agents rules")
    assert found.refresh([tmp_path]) and [f.shown for f in found.files] == ["AGENTS.md"]
    assert not found.refresh([tmp_path])  # nothing changed: the same section


def test_each_root_and_the_user_file_with_their_names(tmp_path):
    a, b, user = tmp_path / "a", tmp_path / "b", tmp_path / "config"
    for folder, text in ((a, "A rules"), (b, "B rules"), (user, "my rules")):
        folder.mkdir()
        (folder / "AGENTS.md").write_text(text)
    found = Instructions(user)
    found.refresh([a, b])
    assert [(f.shown, f.scope) for f in found.files] == [("~user/AGENTS.md", "user"), ("a/AGENTS.md", "root"),
                                                         ("b/AGENTS.md", "root")]
    assert found.section.index("my rules") < found.section.index("A rules") < found.section.index("B rules")


def test_nested_files_apply_once_a_path_below_them_is_touched(tmp_path):
    (tmp_path / "src" / "deep").mkdir(parents=True)
    (tmp_path / "src" / "AGENTS.md").write_text("src rules")
    (tmp_path / "src" / "deep" / "CLAUDE.md").write_text("deep rules")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "AGENTS.md").write_text("docs rules")
    found = Instructions(None)
    found.refresh([tmp_path])
    assert found.section == ""
    assert found.activate([tmp_path / "src" / "deep" / "x.py"], [tmp_path]) == [tmp_path / "src",
                                                                             tmp_path / "src" / "deep"]
    assert found.activate([tmp_path / "src" / "y.py"], [tmp_path]) == []  # already active
    assert found.activate([tmp_path.parent / "elsewhere.py"], [tmp_path]) == []
    found.refresh([tmp_path])
    assert [f.shown for f in found.files] == ["src/AGENTS.md", "src/deep/CLAUDE.md"]
    assert "docs rules" not in found.section


def test_caps_name_the_cut(tmp_path):
    (tmp_path / "AGENTS.md").write_text("line\n" * (FILE_CAP // 2))
    found = Instructions(None)
    found.refresh([tmp_path])
    (item,) = found.files
    assert item.cut and item.chars == FILE_CAP // 2 * 5 - 1
    assert len(item.text) < FILE_CAP + 400
    assert f"AGENTS.md is cut here: it has {item.chars:,} characters" in found.section
    for n in range(4):
        (tmp_path / f"m{n}").mkdir()
        (tmp_path / f"m{n}" / "AGENTS.md").write_text(f"module {n}\n" + "x" * FILE_CAP)
        found.activate([tmp_path / f"m{n}" / "f.py"], [tmp_path])
    found.refresh([tmp_path])
    assert sum(len(f.text) for f in found.files) <= TOTAL_CAP + 4 * 400
    assert "m3/AGENTS.md (20,009 characters) is left out" in found.section


def test_a_binary_instruction_file_is_left_out_with_a_note(tmp_path):
    (tmp_path / "AGENTS.md").write_bytes(b"\xff\xfe\x00rules")
    found = Instructions(None)
    found.refresh([tmp_path])
    assert "not UTF-8 text" in found.section


def test_custom_commands_listed_and_expanded(tmp_path):
    root, user = tmp_path / "ws", tmp_path / "config"
    (root / ".agents" / "commands").mkdir(parents=True)
    (user / "commands").mkdir(parents=True)
    (root / ".agents" / "commands" / "review.md").write_text(
        "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $ARGUMENTS for bugs; cite lines.\n")
    (root / ".agents" / "commands" / "compact.md").write_text("a built-in name: never listed\n")
    (user / "commands" / "review.md").write_text("the user's review, shadowed by the workspace's\n")
    (user / "commands" / "standup.md").write_text("# Write my standup\nWhat changed since yesterday?\n")
    found = cc.custom_commands([root], user)
    assert [(c.name, c.source, c.description, c.argument_hint) for c in found] == [
        ("review", "workspace", "Review a file", "<file>"), ("standup", "user", "Write my standup", "")]
    assert cc.expand(found[0], " src/app.py ") == "Review src/app.py for bugs; cite lines."
    assert cc.expand(found[1], "short please").endswith("What changed since yesterday?\n\nArguments: short please")
    with pytest.raises(cc.CommandError, match="no custom command /nope"):
        cc.expand_named([root], user, "nope", "")


def test_todo_lists_are_checked_and_rendered():
    items = parse_todos([{"content": "  write   tests ", "status": "in_progress"},
                         {"content": "ship", "status": "pending"}])
    assert items == (TodoItem("write tests", "in_progress"), TodoItem("ship", "pending"))
    assert render(items).endswith("- [~] write tests\n- [ ] ship")
    with pytest.raises(ValueError, match=r"todos\[0\].status must be one of"):
        parse_todos([{"content": "x", "status": "done"}])
    with pytest.raises(ValueError, match="non-empty"):
        parse_todos([{"content": " ", "status": "pending"}])


def test_auto_compact_null_turns_auto_compaction_off():
    settings, problems = parse_settings({"thresholds": {"autoCompact": None, "warn": 0.5}})
    assert problems == []
    config = context_config(settings)
    assert config.auto_compact is False and config.warn_at == 0.5
    assert context_config(parse_settings({"thresholds": {}})[0]).auto_compact is True
    assert context_config(parse_settings({"thresholds": {"autoCompact": 0.9}})[0]).compact_at == 0.9


def test_permissions_in_settings_are_parsed_and_checked():
    settings, problems = parse_settings({"permissions": {"allow": ["run_shell(npm test*)"], "deny": ["rm("]}})
    assert [r.text for r in settings.permissions] == ["run_shell(npm test*)"]
    assert problems == ["settings.permissions.deny[0]: 'rm(' is not a rule: write tool or tool(pattern), "
                        "e.g. run_shell(npm test*)"]
