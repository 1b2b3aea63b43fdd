#!/usr/bin/env bash
# A private image registry (Debian's docker-registry, distribution 2.8) on
# 127.0.0.1 for image-pull tests.
#
#   registry.sh start  DIR PORT [--auth USER:PASS]   serve on 127.0.0.1:PORT, storage under DIR
#                                                     (with --auth: basic auth, bcrypt htpasswd)
#   registry.sh stop   DIR                            stop it (bounded), keep DIR
#   registry.sh status DIR                            exit 0 and print the address when it answers
#   registry.sh push   DIR IMAGE_ARCHIVE NAME:TAG     push an OCI archive as 127.0.0.1:PORT/NAME:TAG
#                                                     (skopeo; the instance's credentials are used);
#                                                     prints the pushed manifest digest
#
# `start` prints the address (127.0.0.1:PORT). Plain http only: containerd's
# config maps 127.0.0.1:PORT to http://127.0.0.1:PORT (see containerd.toml.tmpl).
set -euo pipefail

usage() {
  sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
log() { echo "registry.sh: $*" >&2; }

[ $# -ge 2 ] || usage
cmd=$1
DIR=$(realpath -m -- "$2")
shift 2
case "$DIR" in
  / | /usr | /usr/* | /etc | /etc/* | /var/lib/docker-registry) log "refusing DIR=$DIR"; exit 2 ;;
  *[[:space:]]*) log "DIR must not contain white space: $DIR"; exit 2 ;;
esac
PIDFILE="$DIR/registry.pid"
CONF="$DIR/config.yml"
LOG="$DIR/registry.log"

running_pid() {
  local pid
  [ -f "$PIDFILE" ] || return 1
  pid=$(cat "$PIDFILE" 2>/dev/null) || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "serve $CONF" || return 1
  [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ] || return 1
  echo "$pid"
}

# HTTP status of GET /v2/ (200 open, 401 with auth); empty when nothing answers.
probe() {
  curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$1/v2/" 2>/dev/null || true
}

do_start() {
  [ $# -ge 1 ] || usage
  local port=$1 auth="" user pass pid i code
  shift
  [[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || { log "bad port: $port"; exit 2; }
  while [ $# -gt 0 ]; do
    case "$1" in
      --auth) auth=$2; shift 2 ;;
      --auth=*) auth=${1#*=}; shift ;;
      *) log "unknown argument $1"; usage ;;
    esac
  done
  mkdir -p "$DIR/storage"
  if pid=$(running_pid); then
    if [ "$(cat "$DIR/port" 2>/dev/null)" = "$port" ] && [ "$(cat "$DIR/auth" 2>/dev/null)" = "$auth" ]; then
      log "already running (pid $pid)"
      echo "127.0.0.1:$port"
      return 0
    fi
    do_stop
  fi
  code=$(probe "$port")
  if [ -n "$code" ] && [ "$code" != 000 ]; then
    log "127.0.0.1:$port is already served by another process"
    exit 1
  fi

  local auth_block=""
  if [ -n "$auth" ]; then
    user=${auth%%:*}
    pass=${auth#*:}
    [ -n "$user" ] && [ "$user" != "$auth" ] || { log "--auth wants USER:PASS"; exit 2; }
    # distribution accepts bcrypt only
    htpasswd -Bbn "$user" "$pass" >"$DIR/htpasswd"
    auth_block="auth:
  htpasswd:
    realm: agent-test-registry
    path: $DIR/htpasswd"
  fi
  cat >"$CONF" <<EOF
version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $DIR/storage
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: 127.0.0.1:$port
  headers:
    X-Content-Type-Options: [nosniff]
$auth_block
EOF
  printf '%s\n' "$port" >"$DIR/port"
  printf '%s\n' "$auth" >"$DIR/auth"
  chmod 600 "$DIR/auth"

  # Detached, no inherited stdio (see containerd.sh).
  setsid docker-registry serve "$CONF" </dev/null >>"$LOG" 2>&1 &
  pid=$!
  echo "$pid" >"$PIDFILE"
  for ((i = 0; i < 200; i++)); do
    code=$(probe "$port")
    if [ "$code" = 200 ] || [ "$code" = 401 ]; then
      echo "127.0.0.1:$port"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null || [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ]; then
      break
    fi
    sleep 0.025
  done
  log "registry did not come up on 127.0.0.1:$port; last log lines:"
  tail -n 20 "$LOG" >&2
  do_stop || true
  exit 1
}

do_stop() {
  local pid i
  if pid=$(running_pid); then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] && break
      sleep 0.05
    done
    if kill -0 "$pid" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$PIDFILE"
}

do_push() {
  [ $# -eq 2 ] || usage
  local archive=$1 ref=$2 port auth digestfile
  [ -f "$archive" ] || { log "no such archive: $archive"; exit 1; }
  port=$(cat "$DIR/port" 2>/dev/null) || { log "no registry under $DIR"; exit 1; }
  auth=$(cat "$DIR/auth" 2>/dev/null || true)
  digestfile=$(mktemp "$DIR/.digest.XXXXXX")
  local creds=()
  [ -z "$auth" ] || creds=(--dest-creds "$auth")
  # --insecure-policy: local test images, no signature policy to consult.
  # Keep skopeo's state out of $HOME and the system's auth files.
  if ! timeout 120 env REGISTRY_AUTH_FILE="$DIR/.skopeo-auth.json" skopeo --insecure-policy copy -q \
    --dest-tls-verify=false "${creds[@]}" --digestfile "$digestfile" \
    "oci-archive:$archive" "docker://127.0.0.1:$port/$ref" >&2; then
    rm -f "$digestfile"
    log "push of $archive to 127.0.0.1:$port/$ref failed"
    exit 1
  fi
  cat "$digestfile"
  echo
  rm -f "$digestfile"
}

case "$cmd" in
  start) do_start "$@" ;;
  stop) do_stop ;;
  status)
    port=$(cat "$DIR/port" 2>/dev/null || true)
    if running_pid >/dev/null && [ -n "$port" ]; then echo "running 127.0.0.1:$port"; else echo stopped; exit 1; fi
    ;;
  push) do_push "$@" ;;
  *) usage ;;
esac
