"""Evaluation, apart from the product: what `agentls replay` and `agentls bench` measure.

The product (context, model, agent, lsp, mock_api, the terminal front ends)
never imports this package; only the command-line dispatch (cli.py) does, lazily.
replay.py prices recorded conversations under a context policy and
replay_compare.py runs several policies at several windows; seed_policy.py and
anthropic_editing.py are the two yardsticks they are compared with;
thinking_replay.py (`replay --model ID`) compares agentls with the baselines of
baselines.py at a model's prices (model_prices.py), with a signed thinking block
on every reply and the blocks a policy invalidates counted (thinking_ledger.py),
server-side edits applied as the API applies them (server_editing.py);
pipeline_bench.py and lsp_bench.py time the context pipeline and the LSP path.
"""
