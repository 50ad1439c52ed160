"""The offline demo model: a local Anthropic-compatible endpoint that answers without a key."""
