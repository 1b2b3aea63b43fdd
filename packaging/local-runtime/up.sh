#!/usr/bin/env bash
# One command for the demo: install the runtime's Debian packages if missing,
# build the local images (cached), start a private containerd under DIR
# (default: .tmp/runtime in the repository) with the images imported.
#
#   packaging/local-runtime/up.sh [DIR]
#
# Prints the CRI endpoint (unix://DIR/containerd.sock) on stdout -- e.g.
#   node bin/agent.js --container-runtime-endpoint="$(packaging/local-runtime/up.sh)" ...
# -- and progress on stderr. `down.sh [DIR]` stops it. Running it again is harmless.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
DIR=${1:-$REPO/.tmp/runtime}

bash "$HERE/install-deps.sh"
node "$HERE/build-images.mjs" --out "$REPO/.tmp/images" >/dev/null
endpoint=$(bash "$HERE/containerd.sh" start "$DIR" --images "$REPO/.tmp/images")
echo "up.sh: containerd running; endpoint $endpoint (ctr -a ${endpoint#unix://} -n k8s.io images ls); stop with packaging/local-runtime/down.sh${1:+ $1}" >&2
echo "$endpoint"
