#!/bin/sh
# Stand-in interpreter for the e2e with AGENTLS_E2E_FAKE=1: `-m agentls serve`
# runs fake_server.py; everything else goes to the real python ($AGENTLS_E2E_PYTHON).
here="$(cd "$(dirname "$0")" && pwd)"
py="${AGENTLS_E2E_PYTHON:-python3}"
if [ "$1" = "-m" ] && [ "$2" = "agentls" ] && [ "$3" = "serve" ]; then
  exec "$py" "$here/fake_server.py"
fi
if [ "$1" = "-c" ]; then exec "$py" "$@"; fi
exec "$py" "$@"
