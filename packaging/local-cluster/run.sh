#!/usr/bin/env bash
# A local cluster in one command: platform-apiserver on loopback (objects in
# memory, or in a private etcd with --etcd) signing node client certificates
# (--csr-signing=node-client), a token file with a bootstrap token and an
# admin token, a bootstrap platformconfig for the agent and an admin
# platformconfig for any API client (kubectl), then the agent in API-server
# mode against the private containerd of packaging/local-runtime: it
# bootstraps its client certificate, registers its node and runs the pods
# the API assigns to it. Ctrl-C stops the agent, the containerd with its
# pods, the API server and etcd, in that order.
#
#   packaging/local-cluster/run.sh [--etcd] [--dir DIR] [--port PORT] [--node NAME]
#                                  [--no-agent] [--endpoint unix:///…] [-- AGENT FLAGS...]
#
#   --etcd          keep objects in a private etcd (Debian's /usr/bin/etcd) under DIR/etcd
#   --dir DIR       state directory (default REPO/.tmp/cluster); kept between runs, so the
#                   node's certificate and the etcd data survive a restart
#   --port PORT     the API server's port on 127.0.0.1 (default 6443)
#   --node NAME     the node name (default: the host name, lower-cased)
#   --no-agent      start the control plane and write the platformconfigs only (no root needed)
#   --endpoint EP   use this CRI endpoint instead of starting packaging/local-runtime
#
# Prints "local-cluster: ready" on stdout once the API server answers and the
# files are written; progress on stderr. Needs a built checkout (npm ci &&
# npm run build); the agent part needs root (the private containerd).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

DIR=$REPO/.tmp/cluster
PORT=6443
NODE=$(hostname | tr '[:upper:]' '[:lower:]')
USE_ETCD=false
AGENT=true
ENDPOINT=''
while [ $# -gt 0 ]; do
  case "$1" in
    --etcd) USE_ETCD=true ;;
    --dir) DIR=$2; shift ;;
    --dir=*) DIR=${1#--dir=} ;;
    --port) PORT=$2; shift ;;
    --port=*) PORT=${1#--port=} ;;
    --node) NODE=$2; shift ;;
    --node=*) NODE=${1#--node=} ;;
    --no-agent) AGENT=false ;;
    --endpoint) ENDPOINT=$2; shift ;;
    --endpoint=*) ENDPOINT=${1#--endpoint=} ;;
    --) shift; break ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "local-cluster: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
SERVER=https://127.0.0.1:$PORT
say() { echo "local-cluster: $*" >&2; }
rand() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }

if [ ! -f "$REPO/dist/bundle/platform-apiserver.cjs" ]; then
  say "no build found: run npm ci && npm run build first"
  exit 1
fi

# Credentials, made once and kept: a bootstrap token ([a-z0-9]{6}.[a-z0-9]{16}, user
# system:bootstrap:<id> in system:bootstrappers) and an admin token in system:masters.
TOKENS=$DIR/tokens.csv
if [ ! -f "$TOKENS" ]; then
  id=$(rand 3)
  (umask 077 && {
    echo "$id.$(rand 8),system:bootstrap:$id,bootstrap-$id,\"system:bootstrappers\""
    echo "$(rand 16),admin,admin,\"system:masters\""
  } > "$TOKENS")
fi
BOOTSTRAP_TOKEN=$(sed -n '1s/,.*//p' "$TOKENS")
ADMIN_TOKEN=$(sed -n '2s/,.*//p' "$TOKENS")

pids=()
agent_pid=''
own_runtime=false
cleanup() {
  trap - EXIT INT TERM
  if [ -n "$agent_pid" ] && kill -0 "$agent_pid" 2>/dev/null; then
    kill -TERM "$agent_pid" 2>/dev/null || true
    wait "$agent_pid" 2>/dev/null || true
  fi
  if $own_runtime; then
    say "stopping the private containerd and its pods"
    bash "$REPO/packaging/local-runtime/down.sh" || true
  fi
  # The API server first, then etcd (reverse order of start).
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[$i]}" 2>/dev/null || true
    wait "${pids[$i]}" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Waits (bounded: 300 tries, 0.1 s apart) until the command succeeds or the process is gone.
