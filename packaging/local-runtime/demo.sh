#!/usr/bin/env bash
# The README's demo in one command: a private containerd (up.sh), the agent in
# the foreground running the example static pods of config/manifests/, and on
# Ctrl-C (or when the agent exits) the agent stopped and then containerd with
# every pod it ran (down.sh). Extra arguments go to the agent.
#
#   packaging/local-runtime/demo.sh [AGENT FLAGS...]
#
# Run from anywhere; needs root and a built checkout (npm ci && npm run build).
# With AGENT_DEMO_ENDPOINT=unix:///path/to.sock set, the agent uses that
# runtime instead, and nothing is started or stopped but the agent.
#
# The agent runs as systemd runs it: bin/agent.js as the executable, so its
# first line's environment and node options (memory tuning, see bin/agent.js)
# apply; `node bin/agent.js` would skip them. The line printed is the command
# run, word for word (shell-quoted, with the directory it runs in), so it can
# be pasted to run the agent again by hand against the same runtime.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
cd "$REPO"

own_runtime=false
if [ -n "${AGENT_DEMO_ENDPOINT:-}" ]; then
  endpoint=$AGENT_DEMO_ENDPOINT
else
  endpoint=$(bash "$HERE/up.sh")
  own_runtime=true
fi
agent_pid=''
cleanup() {
  trap - EXIT INT TERM
  if [ -n "$agent_pid" ] && kill -0 "$agent_pid" 2>/dev/null; then
    kill -TERM "$agent_pid" 2>/dev/null || true
    wait "$agent_pid" 2>/dev/null || true
  fi
  if $own_runtime; then
    echo "demo.sh: stopping the private containerd and its pods" >&2
    bash "$HERE/down.sh"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Run in the checkout: the example configuration's staticPodPath (config/manifests) is relative to it.
cmd=(bin/agent.js --config config/agent-standalone.yaml --container-runtime-endpoint="$endpoint" --node-ip=127.0.0.1 --root-dir=/tmp/agent "$@")
printf -v shown '%q ' "${cmd[@]}"
printf -v dir '%q' "$REPO"
echo "demo.sh: running: cd $dir && ${shown% }" >&2
echo "demo.sh: the pods run within a second (curl http://127.0.0.1:8080/ answers from the web pod); Ctrl-C stops everything" >&2
# In the background and waited for, so that Ctrl-C reaches this script's trap too.
"${cmd[@]}" &
agent_pid=$!
wait "$agent_pid"
