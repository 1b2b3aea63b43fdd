#!/usr/bin/env bash
# A PRIVATE containerd under one directory, for the agent's end-to-end tests and demo.
#
#   containerd.sh start   DIR [--images DIR] [--registry-ports "5001 5002"]
#   containerd.sh stop    DIR     kill every container and shim of this instance, stop containerd, unmount
#   containerd.sh restart DIR     stop containerd only (containers and shims live on) and start it again
#   containerd.sh kill    DIR     SIGKILL containerd only (simulates a crash; `start` recovers)
#   containerd.sh status  DIR     exit 0 and print the endpoint when it is running, exit 1 otherwise
#   containerd.sh env     DIR     print shell exports (CONTAINERD_ADDRESS, CONTAINER_RUNTIME_ENDPOINT, ...)
#
# Layout under DIR: containerd.toml, containerd.sock (+ .ttrpc), containerd.pid,
# containerd.log, root/, state/, cni/net.d/, env.
# `start` prints the endpoint (unix://DIR/containerd.sock) on stdout, progress
# and timings on stderr. It builds the images if --images is not given
# (packaging/local-runtime/build-images.mjs, cached) and imports them into the
# k8s.io namespace. Running it twice is harmless; after a crash (containerd
# killed) it starts containerd again, which adopts the running shims.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

usage() {
  sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

[ $# -ge 2 ] || usage
cmd=$1
DIR=$(realpath -m -- "$2")
shift 2
case "$DIR" in
  / | /usr | /usr/* | /etc | /etc/* | /var/lib/containerd | /run/containerd) echo "containerd.sh: refusing DIR=$DIR" >&2; exit 2 ;;
  *[[:space:]]*) echo "containerd.sh: DIR must not contain white space: $DIR" >&2; exit 2 ;;
esac

images=""
registry_ports="${REGISTRY_PORTS:-5001 5002}"
while [ $# -gt 0 ]; do
  case "$1" in
    --images) images=$(realpath -m -- "$2"); shift 2 ;;
    --images=*) images=$(realpath -m -- "${1#*=}"); shift ;;
    --registry-ports) registry_ports=$2; shift 2 ;;
    --registry-ports=*) registry_ports=${1#*=}; shift ;;
    *) echo "containerd.sh: unknown argument $1" >&2; usage ;;
  esac
done

SOCK="$DIR/containerd.sock"
TTRPC="$DIR/containerd.sock.ttrpc"
if [ ${#TTRPC} -gt 107 ]; then
  echo "containerd.sh: DIR too long for a unix socket path ($TTRPC)" >&2
  exit 2
fi
PIDFILE="$DIR/containerd.pid"
CONF="$DIR/containerd.toml"
LOG="$DIR/containerd.log"
NS=k8s.io

now_ms() { date +%s%3N; }
log() { echo "containerd.sh: $*" >&2; }
ctr_() { timeout "${CTR_TIMEOUT:-20}" ctr -a "$SOCK" "$@"; }

# The pid of this instance's containerd, if it is running (checked against
# its command line, so a recycled pid is never taken for it).
running_pid() {
  local pid
  [ -f "$PIDFILE" ] || return 1
  pid=$(cat "$PIDFILE" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  local -a args=()
  { mapfile -d '' -t args <"/proc/$pid/cmdline"; } 2>/dev/null || return 1
  [ "${args[*]:1:2}" = "--config $CONF" ] || return 1
  # a zombie does not count
  [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ] || return 1
  echo "$pid"
}

answers() { timeout 3 ctr -a "$SOCK" version >/dev/null 2>&1; }

# Pids of the shims serving this instance (they carry `-address DIR/containerd.sock`).
# Pure bash (no process per /proc entry): this runs on every stop.
shim_pids() {
  local p a prev
  local -a args
  for p in /proc/[0-9]*; do
    args=()
    { mapfile -d '' -t args <"$p/cmdline"; } 2>/dev/null || continue
    [ ${#args[@]} -gt 2 ] || continue
    [[ "${args[0]##*/}" == containerd-shim* ]] || continue
    prev=""
    for a in "${args[@]}"; do
      if [ "$prev" = -address ] && [ "$a" = "$SOCK" ]; then
        echo "${p#/proc/}"
        break
      fi
      prev=$a
    done
  done
}

