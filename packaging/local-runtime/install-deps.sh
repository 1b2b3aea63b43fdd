#!/usr/bin/env bash
# Installs, when missing, the Debian packages the private container runtime
# needs (containerd, runc, CNI plugins, busybox-static, docker-registry, skopeo,
# htpasswd, gcc + libc6-dev), etcd (etcd-server, etcd-client) for the API
# server's etcd storage tests, and promtool (package prometheus) for the
# metrics tests. Idempotent, quiet, non-interactive; needs root only when
# something is actually missing.
#
# Packaged services (containerd, docker-registry, etcd, prometheus) must not start: a
# policy-rc.d returning 101 is in place during the install (an existing one
# is kept and restored), and any packaged service found running afterwards is
# stopped and disabled -- we run private instances.
set -euo pipefail

# package -> a file it installs (checking files is faster than dpkg-query and
# also catches a half-removed package)
declare -A probe=(
  [containerd]=/usr/bin/containerd
  [runc]=/usr/sbin/runc
  [containernetworking-plugins]=/usr/lib/cni/bridge
  [busybox-static]=/bin/busybox
  [docker-registry]=/usr/bin/docker-registry
  [skopeo]=/usr/bin/skopeo
  [apache2-utils]=/usr/bin/htpasswd
  [gcc]=/usr/bin/gcc
  # gcc only recommends the C library's headers and static archive (libc.a),
  # which `gcc -static` of pause.c needs
  [libc6-dev]=/usr/include/stdio.h
  [etcd-server]=/usr/bin/etcd
  [etcd-client]=/usr/bin/etcdctl
  [prometheus]=/usr/bin/promtool
)

missing=()
for pkg in containerd runc containernetworking-plugins busybox-static docker-registry skopeo apache2-utils gcc libc6-dev etcd-server etcd-client prometheus; do
  [ -e "${probe[$pkg]}" ] || missing+=("$pkg")
done
# busybox-static and the dynamic busybox package both ship /bin/busybox: the
# image needs the self-contained (static) one.
if [ -e /bin/busybox ] && ! dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'ok installed'; then
  missing+=(busybox-static)
fi

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" != 0 ]; then
  echo "install-deps: missing packages (${missing[*]}) and not root" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive

policy=/usr/sbin/policy-rc.d
backup=""
restore_policy() {
  if [ -n "$backup" ]; then mv -f "$backup" "$policy"; else rm -f "$policy"; fi
}
if [ -e "$policy" ]; then
  backup=$(mktemp /usr/sbin/policy-rc.d.keep.XXXXXX)
  cp -p "$policy" "$backup"
fi
trap restore_policy EXIT
printf '#!/bin/sh\nexit 101\n' >"$policy"
chmod 755 "$policy"

# Serialise against other apt users (another CI step, unattended upgrades).
apt_lock=(-o DPkg::Lock::Timeout=300)
apt-get "${apt_lock[@]}" update -qq >/dev/null
apt-get "${apt_lock[@]}" install -y -qq --no-install-recommends \
  -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
  "${missing[@]}" >/dev/null

# A service of a package installed just now that started anyway (a systemd
# that ignores policy-rc.d): stop and disable it -- by unit name, and only for
# packages this run installed (a system containerd someone uses stays as it is).
for svc in containerd docker-registry etcd prometheus; do
  pkg=$svc
  [ "$svc" = etcd ] && pkg=etcd-server
  [[ " ${missing[*]} " == *" $pkg "* ]] || continue
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    systemctl disable --now "$svc" >/dev/null 2>&1 || true
  elif [ -x "/etc/init.d/$svc" ]; then
    "/etc/init.d/$svc" stop >/dev/null 2>&1 || true
    command -v update-rc.d >/dev/null 2>&1 && update-rc.d "$svc" disable >/dev/null 2>&1 || true
  fi
done
echo "install-deps: done" >&2
