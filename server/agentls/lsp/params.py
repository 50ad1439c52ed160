"""Checking the params of agent/* requests by hand: every complaint names the field.

Params arrive as decoded JSON (see transport.raw_converter). Unknown fields
are ignored, so newer clients keep working with older servers.
"""

from __future__ import annotations

from typing import Any

from .errors import invalid_params

MAX_UINT = 2**31 - 1  # LSP's uinteger


def as_object(params: Any) -> dict[str, Any]:
    """The params object; absent params (or an empty array) count as `{}`."""
    if params is None or params == []:
        return {}
    if not isinstance(params, dict):
        raise invalid_params(f"params must be an object, not {_json_type(params)}")
    return params


def required_text(obj: dict[str, Any], name: str) -> str:
    value = obj.get(name)
    if value is None:
        raise invalid_params(f"{name} is required (a non-empty string)")
    if not isinstance(value, str):
        raise invalid_params(f"{name} must be a string, not {_json_type(value)}")
    if not value.strip():
        raise invalid_params(f"{name} must not be empty")
    return value


def optional_text(obj: dict[str, Any], name: str, where: str = "") -> str | None:
    value = obj.get(name)
    if value is not None and not isinstance(value, str):
        raise invalid_params(f"{where}{name} must be a string, not {_json_type(value)}")
    return value


def optional_token(obj: dict[str, Any], name: str) -> str | int | None:
    value = obj.get(name)
    if value is None or isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise invalid_params(f"{name} must be a string or an integer, not {_json_type(value)}")


def uinteger(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_UINT:
        raise invalid_params(f"{where} must be a non-negative integer")
    return value


def position(value: Any, where: str) -> dict[str, int]:
    if not isinstance(value, dict):
        raise invalid_params(f"{where} must be an object with line and character")
    return {"line": uinteger(value.get("line"), f"{where}.line"),
            "character": uinteger(value.get("character"), f"{where}.character")}


def lsp_range(value: Any, where: str) -> dict[str, dict[str, int]]:
    if not isinstance(value, dict):
        raise invalid_params(f"{where} must be an object with start and end")
    start, end = position(value.get("start"), f"{where}.start"), position(value.get("end"), f"{where}.end")
    if (end["line"], end["character"]) < (start["line"], start["character"]):
        raise invalid_params(f"{where}.end is before {where}.start")
    return {"start": start, "end": end}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
