#!/usr/bin/env bash
# Stops the demo's private containerd started by up.sh, with every container
# and shim it ran, and unmounts what it left under DIR (default .tmp/runtime).
#
#   packaging/local-runtime/down.sh [DIR]
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
exec bash "$HERE/containerd.sh" stop "${1:-$REPO/.tmp/runtime}"
