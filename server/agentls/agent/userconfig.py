"""The user's config folder: instructions and commands that apply to every workspace.

`~/.config/agentls/` on Linux, `~/Library/Application Support/agentls/` on
macOS, `%LOCALAPPDATA%\\agentls\\` on Windows (platformdirs); the environment
variable AGENTLS_CONFIG_DIR overrides it (tests, portable setups).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

ENV = "AGENTLS_CONFIG_DIR"


def config_dir() -> Path:
    override = os.environ.get(ENV)
    return Path(override) if override else Path(platformdirs.user_config_dir("agentls", appauthor=False))