# Mount points at or below DIR, deepest first.
mounts_under() {
  awk -v d="$DIR" '{ gsub(/\\040/, " ", $5); if ($5 == d || index($5, d "/") == 1) print $5 }' /proc/self/mountinfo | sort -r
}

unmount_all() {
  local m tries=0
  while [ -n "$(mounts_under)" ] && [ $tries -lt 5 ]; do
    while read -r m; do
      [ -n "$m" ] || continue
      umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
    done < <(mounts_under)
    tries=$((tries + 1))
  done
  if [ -n "$(mounts_under)" ]; then
    log "warning: still mounted under $DIR:"; mounts_under >&2
    return 1
  fi
}

render_config() {
  local tmpl mirrors="" port
  tmpl=$(<"$HERE/containerd.toml.tmpl")
  for port in $registry_ports; do
    [[ "$port" =~ ^[0-9]+$ ]] || { log "bad registry port: $port"; exit 2; }
    mirrors+="        [plugins.\"io.containerd.grpc.v1.cri\".registry.mirrors.\"127.0.0.1:$port\"]"$'\n'
    mirrors+="          endpoint = [\"http://127.0.0.1:$port\"]"$'\n'
    mirrors+="        [plugins.\"io.containerd.grpc.v1.cri\".registry.mirrors.\"localhost:$port\"]"$'\n'
    mirrors+="          endpoint = [\"http://localhost:$port\"]"$'\n'
  done
  tmpl=${tmpl//'{{ROOT}}'/$DIR/root}
  tmpl=${tmpl//'{{STATE}}'/$DIR/state}
  tmpl=${tmpl//'{{GRPC_ADDRESS}}'/$SOCK}
  tmpl=${tmpl//'{{TTRPC_ADDRESS}}'/$TTRPC}
  tmpl=${tmpl//'{{CNI_CONF_DIR}}'/$DIR/cni/net.d}
  tmpl=${tmpl//'{{REGISTRY_MIRRORS}}'/$mirrors}
  printf '%s\n' "$tmpl" >"$CONF.tmp"
  mv -f "$CONF.tmp" "$CONF"

  # Pod network for non-host-network sandboxes. One bridge and one host-local
  # store shared by every instance on the machine (host-local locks its store,
  # so parallel instances never hand out the same address). Nothing sends
  # traffic to these addresses; no masquerading. Not 10.88.0.0/16: that is
  # podman's default network (cni-podman0), the benchmarks' peer. The bridge
  # plugin refuses a bridge that carries another IPv4 address: a change of
  # subnet needs a new bridge name.
  mkdir -p "$DIR/cni/net.d"
  cat >"$DIR/cni/net.d/10-agent-local.conflist.tmp" <<'EOF'
{
  "cniVersion": "1.0.0",
  "name": "agent-local",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "agent-br0",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{ "subnet": "10.99.0.0/16", "gateway": "10.99.0.1" }]],
        "routes": [{ "dst": "0.0.0.0/0" }]
      }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
EOF
  mv -f "$DIR/cni/net.d/10-agent-local.conflist.tmp" "$DIR/cni/net.d/10-agent-local.conflist"
}

print_env() {
  cat <<EOF
export CONTAINERD_ADDRESS=$SOCK
export CONTAINERD_NAMESPACE=$NS
export CONTAINER_RUNTIME_ENDPOINT=unix://$SOCK
export IMAGE_SERVICE_ENDPOINT=unix://$SOCK
EOF
}

# Kill containers and shims of this instance without containerd's help (it
# crashed or is gone): container init pids from the task bundles, then the
# shims, then runc state, cgroups, shim sockets.
reap_orphans() {
  local b pid id ns cg addr root
  for b in "$DIR"/state/io.containerd.runtime.v2.task/*/*; do
    [ -d "$b" ] || continue
    id=${b##*/}
    [ -f "$b/init.pid" ] || continue
    pid=$(cat "$b/init.pid" 2>/dev/null || true)
    [[ "$pid" =~ ^[0-9]+$ ]] || continue
    # only if that pid still is the container (its cgroup path ends in the
    # container's id), never a recycled pid
    if grep -q -- "/$id\$" "/proc/$pid/cgroup" 2>/dev/null; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  for pid in $(shim_pids); do kill -KILL "$pid" 2>/dev/null || true; done
  sleep 0.1
  for b in "$DIR"/state/io.containerd.runtime.v2.task/*/*; do
    [ -d "$b" ] || continue
    id=${b##*/}
    ns=$(basename "$(dirname "$b")")
    for root in "/run/containerd/runc/$ns" "$DIR/state/runc/$ns"; do
      [ -d "$root/$id" ] && timeout 5 runc --root "$root" delete --force "$id" >/dev/null 2>&1 || true
    done
    if [ -f "$b/config.json" ]; then
      cg=$(grep -o '"cgroupsPath":"[^"]*"' "$b/config.json" 2>/dev/null | head -1 | sed 's/.*:"//; s/"$//' || true)
      if [ -n "$cg" ] && [[ "$cg" != *:* ]] && [[ "$cg" != *..* ]]; then
        rmdir /sys/fs/cgroup/*/"${cg#/}" 2>/dev/null || true
      fi
    fi
    if [ -f "$b/address" ]; then
      addr=$(sed 's#^unix://##' "$b/address" 2>/dev/null || true)
      if [[ "$addr" == /run/containerd/s/* ]]; then rm -f "$addr"; fi
    fi
  done
}

# Starts containerd unless it is already running and answering. Returns 1
# (with the log's tail on stderr) when it exits or does not answer in 10 s.
start_daemon() {
  local pid i
  mkdir -p "$DIR/root" "$DIR/state" "$DIR/cni/net.d"
  if pid=$(running_pid) && answers; then
    log "already running (pid $pid)"
    return 0
  fi
  if pid=$(running_pid); then
    # alive but not answering: take it down (its shims live on and are adopted)
    log "containerd $pid does not answer; restarting it"
    stop_daemon
  fi
  rm -f "$SOCK" "$TTRPC" "$PIDFILE"
  render_config
  # Detached from the caller: own session, no inherited stdio (a test's
  # execFile would otherwise wait for its pipes to close).
  setsid containerd --config "$CONF" </dev/null >>"$LOG" 2>&1 &
  pid=$!
  echo "$pid" >"$PIDFILE"
  for ((i = 0; i < 400; i++)); do
    if [ -S "$SOCK" ] && answers; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ]; then
      log "containerd exited during start; last log lines:"; tail -n 30 "$LOG" >&2
      rm -f "$PIDFILE"
      return 1
    fi
    sleep 0.025
  done
  answers && return 0
  log "containerd did not answer on $SOCK within 10 s; last log lines:"; tail -n 30 "$LOG" >&2
  return 1
}

do_start() {
  local t0 t1 t2 t3
  t0=$(now_ms)
  start_daemon || exit 1
  t1=$(now_ms)

  if [ -z "$images" ]; then
    images="$REPO/.tmp/images"
    node "$HERE/build-images.mjs" --out "$images" >/dev/null
  fi
  t2=$(now_ms)
  local archive="$images/all.tar"
  [ -f "$archive" ] || { log "no image archive at $archive (run build-images.mjs)"; exit 1; }
  # Import only what is missing (a restart or a second start keeps them).
  local have want missing=0
  have=$(ctr_ -n "$NS" images ls -q 2>/dev/null || true)
  for want in localhost/busybox:latest localhost/busybox:v2 localhost/pause:3.9; do
    grep -qxF "$want" <<<"$have" || missing=1
  done
  if [ "$missing" = 1 ]; then
    ctr_ -n "$NS" images import "$archive" >/dev/null
  fi
  t3=$(now_ms)
  print_env >"$DIR/env"
  log "ready: containerd $((t1 - t0)) ms, images $((t2 - t1)) ms, import $((t3 - t2)) ms"
  echo "unix://$SOCK"
}

# SIGTERM containerd (bounded), then SIGKILL. Shims and containers live on.
stop_daemon() {
  local pid i
  pid=$(running_pid) || { rm -f "$PIDFILE"; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 200; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    # reaped by nobody if our parent is gone: a zombie is stopped too
    [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] && break
    sleep 0.05
  done
  if kill -0 "$pid" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]; then
    log "containerd $pid ignored SIGTERM for 10 s; SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.1
  fi
  rm -f "$PIDFILE" "$SOCK" "$TTRPC"
}

do_stop() {
  local t0 ns id ids jobs_
  t0=$(now_ms)
  [ -d "$DIR" ] || { log "nothing at $DIR"; return 0; }
  # containerd gone (crashed) but sandboxes or tasks left behind: start it
  # again (it adopts the shims), so that the teardown below runs through it
  # and CNI releases addresses and port mappings.
  if ! running_pid >/dev/null && [ -f "$CONF" ] &&
    { compgen -G "$DIR/state/io.containerd.runtime.v2.task/*/*" >/dev/null ||
      compgen -G "$DIR/root/io.containerd.grpc.v1.cri/sandboxes/*" >/dev/null; }; then
    log "containerd is not running; starting it to tear down what it left"
    start_daemon || true
  fi
  if running_pid >/dev/null && answers; then
    # Pod sandboxes through CRI, so that CNI DEL runs (addresses, port maps)
    # and the sandbox netns/shm mounts go away.
    CRI_TIMEOUT_MS=15000 timeout 40 node "$HERE/cri.mjs" "$SOCK" cleanup >/dev/null 2>&1 || true
    # Whatever is left, in every namespace: tasks, then containers.
    for ns in $(ctr_ namespaces ls -q 2>/dev/null || true); do
      ids=$(ctr_ -n "$ns" tasks ls -q 2>/dev/null || true)
      # (wait on these jobs only: containerd may be a child of this shell)
      jobs_=()
      for id in $ids; do ctr_ -n "$ns" tasks kill -s SIGKILL "$id" >/dev/null 2>&1 & jobs_+=($!); done
      [ ${#jobs_[@]} -eq 0 ] || wait "${jobs_[@]}" || true
      jobs_=()
      for id in $ids; do CTR_TIMEOUT=10 ctr_ -n "$ns" tasks rm -f "$id" >/dev/null 2>&1 & jobs_+=($!); done
      [ ${#jobs_[@]} -eq 0 ] || wait "${jobs_[@]}" || true
      for id in $(ctr_ -n "$ns" containers ls -q 2>/dev/null || true); do
        ctr_ -n "$ns" containers rm "$id" >/dev/null 2>&1 || true
      done
    done
  fi
  stop_daemon
  # Anything still alive (containerd had crashed, or a task would not die).
  if [ -n "$(shim_pids)" ] || compgen -G "$DIR/state/io.containerd.runtime.v2.task/*/*" >/dev/null; then
    reap_orphans
  fi
  unmount_all || true
  rm -f "$SOCK" "$TTRPC" "$PIDFILE"
  local left
  left=$(shim_pids | tr '\n' ' ')
  if [ -n "${left// /}" ]; then
    log "warning: shims still running: $left"
    return 1
  fi
  log "stopped in $(($(now_ms) - t0)) ms"
}

case "$cmd" in
  start) do_start ;;
  stop) do_stop ;;
  restart)
    stop_daemon
    do_start
    ;;
  kill)
    if pid=$(running_pid); then kill -KILL "$pid"; sleep 0.05; fi
    rm -f "$PIDFILE"
    ;;
  status)
    if pid=$(running_pid) && answers; then
      echo "running pid $pid unix://$SOCK"
    else
      echo "stopped"
      exit 1
    fi
    ;;
  env) print_env ;;
  *) usage ;;
esac