wait_for() {
  local what=$1 pid=$2; shift 2
  for _ in $(seq 300); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then say "$what exited; see its log in $DIR"; return 1; fi
    sleep 0.1
  done
  say "$what did not come up within 30 s; see its log in $DIR"
  return 1
}

etcd_args=()
if $USE_ETCD; then
  ETCD_PORT=$((PORT + 10000)); PEER_PORT=$((PORT + 10001))
  [ "$ETCD_PORT" -lt 65535 ] || { ETCD_PORT=$((PORT - 10000)); PEER_PORT=$((PORT - 9999)); }
  etcd_url=http://127.0.0.1:$ETCD_PORT
  say "starting etcd on $etcd_url (data in $DIR/etcd, log $DIR/etcd.log)"
  "${ETCD_BINARY:-/usr/bin/etcd}" --name=local --data-dir="$DIR/etcd" \
    --listen-client-urls="$etcd_url" --advertise-client-urls="$etcd_url" \
    --listen-peer-urls="http://127.0.0.1:$PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$PEER_PORT" \
    --initial-cluster="local=http://127.0.0.1:$PEER_PORT" --initial-cluster-state=new >"$DIR/etcd.log" 2>&1 &
  pids+=($!)
  wait_for etcd "${pids[-1]}" curl -sf "$etcd_url/health"
  etcd_args=(--etcd-servers="$etcd_url" --etcd-prefix=/registry)
fi

say "starting platform-apiserver on $SERVER (log $DIR/apiserver.log)"
"$REPO/bin/platform-apiserver.js" --bind-address=127.0.0.1 --secure-port="$PORT" \
  --cert-dir="$DIR/pki/apiserver" --token-auth-file="$TOKENS" --csr-signing=node-client \
  ${etcd_args[@]+"${etcd_args[@]}"} >"$DIR/apiserver.log" 2>&1 &
pids+=($!)
CA=$DIR/pki/apiserver/apiserver-ca.crt
wait_for platform-apiserver "${pids[-1]}" curl -sf --cacert "$CA" -H "Authorization: Bearer $ADMIN_TOKEN" "$SERVER/readyz"

# platformconfig FILE USER TOKEN: the server, its CA inline, one bearer token.
platformconfig() {
  (umask 077 && cat > "$1.tmp" <<CONF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: $SERVER
    certificate-authority-data: $(base64 -w0 < "$CA")
users:
- name: $2
  user:
    token: $3
contexts:
- name: local
  context:
    cluster: local
    user: $2
current-context: local
CONF
  mv "$1.tmp" "$1")
}
platformconfig "$DIR/admin.conf" admin "$ADMIN_TOKEN"
platformconfig "$DIR/bootstrap.conf" bootstrap "$BOOTSTRAP_TOKEN"
say "admin platformconfig: kubectl --kubeconfig $DIR/admin.conf get nodes"
say "agent bootstrap platformconfig: $DIR/bootstrap.conf (the agent writes $DIR/agent.conf)"
echo "local-cluster: ready"

if ! $AGENT; then
  say "--no-agent: the control plane runs until Ctrl-C"
  wait "${pids[-1]}"
  exit $?
fi

if [ -z "$ENDPOINT" ]; then
  ENDPOINT=$(bash "$REPO/packaging/local-runtime/up.sh")
  own_runtime=true
fi
# From the checkout: the configuration's staticPodPath (config/manifests) is relative to it.
cd "$REPO"
cmd=(bin/agent.js --config "$HERE/agent.yaml" --container-runtime-endpoint="$ENDPOINT"
  --bootstrap-platformconfig="$DIR/bootstrap.conf" --platformconfig="$DIR/agent.conf" --cert-dir="$DIR/pki/agent"
  --hostname-override="$NODE" --node-ip=127.0.0.1 --root-dir="$DIR/agent-root" "$@")
printf -v shown '%q ' "${cmd[@]}"
say "running: cd $(printf '%q' "$REPO") && ${shown% }"
say "then (no scheduler here: the pod names its node): sed s/NODE_NAME/$NODE/ packaging/local-cluster/pod.yaml | kubectl --kubeconfig $DIR/admin.conf create --validate=false -f -"
"${cmd[@]}" &
agent_pid=$!
wait "$agent_pid"
