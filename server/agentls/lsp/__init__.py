"""The language server: pygls 2 over stdio, the `agent/*` methods, live buffers, applyEdit, confirm.

Reading order: server.py (wiring) → lifecycle.py (initialize, settings,
folders) → host.py (the one agent and what it needs) → methods/ (one module
per `agent/*` request) → editor_workspace.py and confirm.py (how the agent's
tools reach the editor). chat.py is the terminal client (the latency benchmark
is evaluation/lsp_bench.py).
"""
