#!/usr/bin/env bash
# The README's demo in one command: a private containerd (up.sh), the agent in
# the foreground running the example static pods of config/manifests/, and on
# Ctrl-C (or when the agent exits) the agent stopped and then containerd with
# every pod it ran (down.sh). Extra arguments go to the agent.
#
#   packaging/local-runtime/demo.sh [AGENT FLAGS...]
#
# Run from anywhere; needs root and a built checkout (npm ci && npm run build).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
cd "$REPO"

endpoint=$(bash "$HERE/up.sh")
agent_pid=''
cleanup() {
  trap - EXIT INT TERM
  if [ -n "$agent_pid" ] && kill -0 "$agent_pid" 2>/dev/null; then
    kill -TERM "$agent_pid" 2>/dev/null || true
    wait "$agent_pid" 2>/dev/null || true
  fi
  echo "demo.sh: stopping the private containerd and its pods" >&2
  bash "$HERE/down.sh"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

args=(--config config/agent-standalone.yaml --container-runtime-endpoint="$endpoint" --node-ip=127.0.0.1 --root-dir=/tmp/agent "$@")
echo "demo.sh: bin/agent.js ${args[*]}" >&2
echo "demo.sh: the pods run within a second (curl http://127.0.0.1:8080/ answers from the web pod); Ctrl-C stops everything" >&2
# In the background and waited for, so that Ctrl-C reaches this script's trap too.
node bin/agent.js "${args[@]}" &
agent_pid=$!
wait "$agent_pid"
