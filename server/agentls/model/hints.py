"""What a refused request (404, 400) asks the user to change: the model it named and the setting.

A 404 at the first message used to say only "did not find the model or endpoint"; the
user then had to guess which setting leads there. The hint names the model the request
carried and the setting that chose it (as the front end names it: `agentls.model`, …).
"""

from __future__ import annotations

from collections.abc import Mapping

from .errors import is_prefix_mismatch

# A 400's own words → the setting behind that part of the request (first match wins).
_BY_DETAIL: tuple[tuple[tuple[str, ...], str], ...] = (
    (("prompt is too long", "too many tokens", "context window"), "context_window"),
    (("thinking", "budget_tokens", "effort", "output_config"), "thinking"),
    (("max_tokens",), "max_tokens"),
)


def setting_hint(status: int | None, detail: str, model: str, *, compact: bool,
                 names: Mapping[str, str], endpoint: str) -> str:
    """One sentence for a 404/400 naming `model` and the setting to change; "" for other statuses."""
    model_setting = names.get("compact_model" if compact else "model", "model")
    if status == 404:
        return (f"The model '{model}' is not available at {endpoint}: choose another in the model picker "
                f"or change the setting {model_setting}.")
    if status != 400 or is_prefix_mismatch(status, detail):  # a changed history, not a setting to change
        return ""
    lowered = detail.lower()
    key = next((setting for words, setting in _BY_DETAIL if any(w in lowered for w in words)), "model")
    setting = model_setting if key == "model" else names.get(key, key)
    return f"The request for model '{model}' was refused: change the setting {setting}" + (
        f" (or {model_setting})." if setting != model_setting else ".")
