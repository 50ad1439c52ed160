"""How long a request the agent delegates to the ACP client may go unanswered.

fs/read_text_file and terminal/create are answered by the editor; one that
never answers must not hold the turn (and the session's one prompt) forever.
Past CLIENT_SECONDS the tool call fails with an error that names the editor;
AGENTLS_ACP_CLIENT_SECONDS overrides it (docs/acp.md). A running command's
own wait (terminal/wait_for_exit) is bounded by the shell timeout instead.
"""

from __future__ import annotations

import logging
import os

log = logging.getLogger(__name__)

CLIENT_SECONDS = 30.0
ENV = "AGENTLS_ACP_CLIENT_SECONDS"


def client_seconds() -> float:
    raw = os.environ.get(ENV)
    if raw is None:
        return CLIENT_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 0 < value <= 3600:
        log.warning("%s=%r is not a number of seconds in (0, 3600]; %g s is used", ENV, raw[:40], CLIENT_SECONDS)
        return CLIENT_SECONDS
    return value
