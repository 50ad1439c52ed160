"""The anthropic SDK client a ModelClient talks through, made from ModelSettings.

The SDK's built-in retries are switched off (max_retries=0): the ModelClient does every retry itself
(client.py). A missing or broken credential surfaces as a ModelError, with the key never in its text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import ModelError, redact
from .settings import ModelSettings

if TYPE_CHECKING:
    import anthropic

# Anthropic-compatible proxies and local servers often need no key, but the
# SDK refuses to send a request without some credential header. (A proxy
# token in ANTHROPIC_AUTH_TOKEN is left for the SDK to pick up.)
_PLACEHOLDER_KEY = "agentls-no-key"


def open_sdk(settings: ModelSettings) -> anthropic.AsyncAnthropic:
    """A new SDK client for `settings` (imports the SDK: call it once the SDK is loaded)."""
    import anthropic  # on first use: the agent is ready (and initialize answered) without it

    key = settings.resolved_api_key()
    token = settings.resolved_auth_token()
    if key is None and not settings.is_native_anthropic and not token:
        key = _PLACEHOLDER_KEY
    try:
        # The SDK takes one credential; the token is passed in (it has left the
        # environment the SDK would look in) when there is no key.
        credential = {"api_key": key} if key is not None or token is None else {"auth_token": token}
        sdk = anthropic.AsyncAnthropic(
            **credential,  # api_key=None on the native API: the SDK looks for other credentials
            base_url=settings.resolved_base_url(),
            max_retries=0,
            timeout=anthropic.Timeout(settings.timeout, connect=settings.connect_timeout),
        )
    except anthropic.CredentialsError as error:
        message = redact(f"Could not load Anthropic credentials: {error}", settings.resolved_api_key(), token)
        raise ModelError(message) from None
    if not (sdk.api_key or sdk.auth_token or sdk.credentials):
        raise ModelError("No API key: set ANTHROPIC_API_KEY or the apiKey initialization option")
    return sdk
