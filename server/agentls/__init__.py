"""agentls: a language server hosting a coding agent with a finite but sufficient memory."""

__version__ = "0.1.0"
